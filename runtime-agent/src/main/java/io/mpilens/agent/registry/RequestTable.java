package io.mpilens.agent.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * One request table of the registry. Its arrays are published in the registry root's
 * {@code reqIds[t]}, {@code reqRows[t]}, ... (layout: request tables), so a reader reaches them in
 * two steps from the root; its scalars are in {@code reqCounters[t]}. A thread's own table is written
 * by that thread only, with plain stores: no lock, no atomic instruction, no allocation. A row is
 * published by storing its id last (release), and emptied by storing 0 there; the ids are unique,
 * so they double as the rows' seqlock stamps, and the write counter (odd while a row is filled)
 * tells a reader whether anything changed while it read the table. Table 0 is
 * shared and written under the registry lock (requests tracked by wrapper, persistent requests,
 * requests with creation stacks or history).
 *
 * <p>Another thread that completes a request of a live owner does not write the row: under the
 * registry lock it sets {@code doneId[r]} to the row's id and queues the row; the decoder
 * treats such a row as complete, and the owner releases it at its next request. A table whose
 * owner died is written under the registry lock and is adopted by the next thread that needs one.
 * Replacing an array (growth) happens under the registry lock, which publishes the new one.
 */
final class RequestTable {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Owner id of the shared table: no thread has it. */
    static final long SHARED = -1;
    /** Request ids are taken from the registry in blocks, so creating one needs no lock. */
    static final int ID_BLOCK = 256;

    // ---- published in the registry root (layout), replaced only under the registry lock
    /** Id of the request in each row, 0 when the row is empty; stored last when a row is filled. */
    long[] reqId;
    long[] reqs;
    /** The table's scalars, {@code REQ_COUNT_*}: high water, write counter, marks. Never replaced. */
    final long[] counters = new long[REQ_COUNTERS_LENGTH];
    int reqHighWater;
    /** Side records (creation stacks) of rows; only the shared table has them, null until one is stored. */
    int[] reqSideAt;
    int[] reqSideLen;
    /** Row r was completed by another thread when doneId[r] == reqId[r] (see class comment). */
    long[] doneId;

    // ---- private to the writer
    /** Index of this table in the registry's table arrays. */
    final int index;
    private final HandleRegistry registry;
    /** Thread id of the owner (ids are never reused), or SHARED. Written under the registry lock. */
    long ownerId;
    private WeakReference<Thread> owner;
    final LongSlotMap keys;
    /** Main-table slot of the communicator (window, file) of each row, -1 if none. */
    int[] commSlot;
    private int[] free;
    private int freeCount;
    /** Rows marked done by other threads (registry lock). */
    int[] doneQueue = new int[8];
    long nextId;
    long idLimit;

    // one-entry and small caches of the owner's hot path (message loops repeat the same calls)
    WeakReference<Object> lastComm = new WeakReference<>(null);
    int lastCommSlot = -1;
    long lastCommId;
    // two entries in fields, not arrays: MPI's own work between two requests evicts cache lines,
    // and each array would be one more line to fetch again
    String metaCall0, metaClass0, metaCall1, metaClass1;
    int metaProc0, metaProc1;
    long metaValue0, metaValue1;
    int nextMeta;

    RequestTable(HandleRegistry registry, int index, int capacity, long ownerId, Thread owner) {
        this.registry = registry;
        this.index = index;
        reqId = new long[capacity];
        reqs = new long[capacity * REQ_STRIDE];
        commSlot = new int[capacity];
        free = new int[capacity];
        doneId = new long[capacity];
        keys = new LongSlotMap(Math.max(16, Integer.highestOneBit(capacity) * 2));
        this.ownerId = ownerId;
        this.owner = owner == null ? null : new WeakReference<>(owner);
    }

    /** The owner thread ended (or was collected): its rows stay, written under the registry lock. */
    boolean ownerDead() {
        if (ownerId == SHARED) return false;
        Thread t = owner == null ? null : owner.get();
        return t == null || !t.isAlive();
    }

    void adopt(Thread t) {
        ownerId = t.getId();
        owner = new WeakReference<>(t);
    }

    /** Marks not yet taken in by the owner (a volatile read: the owner's hot path must see a new one). */
    int doneCount() {
        return (int) (long) LONGS.getVolatile(counters, REQ_COUNT_DONE);
    }

    void setDoneCount(int n) {
        LONGS.setVolatile(counters, REQ_COUNT_DONE, (long) n);
    }

    /** A free row (grown when needed). */
    int take() {
        if (freeCount > 0) return free[--freeCount];
        if (reqHighWater == reqId.length) registry.grow(this);
        int r = reqHighWater++;
        LONGS.setRelease(counters, REQ_COUNT_HIGH_WATER, (long) reqHighWater);
        return r;
    }

    /** Registry lock held: larger arrays, published by the caller while the write counter is odd. */
    void grow() {
        int cap = reqId.length * 2;
        reqs = Arrays.copyOf(reqs, cap * REQ_STRIDE);
        reqId = Arrays.copyOf(reqId, cap);
        doneId = Arrays.copyOf(doneId, cap);
        if (reqSideAt != null) {
            int old = reqSideAt.length;
            reqSideAt = Arrays.copyOf(reqSideAt, cap);
            Arrays.fill(reqSideAt, old, cap, -1);
            reqSideLen = Arrays.copyOf(reqSideLen, cap);
        }
        commSlot = Arrays.copyOf(commSlot, cap);
        free = Arrays.copyOf(free, cap);
    }

    /** Fills the empty row r; the row appears to readers when its id is stored, last. */
    void write(int r, long id, long key, long peerTag, long comm, long meta, int slotOfComm) {
        int b = r * REQ_STRIDE;
        beginWrites();
        reqs[b + REQ_KEY] = key;
        reqs[b + REQ_PEER_TAG] = peerTag;
        reqs[b + REQ_COMM] = comm;
        reqs[b + REQ_META] = meta;
        LONGS.setRelease(reqId, r, id);
        endWrites();
        commSlot[r] = slotOfComm;
    }

    void beginWrites() {
        LONGS.setOpaque(counters, REQ_COUNT_WRITES, counters[REQ_COUNT_WRITES] + 1);
        VarHandle.storeStoreFence();
    }

    void endWrites() {
        LONGS.setRelease(counters, REQ_COUNT_WRITES, counters[REQ_COUNT_WRITES] + 1);
    }

    /** One 64-bit store: a reader sees the old or the new value, never a mix. */
    void setMeta(int r, long meta) {
        LONGS.setOpaque(reqs, r * REQ_STRIDE + REQ_META, meta);
    }

    /** Empties row r (one store: the row is there or gone) and puts it on the free list. */
    void clear(int r) {
        LONGS.setRelease(reqId, r, 0L);
        if (reqSideAt != null) {
            reqSideAt[r] = -1;
            reqSideLen[r] = 0;
        }
        commSlot[r] = -1;
        free[freeCount++] = r;
    }

    /** Side record of row r, set before the row's F_HAS_SIDE flag says it is there. */
    void setSide(int r, int at, int len) {
        if (reqSideAt == null) registry.addSideColumns(this);
        reqSideAt[r] = at;
        reqSideLen[r] = len;
        VarHandle.storeStoreFence();
    }

    int sideAt(int r) {
        return reqSideAt == null ? -1 : reqSideAt[r];
    }

    int sideLen(int r) {
        return reqSideLen == null ? 0 : reqSideLen[r];
    }

    long id(int r) {
        return reqId[r];
    }

    long key(int r) {
        return reqs[r * REQ_STRIDE + REQ_KEY];
    }

    long comm(int r) {
        return reqs[r * REQ_STRIDE + REQ_COMM];
    }

    long meta(int r) {
        return reqs[r * REQ_STRIDE + REQ_META];
    }

    /**
     * Row of a native handle as seen from another thread, which may be writing this table right
     * now: the owner's key map is probed (a miss is possible while it shifts entries, so the rows
     * are scanned after a miss) and the row is accepted only when a seqlock read shows it live
     * with that key. Returns the row (its id in {@link #foundId}), or -1.
     */
    int findForeign(long key) {
        int r = keys.getRacy(key);
        if (r >= 0 && verify(r, key)) return r;
        long[] rows = reqs;
        int n = Math.min(reqHighWater, rows.length / REQ_STRIDE);
        for (int i = 0; i < n; i++) {
            if (rows[i * REQ_STRIDE + REQ_KEY] == key && verify(i, key)) return i;
        }
        return -1;
    }

    /** Id of the row {@link #findForeign} found (registry lock held). */
    long foundId;

    private boolean verify(int r, long key) {
        long[] ids = reqId;
        long[] rows = reqs;
        if (r >= ids.length || (r + 1) * REQ_STRIDE > rows.length) return false;
        long before = (long) LONGS.getAcquire(ids, r);
        long k = rows[r * REQ_STRIDE + REQ_KEY];
        VarHandle.loadLoadFence();
        long after = (long) LONGS.getVolatile(ids, r);
        if (before != after || before == 0 || k != key) return false;
        if (doneId[r] == before) return false; // already completed by another thread
        foundId = before;
        return true;
    }

    /** Another thread completed row r, whose id is {@code id} (registry lock held, owner alive). */
    void mark(int r, long id) {
        doneId[r] = id;
        int n = doneCount();
        if (n == doneQueue.length) doneQueue = Arrays.copyOf(doneQueue, n * 2);
        doneQueue[n] = r;
        setDoneCount(n + 1);
    }

    /** Whether row r (live) was completed by another thread and not yet taken in. */
    boolean marked(int r) {
        return doneCount() != 0 && doneId[r] == reqId[r];
    }

    /** Registry lock held: side columns for creation stacks (shared table). */
    void allocateSideColumns() {
        int[] a = new int[reqId.length];
        Arrays.fill(a, -1);
        reqSideLen = new int[reqId.length];
        reqSideAt = a;
    }
}
