package io.mpilens.agent.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import io.mpilens.api.model.HandleKind;
import io.mpilens.api.registry.RegistryLayout;
import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * Routes the requests the registry tracks in request tables (persistent requests,
 * {@code requestStacks}/{@code requestHistory}, a late attach, {@code requestsInWrappers=false}) to
 * those tables: a request with a key (its native handle, or {@link #KEY_IS_ID}) goes into the
 * creating thread's own {@link RequestTable}, written without a lock; the others into the shared
 * table 0, under the registry's lock. It creates and adopts thread tables, finds a request again
 * from any thread, and tells the registry what a finished request held (an orphan may go then).
 * Requests that live in their wrappers do not come here ({@link WrapperRequests}).
 *
 * <p>One per {@link HandleRegistry}, which holds it in a final field and publishes the tables'
 * arrays in its layout fields ({@code reqTableCount}, {@code reqIds}, ...), written from here
 * under its lock. The agent reaches the router of {@link HandleRegistry#INSTANCE} through a
 * {@code static final} field (the interceptor's), so the owner's hot path (create, complete, the
 * array write-back) loads from a constant what it loaded before: this object's fields, and the
 * registry's {@code id} column through {@link #mainIds}, the same array. The registry's lock is
 * this class's lock too ({@link HandleRegistry#lock()}).
 *
 * <p>Why this file is over 500 lines (about 660): a request is looked for in the shared table,
 * then in the caller's own, then in other threads' (completion, free, an MPI exception naming
 * it), and every way out ends in the same orphan check; the owner's lock-free path and the
 * locked paths of other threads share the tables and the caches kept here. Apart, each would
 * reach the other's state through one more object.
 */
public final class RequestRouting {
    /**
     * {@link #addRequest}'s key for a binding whose requests have no native handle (MPJ Express):
     * the request is keyed by its own registry id, which the caller keeps in the wrapper's id
     * field ({@link RegistryLayout#WRAPPER_ID_FIELD}) and passes back as the key on completion.
     * No native handle is a negative number, so this one cannot be confused with one.
     */
    public static final long KEY_IS_ID = -1L;

    private final HandleRegistry registry;
    /** Table 0: requests tracked by wrapper, persistent ones, those with a creation stack or history; registry lock. */
    final RequestTable shared;
    private RequestTable[] tables = new RequestTable[4];
    private final ThreadLocal<RequestTable> ownTables = new ThreadLocal<>();
    /** The table the hot path used last; its owner id says whether it is the caller's. */
    private RequestTable lastTable;
    private final int tableCapacity;
    /** Requests with a native handle go into thread tables (off while stacks or history are recorded). */
    private boolean fastRequests = true;
    /** {@link #fastRequests} and requests tracked at all: {@link #addRequest} may try the owner's fast path. */
    private boolean fastAdds = true;
    /**
     * Handles in state FREED (orphans), counted by the registry: while there are none, completing
     * a request checks nothing. Here, not in the registry, because only the hot path reads it.
     */
    int freedCount;
    /**
     * The registry's {@code id} column (the same array; the registry stores the new one here when
     * it grows its columns): the hot path checks its cached communicator slot against it without
     * a load of the registry.
     */
    long[] mainIds;
    /** The shared table's last communicator (weakly, checked by id). */
    private WeakReference<Object> lastComm = new WeakReference<>(null);
    private int lastCommSlot = -1;
    private long lastCommId;
    /** Registry lock held: result of {@link #findKeyed}. */
    private int foundRow;
    private long foundId;

    /** In the registry's constructor: the shared table is published at once. */
    RequestRouting(HandleRegistry registry, int capacity, int threadTableRows) {
        this.registry = registry;
        this.mainIds = registry.id;
        shared = new RequestTable(this, 0, capacity, RequestTable.SHARED, null);
        register(shared);
        lastTable = shared;
        tableCapacity = threadTableRows;
    }

    /** Registry lock held: which fast paths are open (the registry's options). */
    void configure(boolean fastRequests, boolean requestsOff) {
        this.fastRequests = fastRequests;
        this.fastAdds = fastRequests && !requestsOff;
    }

    /** Registry lock held: the agent does not intercept requests (option {@code requests=false}). */
    void notTracked() {
        fastAdds = false;
    }

    // ------------------------------------------------------------------ creation

    /**
     * The request hot path. A request with a key (its native handle, or {@link #KEY_IS_ID}) goes
     * into the calling thread's own table: plain stores, no lock, no atomic, no allocation (see
     * {@link RequestTable}). Requests tracked by wrapper ({@code key} 0), persistent ones, and all
     * requests while creation stacks or request history are recorded go into the shared table,
     * under the registry lock. Returns the request's id, 0 when it is not tracked.
     */
    public long addRequest(Object request, long key, int proc, String bindingClass, String callName,
                           int peer, int tag, Object communicator, boolean persistent) {
        if (key != 0 && !persistent && fastAdds) {
            RequestTable t = lastTable;
            if (t.ownerId == Thread.currentThread().getId()) {
                long rid = t.fastAdd(key, proc, bindingClass, callName, peer, tag, communicator, mainIds);
                if (rid != 0) return rid;
            }
        }
        return addRequestSlow(request, key, proc, bindingClass, callName, peer, tag, communicator, persistent);
    }

    /** {@link #addRequest} when the owner's fast path cannot take it: every case, caches filled on the way. */
    private long addRequestSlow(Object request, long key, int proc, String bindingClass, String callName,
                                int peer, int tag, Object communicator, boolean persistent) {
        if (registry.requestsOff) return 0; // a request that reaches here anyway (an unusual creating call) is not shown either
        if (key != 0 && !persistent && fastRequests) {
            return addOwn(ownTable(), key, proc, bindingClass, callName, peer, tag, communicator);
        }
        return addShared(request, key, proc, bindingClass, callName, peer, tag, communicator, persistent);
    }

    /** Flags every row of a request with this key has: whether the key is a native handle or the row's id. */
    static int keyFlags(long key) {
        return key == KEY_IS_ID ? F_KEY_IS_ID : key != 0 ? F_HAS_CHANDLE : 0;
    }

    private long addShared(Object request, long key, int proc, String bindingClass, String callName,
                           int peer, int tag, Object communicator, boolean persistent) {
        HandleRegistry g = registry;
        g.lock();
        try {
            if (key == 0) {
                g.drainCollected();
                if (sharedRow(request, 0) >= 0) return 0;
            } else if (key != KEY_IS_ID) {
                int stale = shared.find(key);
                if (stale >= 0) {
                    // MPI hands out a request's handle again only after the old one finished
                    releaseShared(null, stale);
                }
            }
            RequestTable t = shared;
            int r = t.take();
            int c = communicatorSlot(communicator);
            int f = (persistent ? F_PERSISTENT | F_COMPLETE : 0) | keyFlags(key);
            long rid = g.nextId++;
            if (key == KEY_IS_ID) key = rid;
            long meta = RegistryLayout.requestMeta(f, g.interned.internCall(callName), g.interned.internClass(bindingClass),
                    proc);
            t.write(r, rid, key, HandleRegistry.peerTag(peer, tag), c >= 0 ? g.id[c] : 0, meta, c);
            if (key != 0) t.index(key, r); else g.wrappers.put(request, r | HandleRegistry.REQUEST_SLOT, rid);
            return rid;
        } finally {
            g.unlock();
        }
    }

    /**
     * Owner only. Everything the loop repeats is cached in the table; a miss takes the lock once.
     * Kept small, with the rare cases in methods of their own, so the JIT inlines it into the advice.
     */
    private long addOwn(RequestTable t, long key, int proc, String bindingClass, String callName, int peer, int tag,
                        Object communicator) {
        if (t.doneCount() != 0) takeInMarks(t);
        long meta = t.cachedMeta(callName, bindingClass, proc);
        if (meta == 0) meta = ownMetaMiss(t, callName, bindingClass, proc, keyFlags(key));
        int c = -1;
        long commId = 0;
        if (communicator != null) {
            c = t.cachedCommSlot(communicator, mainIds);
            if (c < 0) c = ownCommunicatorSlot(t, communicator);
            commId = c >= 0 ? t.lastCommId : 0;
        }
        if (t.nextId == t.idLimit) takeIds(t);
        long rid = t.nextId++;
        t.fill(t.take(), rid, key, peer, tag, commId, meta, c);
        return rid;
    }

    /**
     * Creating call, class and owner of a request not in the table's two-entry cache (iRecv,
     * iSend). {@code keyFlags}: the binding's (a class always has the same), never 0, so neither is a meta.
     */
    private long ownMetaMiss(RequestTable t, String callName, String bindingClass, int proc, int keyFlags) {
        HandleRegistry g = registry;
        long meta;
        g.lock();
        try {
            meta = RegistryLayout.requestMeta(keyFlags, g.interned.intern(callName), g.interned.intern(bindingClass), proc);
        } finally {
            g.unlock();
        }
        if ((t.nextMeta++ & 1) == 0) {
            t.metaCall0 = callName;
            t.metaClass0 = bindingClass;
            t.metaProc0 = proc;
            t.metaValue0 = meta;
        } else {
            t.metaCall1 = callName;
            t.metaClass1 = bindingClass;
            t.metaProc1 = proc;
            t.metaValue1 = meta;
        }
        return meta;
    }

    private int ownCommunicatorSlot(RequestTable t, Object communicator) {
        HandleRegistry g = registry;
        g.lock();
        try {
            int c = g.mainSlot(communicator);
            if (c >= 0) {
                t.lastComm = new WeakReference<>(communicator);
                t.lastCommSlot = c;
                t.lastCommId = g.id[c];
            }
            return c;
        } finally {
            g.unlock();
        }
    }

    /** Request ids come from the registry's one counter (handles and requests share it), a block at a time. */
    private void takeIds(RequestTable t) {
        HandleRegistry g = registry;
        g.lock();
        try {
            t.nextId = g.nextId;
            g.nextId += RequestTable.ID_BLOCK;
            t.idLimit = g.nextId;
        } finally {
            g.unlock();
        }
    }

    /**
     * Slot of the communicator a request is created on. Message loops use one communicator, so
     * the last one is remembered (weakly, and checked by id) to skip the identity-hash lookup.
     */
    private int communicatorSlot(Object communicator) {
        if (communicator == null) return -1;
        long[] id = registry.id;
        int c = lastCommSlot;
        if (c >= 0 && lastComm.get() == communicator && id[c] == lastCommId) return c;
        c = registry.mainSlot(communicator);
        if (c >= 0) {
            lastComm = new WeakReference<>(communicator);
            lastCommSlot = c;
            lastCommId = id[c];
            return c;
        }
        return -1;
    }

    /** Creation stack of a request, recorded only when the requestStacks option is on. */
    public void setStack(Object wrapper, long key, String[] frames) {
        HandleRegistry g = registry;
        g.lock();
        try {
            int r = sharedRow(wrapper, key);
            if (r < 0) return; // a thread's own table has no side data (requestStacks puts requests in the shared one)
            RowSpec spec = new RowSpec(HandleKind.REQUEST);
            spec.stack = frames;
            long[] record = SideRecord.encode(spec, null, null, g.interned);
            if (record == null) return;
            int at = SidePool.store(g, record);
            shared.setSide(r, at, record.length);
            setRequestFlags(shared, r, RegistryLayout.requestFlags(shared.meta(r)) | F_HAS_SIDE);
        } finally {
            g.unlock();
        }
    }

    // ------------------------------------------------------------------ thread tables

    /** This thread's own request table, created (or adopted from a thread that ended) on first use. */
    private RequestTable ownTable() {
        Thread me = Thread.currentThread();
        long tid = me.getId();
        RequestTable t = lastTable;
        if (t.ownerId == tid) return t;
        t = ownTables.get();
        if (t == null) t = newOwnTable(me);
        lastTable = t;
        return t;
    }

    private RequestTable ownTableIfAny() {
        RequestTable t = lastTable;
        if (t.ownerId == Thread.currentThread().getId()) return t;
        t = ownTables.get();
        if (t != null) lastTable = t;
        return t;
    }

    private RequestTable newOwnTable(Thread me) {
        HandleRegistry g = registry;
        g.lock();
        try {
            // a table whose thread ended is taken over, pending rows and all: tables do not pile up
            for (int i = 1; i < g.reqTableCount; i++) {
                RequestTable old = tables[i];
                if (old.ownerDead()) {
                    takeInMarksLocked(old);
                    old.adopt(me);
                    ownTables.set(old);
                    return old;
                }
            }
            RequestTable t = new RequestTable(this, g.reqTableCount, tableCapacity, me.getId(), me);
            register(t);
            ownTables.set(t);
            return t;
        } finally {
            g.unlock();
        }
    }

    /** Registry lock held: the table's arrays become visible in the root, then the count. */
    private void register(RequestTable t) {
        HandleRegistry g = registry;
        if (t.index == tables.length) {
            int cap = tables.length * 2;
            g.generation++; // odd: readers retry
            tables = Arrays.copyOf(tables, cap);
            g.reqCounters = Arrays.copyOf(g.reqCounters, cap);
            g.reqIds = Arrays.copyOf(g.reqIds, cap);
            g.reqRows = Arrays.copyOf(g.reqRows, cap);
            g.reqSideAts = Arrays.copyOf(g.reqSideAts, cap);
            g.reqSideLens = Arrays.copyOf(g.reqSideLens, cap);
            g.doneIds = Arrays.copyOf(g.doneIds, cap);
            g.generation++;
        }
        tables[t.index] = t;
        g.reqCounters[t.index] = t.counters;
        publish(t);
        Ordered.storeStoreFence();
        g.reqTableCount = t.index + 1;
    }

    private void publish(RequestTable t) {
        HandleRegistry g = registry;
        int i = t.index;
        g.reqIds[i] = t.reqId;
        g.reqRows[i] = t.reqs;
        g.doneIds[i] = t.doneId;
        g.reqSideAts[i] = t.reqSideAt;
        g.reqSideLens[i] = t.reqSideLen;
    }

    /**
     * A table is full: larger arrays, published under the lock while its write counter is odd.
     * A ring grown past {@link RequestTable#RING_MAX} rows becomes keyed.
     */
    void grow(RequestTable t) {
        HandleRegistry g = registry;
        g.lock();
        try {
            t.beginWrites();
            try {
                t.grow();
                publish(t);
            } finally {
                t.endWrites(); // even if out of memory: the counter must not stay odd
            }
            if (!t.keyed && t.reqId.length > RequestTable.RING_MAX) {
                int[] stale = t.becomeKeyed();
                for (int i = 0; stale[i] >= 0; i++) completeRow(t, stale[i]);
            }
        } finally {
            g.unlock();
        }
    }

    /** Registry lock held: the first creation stack of a table's request. */
    void addSideColumns(RequestTable t) {
        t.beginWrites();
        t.allocateSideColumns();
        publish(t);
        t.endWrites();
    }

    // ------------------------------------------------------------------ finding a request

    /** Registry lock held: row of a request in the shared table, by native handle when it has one, else by wrapper. */
    private int sharedRow(Object request, long key) {
        if (key != 0) return shared.find(key);
        WrapperIndex.Entry e = request == null ? null : registry.wrappers.entry(request);
        if (e == null || e.slot < 0 || (e.slot & HandleRegistry.REQUEST_SLOT) == 0) return -1;
        int r = e.slot & ~HandleRegistry.REQUEST_SLOT;
        return r < shared.reqHighWater && shared.id(r) == e.id ? r : -1;
    }

    public boolean isTrackedRequest(Object request, long key) {
        HandleRegistry g = registry;
        g.lock();
        try {
            return sharedRow(request, key) >= 0 || (key != 0 && findKeyed(key) != null);
        } finally {
            g.unlock();
        }
    }

    /**
     * The thread table holding a request with this native handle (registry lock held), its row
     * in {@link #foundRow}; null when none. Other threads' tables are read as a debugger reads them.
     */
    private RequestTable findKeyed(long key) {
        RequestTable mine = ownTableIfAny();
        if (mine != null) {
            int r = mine.find(key);
            if (r >= 0) {
                foundRow = r;
                foundId = mine.id(r);
                return mine;
            }
        }
        for (int i = 1; i < registry.reqTableCount; i++) {
            RequestTable t = tables[i];
            if (t == mine) continue;
            int r = t.findForeign(key);
            if (r >= 0) {
                foundRow = r;
                foundId = t.foundId;
                return t;
            }
        }
        return null;
    }

    /** Registry lock held: registry id of the request with this wrapper or key, 0 if none (an MPI exception names it). */
    long requestId(Object handle, long key) {
        int r = sharedRow(handle, key);
        if (r >= 0) return shared.id(r);
        if (key != 0) {
            RequestTable t = findKeyed(key);
            if (t != null) return t.id(foundRow);
        }
        return 0;
    }

    // ------------------------------------------------------------------ completion

    /**
     * A request completed (wait/test succeeded). Non-persistent requests are released.
     * {@code key}: its native handle or id ({@link #addRequest}), 0 for one tracked by reference.
     */
    public void requestCompleted(Object request, long key) {
        if (key != 0 && fastRequests) {
            RequestTable t = lastTable;
            if (t.ownerId != Thread.currentThread().getId()) t = ownTableIfAny();
            if (t != null) {
                int r = t.takeOut(key);
                if (r >= 0) {
                    completeRow(t, r);
                    return;
                }
            }
        }
        completeLocked(request, key);
    }

    /**
     * Owner only: row r (already out of the key map: completed, or its handle now names a newer
     * row) finished; its communicator may be an orphan waiting for it.
     */
    void completeRow(RequestTable t, int r) {
        if (freedCount == 0) { // no orphan can be waiting for it (racy: the reaper's sweep covers a free meanwhile)
            t.clear(r);
            return;
        }
        int c = t.commSlot[r];
        long commId = t.comm(r);
        t.clear(r);
        if (c >= 0) checkOrphan(c, commId);
    }

    /** Owner only: the request of row r finished; its communicator may be an orphan waiting for it. */
    private void completeOwn(RequestTable t, int r, long key) {
        t.unindex(key);
        completeRow(t, r);
    }

    /**
     * A request on the handle in slot c finished: if that handle is an orphan, it may go now. The
     * count read without the lock may be stale; the reaper catches that race (watchOrphans).
     */
    private void checkOrphan(int c, long commId) {
        if (freedCount == 0) return;
        HandleRegistry g = registry;
        byte[] st = g.state;
        long[] ids = g.id;
        if (c < st.length && c < ids.length && st[c] == HandleRegistry.FREED && ids[c] == commId) releaseOrphan(c);
    }

    private void releaseOrphan(int c) {
        HandleRegistry g = registry;
        g.lock();
        try {
            g.releaseIfUnheld(c);
        } finally {
            g.unlock();
        }
    }

    /** Owner: rows other threads completed are released now (registry lock, as they are read under it). */
    private void takeInMarks(RequestTable t) {
        HandleRegistry g = registry;
        g.lock();
        try {
            takeInMarksLocked(t);
        } finally {
            g.unlock();
        }
    }

    private void takeInMarksLocked(RequestTable t) {
        int n = t.doneCount();
        for (int i = 0; i < n; i++) {
            int r = t.doneQueue[i];
            boolean live = t.doneId[r] == t.reqId[r] && t.id(r) != 0;
            t.doneId[r] = 0;
            if (live) completeOwn(t, r, t.key(r));
        }
        t.setDoneCount(0);
    }

    /**
     * A request of a thread table finished or was freed, seen by a thread that holds the registry
     * lock: its owner, or anyone when the owner ended, releases the row; otherwise it is marked
     * done for the owner to release.
     */
    private void completeKeyed(RequestTable t, int r, long rowId) {
        if (t.ownerId == Thread.currentThread().getId() || t.ownerDead()) {
            completeOwn(t, r, t.key(r));
            return;
        }
        t.mark(r, rowId);
        HandleRegistry g = registry;
        int c = t.commSlot[r];
        if (c >= 0 && c < g.highWater && g.id[c] == t.comm(r)) g.releaseIfUnheld(c);
    }

    private void completeLocked(Object request, long key) {
        HandleRegistry g = registry;
        g.lock();
        try {
            int r = sharedRow(request, key);
            if (r < 0) {
                RequestTable t = key != 0 && fastRequests ? findKeyed(key) : null;
                if (t != null) completeKeyed(t, foundRow, foundId);
                return;
            }
            int f = RegistryLayout.requestFlags(shared.meta(r));
            if ((f & F_PERSISTENT) != 0) {
                if ((f & F_COMPLETE) != 0) return;
                setRequestFlags(shared, r, f | F_COMPLETE);
                int c = shared.commSlot[r];
                if (c >= 0 && g.id[c] == shared.comm(r)) g.releaseIfUnheld(c);
                return;
            }
            releaseShared(request, r);
        } finally {
            g.unlock();
        }
    }

    /**
     * Registry lock held: the application freed this request ({@code key}: its native handle before
     * the call, 0 if none). Returns false when it is none of the tables' (then it may be another handle).
     */
    boolean freed(Object wrapper, long key) {
        // MPI_Request_free: the operation may still run, but the application can no longer
        // observe it; the request leaves the registry
        int r = sharedRow(wrapper, key);
        if (r >= 0) {
            releaseShared(wrapper, r);
            return true;
        }
        if (key != 0 && fastRequests) {
            RequestTable t = findKeyed(key);
            if (t != null) {
                completeKeyed(t, foundRow, foundId);
                return true;
            }
        }
        return false;
    }

    /** Registry lock held: the wrapper of row r of the shared table (id {@code rowId}) was collected while pending. */
    void wrapperCollected(int r, long rowId) {
        // a pending request whose wrapper is gone can never be waited for
        if (r < shared.reqHighWater && shared.id(r) != 0 && shared.id(r) == rowId) {
            setRequestFlags(shared, r, RegistryLayout.requestFlags(shared.meta(r)) | F_LEAKED);
        }
    }

    /** A persistent request was started: it is pending again and holds its communicator. */
    public void requestStarted(Object request, long key) {
        HandleRegistry g = registry;
        g.lock();
        try {
            int r = sharedRow(request, key);
            if (r < 0) return;
            int f = RegistryLayout.requestFlags(shared.meta(r));
            if ((f & F_COMPLETE) == 0) return;
            setRequestFlags(shared, r, f & ~F_COMPLETE);
            int c = shared.commSlot[r];
            // the communicator may have been released (and its slot reused) while the request was inactive
            if (c >= 0 && (g.id[c] != shared.comm(r) || g.id[c] == 0)) shared.commSlot[r] = -1;
        } finally {
            g.unlock();
        }
    }

    private static void setRequestFlags(RequestTable t, int r, int f) {
        long meta = t.meta(r);
        t.setMeta(r, RegistryLayout.requestMeta(f, RegistryLayout.requestCall(meta),
                RegistryLayout.requestClass(meta), RegistryLayout.requestOwner(meta)));
    }

    /** Releases row r of the shared table; its communicator may be an orphan waiting for it. */
    private void releaseShared(Object wrapper, int r) {
        HandleRegistry g = registry;
        RequestTable t = shared;
        long meta = t.meta(r);
        int f = RegistryLayout.requestFlags(meta);
        long key = t.key(r);
        if (key != 0) t.unindex(key);
        else if (wrapper != null) g.wrappers.remove(wrapper);
        if (g.historyOfRequests) {
            HistoryRing.record(g, t.id(r), HandleKind.REQUEST.code(), RegistryLayout.requestOwner(meta), -1,
                    RegistryLayout.requestCall(meta), SidePool.firstStackString(g, t.sideAt(r), t.sideLen(r)), f);
        }
        int c = t.commSlot[r];
        long commId = t.comm(r);
        t.clear(r);
        if (c >= 0 && g.id[c] == commId && commId != 0) g.releaseIfUnheld(c);
    }

    /**
     * Registry lock held: pending (not complete, not marked done) requests on handle
     * {@code holderId}, in every table and in the request ring. Pending requests hold their
     * communicator (window, file) without a count in the registry's {@code refCount}.
     */
    int pendingRequestsOn(long holderId) {
        HandleRegistry g = registry;
        int n = g.requestRing == null ? 0 : RequestRing.pendingOn(holderId);
        for (int i = 0; i < g.reqTableCount; i++) {
            RequestTable t = tables[i];
            long[] rows = t.reqs;
            int count = Math.min(t.reqHighWater, rows.length / REQ_STRIDE);
            for (int r = 0; r < count; r++) {
                int b = r * REQ_STRIDE;
                if (rows[b + REQ_COMM] != holderId || t.reqId[r] == 0) continue;
                if ((RegistryLayout.requestFlags(rows[b + REQ_META]) & F_COMPLETE) != 0 || t.marked(r)) continue;
                n++;
            }
        }
        return n;
    }
}
