package io.mpilens.agent.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * One request table of the registry. Its arrays are published in the registry root's
 * {@code reqIds[t]}, {@code reqRows[t]}, ... (layout: request tables), so a reader reaches them in
 * two steps from the root; its scalars are in {@code reqCounters[t]}. A thread's own table is written
 * by that thread only, with plain stores: no lock, no atomic instruction, no allocation. A row is
 * published by storing its id last (release), and emptied by storing 0 there; the ids are unique,
 * so they are the rows' seqlock stamps: a reader that sees a row's id unchanged before and after
 * its fields read them consistently. Table 0 is shared and written under the registry lock
 * (requests tracked by wrapper, persistent requests, requests with creation stacks or history).
 *
 * <p>A thread's own table starts as a <em>ring</em>: each request takes the next empty row after
 * the last one taken, and a small direct-mapped index (native handle hash → row, a newer request
 * overwriting an older one's entry) finds it again: one store at creation, one probe at
 * completion, no probing sequence and no deletion. A request whose entry was overwritten is
 * found by scanning back from the newest row. The same probe at creation notices a handle that
 * is still in a live row: MPI gave it out again, so that request finished unnoticed.
 * A ring is at most half full; when more requests are pending than
 * {@link #RING_MAX} rows allow, the table becomes <em>keyed</em>, as the shared table always is:
 * a map from native handle to row, and a free list.
 *
 * <p>Another thread that completes a request of a live owner does not write the row: under the
 * registry lock it sets {@code doneId[r]} to the row's id and queues the row; the decoder
 * treats such a row as complete, and the owner releases it at its next request. A table whose
 * owner died is written under the registry lock and is adopted by the next thread that needs one.
 * Replacing an array (growth) happens under the registry lock, which publishes the new one.
 */
final class RequestTable {
    /** Owner id of the shared table: no thread has it. */
    static final long SHARED = -1;
    /** Request ids are taken from the registry in blocks, so creating one needs no lock. */
    static final int ID_BLOCK = 256;
    /** A thread table larger than this many rows is keyed (see the class comment). */
    static final int RING_MAX = 256;

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
    private final RequestRouting routing;
    /** Thread id of the owner (ids are never reused), or SHARED. Written under the registry lock. */
    long ownerId;
    private WeakReference<Thread> owner;
    /** Native handle to row; kept only while {@link #keyed}. */
    final LongSlotMap keys;
    /** Whether rows are found through {@link #keys} and taken from the free list; else the table is a ring. */
    boolean keyed;
    /** Ring: where the search for the next empty row starts, and the row taken last. */
    private int cursor;
    private int lastRow;
    /** Live rows (ring). */
    int pending;
    /** {@code counters[REQ_COUNT_DONE]}, for the owner's hot path (see {@link #anyMarks}). */
    private final int[] marks = new int[1];
    /** Ring: row + 1 of the request whose native handle hashes to each entry, 0 for none. Lossy. */
    private int[] byKey;
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

    RequestTable(RequestRouting routing, int index, int capacity, long ownerId, Thread owner) {
        this.routing = routing;
        this.index = index;
        reqId = new long[capacity];
        reqs = new long[capacity * REQ_STRIDE];
        commSlot = new int[capacity];
        free = new int[capacity];
        doneId = new long[capacity];
        keys = new LongSlotMap(Math.max(16, Integer.highestOneBit(capacity) * 2));
        keyed = ownerId == SHARED || capacity > RING_MAX || Integer.bitCount(capacity) != 1;
        byKey = keyed ? null : new int[capacity * 2];
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
        return (int) Ordered.getVolatile(counters, REQ_COUNT_DONE);
    }

    /**
     * The owner's hot-path form of {@code doneCount() != 0}: an opaque read (not hoisted out of
     * a loop, no ordering); the marks themselves are then read under the registry lock.
     */
    boolean anyMarks() {
        return Ordered.getOpaque(marks, 0) != 0;
    }

    void setDoneCount(int n) {
        Ordered.setVolatile(counters, REQ_COUNT_DONE, (long) n);
        Ordered.setVolatile(marks, 0, n); // the owner's copy, apart from the published counters
    }

    /** An empty row (grown when needed). */
    int take() {
        if (keyed) {
            if (freeCount > 0) return free[--freeCount];
            if (reqHighWater == reqId.length) routing.grow(this);
            int r = reqHighWater++;
            Ordered.setRelease(counters, REQ_COUNT_HIGH_WATER, (long) reqHighWater);
            return r;
        }
        if ((pending + 1) * 2 > reqId.length) {
            routing.grow(this);
            if (keyed) return take();
        }
        return ringTake(); // pending rows are skipped; at most half are
    }

    /**
     * Owner (or the registry lock's holder when there is none): the row of the live request with
     * this native handle, -1 if none. In a ring, the newest matching row: a message loop completes
     * what it just created, so the scan back from the newest row is short.
     */
    int find(long key) {
        if (keyed) return keys.get(key);
        long[] ids = reqId;
        long[] rows = reqs;
        int r = lastRow; // the request just created (wait right after iSend)
        if (rows[r * REQ_STRIDE + REQ_KEY] == key && ids[r] != 0) return r;
        int[] index = byKey;
        r = index[LongSlotMap.mix(key) & (index.length - 1)] - 1;
        if (r >= 0 && r < ids.length && rows[r * REQ_STRIDE + REQ_KEY] == key && ids[r] != 0) return r;
        return scan(key);
    }

    /** Ring: the newest live row with this native handle, scanning back from the newest row. */
    private int scan(long key) {
        long[] ids = reqId;
        long[] rows = reqs;
        int used = Math.min(reqHighWater, ids.length); // rows [0, used) are all a ring ever took
        int r = lastRow; // the newest, < used
        for (int n = used; n > 0; n--) {
            if (rows[r * REQ_STRIDE + REQ_KEY] == key && ids[r] != 0) return r;
            r = r == 0 ? used - 1 : r - 1;
        }
        return -1;
    }

    /**
     * Row r now holds the request with this native handle. Returns the row of another live
     * request with the same handle, or -1: MPI hands out a handle again only after its request
     * finished, so that one finished unnoticed. (A ring sees it when the index entry is still
     * the older request's; {@link #becomeKeyed} catches the rest.)
     */
    int index(long key, int r) {
        if (keyed) return keys.put(key, r);
        int[] index = byKey;
        int h = LongSlotMap.mix(key) & (index.length - 1);
        int old = index[h] - 1;
        index[h] = r + 1;
        return old >= 0 && old != r && reqs[old * REQ_STRIDE + REQ_KEY] == key && reqId[old] != 0 ? old : -1;
    }

    /** Owner: {@link #find} and {@link #unindex} in one step. */
    int takeOut(long key) {
        return keyed ? keys.remove(key) : find(key);
    }

    /** The request with this native handle left row r (the row is emptied separately). */
    void unindex(long key) {
        if (keyed) keys.remove(key);
    }

    /**
     * Owner, ring only: a request of a message loop, taken without a call, a lock or a miss in
     * the table's caches (call, class, process, communicator). Returns its id; 0, having changed
     * nothing, when any of that does not hold; {@link RequestRouting#addRequest}'s slow path then
     * fills the caches and takes it. {@code key}: the native handle, or
     * {@link RequestRouting#KEY_IS_ID}. {@code mainIds}: the registry's id column, to check the
     * cached communicator slot still holds the same communicator.
     */
    long fastAdd(long key, int proc, String bindingClass, String callName, int peer, int tag, Object communicator,
                 long[] mainIds) {
        // kept under HotSpot's inlining limit for hot methods (FreqInlineSize, 325 bytes of
        // bytecode): the rare parts are methods of their own
        long meta = cachedMeta(callName, bindingClass, proc);
        int c = -1;
        long commId = 0;
        if (communicator != null) {
            c = cachedCommSlot(communicator, mainIds);
            if (c < 0) return 0;
            commId = lastCommId;
        }
        long rid = nextId;
        if (meta == 0 || keyed || rid == idLimit || (pending + 1) * 2 > reqId.length || anyMarks()) return 0;
        int r = ringTake();
        nextId = rid + 1;
        fill(r, rid, key, peer, tag, commId, meta, c);
        return rid;
    }

    /**
     * Fills the empty row r with a new request and indexes it by {@code key} (its native handle;
     * {@link RequestRouting#KEY_IS_ID}: its id). A live row that had the same native handle is
     * completed: MPI hands out a handle again only after its request finished.
     */
    void fill(int r, long id, long key, int peer, int tag, long commId, long meta, int slotOfComm) {
        if (key == RequestRouting.KEY_IS_ID) key = id;
        write(r, id, key, HandleRegistry.peerTag(peer, tag), commId, meta, slotOfComm);
        int stale = index(key, r);
        if (stale >= 0) routing.completeRow(this, stale);
    }

    /**
     * The cached main-table slot of the communicator the owner's last requests were on, when it
     * is this communicator and the slot still holds it ({@code mainIds}: the registry's id
     * column); -1 on a miss.
     */
    int cachedCommSlot(Object communicator, long[] mainIds) {
        int c = lastCommSlot;
        return c >= 0 && c < mainIds.length && mainIds[c] == lastCommId && lastComm.get() == communicator ? c : -1;
    }

    /** The request meta of a call, class and process in the table's two-entry cache; 0 if not there. */
    long cachedMeta(String callName, String bindingClass, int proc) {
        if (metaCall0 == callName && metaClass0 == bindingClass && metaProc0 == proc) return metaValue0;
        if (metaCall1 == callName && metaClass1 == bindingClass && metaProc1 == proc) return metaValue1;
        return 0; // a meta always has F_HAS_CHANDLE or F_KEY_IS_ID set
    }

    /** Ring with room (at most half full after this): the next empty row after the last one taken. */
    private int ringTake() {
        long[] ids = reqId;
        int mask = ids.length - 1;
        int r = cursor;
        while (ids[r] != 0) r = (r + 1) & mask;
        cursor = (r + 1) & mask;
        lastRow = r;
        pending++;
        if (r >= reqHighWater) raiseHighWater(r + 1);
        return r;
    }

    private void raiseHighWater(int hw) {
        reqHighWater = hw;
        Ordered.setRelease(counters, REQ_COUNT_HIGH_WATER, (long) hw);
    }

    /** Registry lock held: larger arrays, published by the caller. */
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
        if (byKey != null) {
            int[] index = new int[cap * 2];
            for (int r = 0; r < reqHighWater; r++) {
                if (reqId[r] != 0) index[LongSlotMap.mix(key(r)) & (index.length - 1)] = r + 1;
            }
            byKey = index;
        }
    }

    /**
     * Registry lock held: a ring grown past {@link #RING_MAX} becomes keyed. Returns the rows of
     * requests whose handle a newer live request has (they finished unnoticed; the caller
     * completes them), -1 terminated.
     */
    int[] becomeKeyed() {
        int[] stale = new int[reqHighWater + 1];
        int staleCount = 0;
        freeCount = 0;
        for (int r = reqHighWater - 1; r >= 0; r--) {
            if (reqId[r] == 0) {
                free[freeCount++] = r;
                continue;
            }
            int other = keys.put(key(r), r);
            if (other >= 0) { // two live rows with one handle: the older one is stale, the map keeps the newer
                boolean otherOlder = reqId[other] < reqId[r];
                if (!otherOlder) keys.put(key(r), other);
                stale[staleCount++] = otherOlder ? other : r;
            }
        }
        stale[staleCount] = -1;
        keyed = true;
        byKey = null;
        return stale;
    }

    /** Fills the empty row r; the row appears to readers when its id is stored, last. */
    void write(int r, long id, long key, long peerTag, long comm, long meta, int slotOfComm) {
        int b = r * REQ_STRIDE;
        long[] rows = reqs;
        rows[b + REQ_KEY] = key;
        rows[b + REQ_PEER_TAG] = peerTag;
        rows[b + REQ_COMM] = comm;
        rows[b + REQ_META] = meta;
        commSlot[r] = slotOfComm;
        Ordered.setRelease(reqId, r, id);
    }

    /** Around a replacement of the table's arrays (registry lock held); rows are stamped by their ids. */
    void beginWrites() {
        Ordered.setOpaque(counters, REQ_COUNT_WRITES, counters[REQ_COUNT_WRITES] + 1);
        Ordered.storeStoreFence();
    }

    void endWrites() {
        Ordered.setRelease(counters, REQ_COUNT_WRITES, counters[REQ_COUNT_WRITES] + 1);
    }

    /** One 64-bit store: a reader sees the old or the new value, never a mix. */
    void setMeta(int r, long meta) {
        Ordered.setOpaque(reqs, r * REQ_STRIDE + REQ_META, meta);
    }

    /** Empties row r (one store: the row is there or gone); a keyed table puts it on the free list. */
    void clear(int r) {
        Ordered.setRelease(reqId, r, 0L);
        if (reqSideAt != null) {
            reqSideAt[r] = -1;
            reqSideLen[r] = 0;
        }
        if (keyed) free[freeCount++] = r;
        else pending--;
    }

    /** Side record of row r, set before the row's F_HAS_SIDE flag says it is there. */
    void setSide(int r, int at, int len) {
        if (reqSideAt == null) routing.addSideColumns(this);
        reqSideAt[r] = at;
        reqSideLen[r] = len;
        Ordered.storeStoreFence();
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
        int r = keyed ? keys.getRacy(key) : -1;
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
        long before = Ordered.getAcquire(ids, r);
        long k = rows[r * REQ_STRIDE + REQ_KEY];
        Ordered.loadLoadFence();
        long after = Ordered.getVolatile(ids, r);
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
