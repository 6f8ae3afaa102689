package io.mpilens.agent.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import io.mpilens.agent.job.ThisProcess;
import io.mpilens.api.job.HostName;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.registry.RegistryLayout;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The handle registry: one per JVM, in the application's heap, laid out as
 * {@link RegistryLayout} describes so a debugger or a heap-dump reader can decode it by reading
 * fields and arrays only. Field names are part of the contract; do not rename them.
 *
 * <p>Every mutation holds this object's one lock, but the request hot path's (a thread's own
 * {@link RequestTable}, the {@link RequestRing}); every row change is bracketed by a seqlock
 * stamp so a reader that stopped the VM mid-update sees the row as torn, not as garbage. The
 * registry keeps no strong reference to the application's objects.
 *
 * <p>Every published field lives here (RegistryLayout: the reader finds them by name from one
 * static field, in a live JVM and in a heap dump alike); this class owns the lock and the
 * wrappers' rows: their lifecycle (add, free, orphans, release, reference counts), the process
 * table, info, attributes and errors. Helpers keep the logic of the rest and write this object's
 * fields, under its lock: {@link RequestRouting} (the request tables and the routing of requests
 * to them), {@link InternedStrings} (the string table), {@link SidePool} (the side-record pool),
 * {@link ErrorRing} and {@link HistoryRing} (the two rings), {@link SlotStamps} (the per-slot
 * seqlock bracket); logic without published state: {@link RequestTable}, {@link HandleNotes},
 * {@link SideRecord}, {@link WrapperIndex}, {@link LongSlotMap}.
 *
 * <p>Why this file is over 500 lines (about 840): the contract puts every published field in
 * this one class (about 130 lines of declarations: root scalars, process table, columns, the
 * tables', side records', history's and errors' arrays), and the rows' lifecycle (add, free,
 * orphans, release, references, the reaper) writes the same columns under the same lock; split
 * further, each step would reach the columns through another object.
 */
@SuppressWarnings("unused") // the layout fields are read by debuggers, not by Java code
public final class HandleRegistry {
    public static final HandleRegistry INSTANCE = new HandleRegistry(1024, 1024);

    // ---- root scalars (layout)
    private final int magic = MAGIC;
    private final int layoutVersion = VERSION;
    volatile int generation;
    int highWater;
    private String agentVersion = "unknown";
    private String binding;
    private long pid = ThisProcess.pid();
    private String host = HostName.local();
    private volatile int internalErrors;
    private String lastError;
    private long untrackedEvents;
    boolean requestsOff;
    /** Layout {@code requestRing}: requests in their wrappers; null until the first such request. */
    RequestRing requestRing;
    /** Layout {@code blockingReturns}: the count lives at {@link #BLOCKING_AT}, alone on its cache line. */
    private final long[] blockingReturns = new long[17];
    private static final int BLOCKING_AT = 8;
    /**
     * Layout {@code blockingReturnsByProc}: in a JVM of several MPI processes, process p's count at
     * {@code p * BLOCKING_RETURNS_STRIDE}; grown with the process table (under the lock), replaced, never shrunk.
     */
    private long[] blockingReturnsByProc = new long[4 * BLOCKING_RETURNS_STRIDE];

    // ---- processes (layout)
    private int procCount;
    private int[] procRank = new int[4];
    private int[] procSize = new int[4];
    private byte[] procState = new byte[4];

    // ---- columns (layout)
    private int[] stamp;
    long[] id;
    private byte[] kind;
    byte[] state;
    private int[] flags;
    private int[] owner;
    private int[] refCount;
    private long[] cHandle;
    private int[] i0, i1, i2;
    private long[] l0, l1, l2;
    private long[] r0, r1, r2;
    private int[] name, call, cls;
    int[] sideAt, sideLen;
    String[] strings = new String[256];
    int stringCount;

    // ---- request tables (layout): [0] shared, under the lock; then one per thread (RequestTable),
    // written by RequestRouting
    int reqTableCount;
    long[][] reqCounters = new long[4][];
    long[][] reqIds = new long[4][];
    long[][] reqRows = new long[4][];
    int[][] reqSideAts = new int[4][];
    int[][] reqSideLens = new int[4][];
    long[][] doneIds = new long[4][];

    // ---- side records (layout): one pool, so a snapshot reads all of them in one bulk read (SidePool)
    long[] sidePool = new long[4096];
    int sidePoolUsed;

    // ---- history ring (layout), written by HistoryRing
    long histCount;
    final int[] hStamp;
    final long[] hId;
    final byte[] hKind;
    final int[] hOwner, hName, hCall, hSite, hFlags;

    // ---- ring of MPI exceptions (layout), written by ErrorRing
    long errCount;
    final int[] errStamp = new int[ErrorRing.CAPACITY];
    final long[] errTime = new long[ErrorRing.CAPACITY];
    final int[] errOwner = new int[ErrorRing.CAPACITY];
    final long[] errHandle = new long[ErrorRing.CAPACITY];
    final int[] errPeer = new int[ErrorRing.CAPACITY];
    final int[] errClass = new int[ErrorRing.CAPACITY];
    final int[] errCode = new int[ErrorRing.CAPACITY];
    final int[] errCall = new int[ErrorRing.CAPACITY];
    final int[] errCause = new int[ErrorRing.CAPACITY];
    final String[] errMessage = new String[ErrorRing.CAPACITY];

    // ---- private bookkeeping (not part of the layout)
    /** Writes {@link #strings} and {@link #stringCount}. */
    final InternedStrings interned = new InternedStrings(this);
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    final WrapperIndex wrappers = new WrapperIndex(collected);
    /** The request tables and the routing of requests to them; it counts the handles in state FREED. */
    private final RequestRouting requests;
    /** Some freed communicator waits for requests of thread tables: the reaper re-checks it. */
    private boolean orphanWatch;
    private final Map<ClassLoader, Integer> procByLoader = new IdentityHashMap<>();
    private int[] ref0Slot, ref1Slot;
    private int[][] parentSlots;
    private int[] freeSlots;
    private int freeCount;
    /** Wrapper-index values with this bit set are request-table slots. */
    static final int REQUEST_SLOT = 1 << 30;
    /** Ids of handles and requests, from one counter (RequestRouting takes blocks of it). */
    long nextId = 1;
    boolean historyOfRequests;

    HandleRegistry(int capacity, int historyCapacity) {
        this(capacity, historyCapacity, Math.min(capacity, 8));
    }

    /**
     * {@code threadTableRows}: first size of a thread's request table (a power of two: a ring).
     * A message loop keeps a few requests pending; 8 rows (at most 4 pending before the ring
     * doubles) keep what one request touches within a handful of cache lines.
     */
    HandleRegistry(int capacity, int historyCapacity, int threadTableRows) {
        allocate(capacity);
        hStamp = new int[historyCapacity];
        hId = new long[historyCapacity];
        hKind = new byte[historyCapacity];
        hOwner = new int[historyCapacity];
        hName = new int[historyCapacity];
        hCall = new int[historyCapacity];
        hSite = new int[historyCapacity];
        hFlags = new int[historyCapacity];
        freeSlots = new int[capacity];
        requests = new RequestRouting(this, capacity, threadTableRows);
    }

    public void configure(String agentVersion, String binding, boolean historyOfRequests) {
        configure(agentVersion, binding, historyOfRequests, false);
    }

    /** {@code requestStacks}: creation stacks of requests will be recorded ({@link #setStack}). */
    public void configure(String agentVersion, String binding, boolean historyOfRequests, boolean requestStacks) {
        lock();
        try {
            this.agentVersion = agentVersion;
            this.binding = binding;
            this.historyOfRequests = historyOfRequests;
            requests.configure(!historyOfRequests && !requestStacks, requestsOff);
        } finally {
            unlock();
        }
    }

    /** Requests (but persistent ones) live in their wrappers: the ring with their facts, published at the first one. */
    void requestRing(RequestRing ring) {
        lock();
        try {
            requestRing = ring;
        } finally {
            unlock();
        }
    }

    /** The agent does not intercept requests (option {@code requests=false}): readers are told so. */
    public void requestsNotTracked() {
        lock();
        try {
            requestsOff = true;
            requests.notTracked();
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------ processes

    /** Index of the MPI process whose binding classes were loaded by this loader. */
    public int process(ClassLoader loader) {
        lock();
        try {
            Integer p = procByLoader.get(loader);
            if (p != null) return p;
            if (procCount == procRank.length) {
                procRank = Arrays.copyOf(procRank, procCount * 2);
                procSize = Arrays.copyOf(procSize, procCount * 2);
                procState = Arrays.copyOf(procState, procCount * 2);
                blockingReturnsByProc = Arrays.copyOf(blockingReturnsByProc, procCount * 2 * BLOCKING_RETURNS_STRIDE);
            }
            int idx = procCount;
            procRank[idx] = -1;
            procSize[idx] = -1;
            procState[idx] = MpiState.NOT_INITIALIZED.code();
            procCount = idx + 1;
            procByLoader.put(loader, idx);
            return idx;
        } finally {
            unlock();
        }
    }

    public void processInitialized(int proc, int rank, int size) {
        lock();
        try {
            procRank[proc] = rank;
            procSize[proc] = size;
            procState[proc] = MpiState.INITIALIZED.code();
        } finally {
            unlock();
        }
    }

    public void processFinalized(int proc) {
        lock();
        try {
            procState[proc] = MpiState.FINALIZED.code();
        } finally {
            unlock();
        }
    }

    public boolean isInitialized(int proc) {
        lock();
        try {
            return proc >= 0 && proc < procCount && procState[proc] == MpiState.INITIALIZED.code();
        } finally {
            unlock();
        }
    }

    public int rankOf(int proc) {
        lock();
        try {
            return proc >= 0 && proc < procCount ? procRank[proc] : -1;
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------ rows

    /** Registers a new handle; a wrapper already registered keeps its row. Returns the id. */
    public long add(Object wrapper, RowSpec spec) {
        lock();
        try {
            drainCollected();
            int existing = mainSlot(wrapper);
            if (existing >= 0) return id[existing];
            int s = takeSlot();
            long newId = nextId++;
            beginWrite(s);
            id[s] = newId;
            kind[s] = spec.kind.code();
            state[s] = Lifecycle.ACTIVE.code();
            owner[s] = spec.proc;
            refCount[s] = 0;
            cHandle[s] = spec.cHandle;
            i0[s] = spec.i0;
            i1[s] = spec.i1;
            i2[s] = spec.i2;
            l0[s] = spec.l0;
            l1[s] = spec.l1;
            l2[s] = spec.l2;
            name[s] = interned.intern(spec.name);
            call[s] = interned.intern(spec.call);
            cls[s] = interned.intern(spec.bindingClass);
            ref0Slot[s] = holdSlot(spec.ref0);
            ref1Slot[s] = holdSlot(spec.ref1);
            r0[s] = ref0Slot[s] >= 0 ? id[ref0Slot[s]] : 0;
            r1[s] = ref1Slot[s] >= 0 ? id[ref1Slot[s]] : 0;
            int lineage = spec.derivedFrom == null ? -1 : mainSlot(spec.derivedFrom);
            r2[s] = lineage >= 0 ? id[lineage] : 0;
            if (spec.kind == HandleKind.COMMUNICATOR && ref0Slot[s] < 0 && lineage >= 0
                    && kind[lineage] == HandleKind.COMMUNICATOR.code() && ref0Slot[lineage] >= 0) {
                // a new communicator inherits its parent's errhandler (MPI 3.1 section 8.3)
                ref0Slot[s] = ref0Slot[lineage];
                addRef(ref0Slot[s]);
                r0[s] = id[ref0Slot[s]];
            }
            long[] parentIds = null;
            long[] parentIdAt = null; // by position in spec.parents, 0 when not registered
            if (spec.parents != null && spec.parents.length > 0) {
                int[] ps = new int[spec.parents.length];
                parentIdAt = new long[spec.parents.length];
                int n = 0;
                for (int k = 0; k < spec.parents.length; k++) {
                    int ps1 = holdSlot(spec.parents[k]);
                    if (ps1 >= 0) {
                        ps[n++] = ps1;
                        parentIdAt[k] = id[ps1];
                    }
                }
                parentSlots[s] = Arrays.copyOf(ps, n);
                parentIds = new long[n];
                for (int i = 0; i < n; i++) parentIds[i] = id[ps[i]];
            } else {
                parentSlots[s] = null;
            }
            prepareInfo(spec, newId);
            long[] sideRecord = SideRecord.encode(spec, parentIds, parentIdAt, interned);
            sideAt[s] = sideRecord == null ? -1 : SidePool.store(this, sideRecord);
            sideLen[s] = sideRecord == null ? 0 : sideRecord.length;
            flags[s] = spec.flags | (sideRecord != null ? F_HAS_SIDE : 0);
            endWrite(s);
            wrappers.put(wrapper, s, newId);
            WrapperIdField.set(wrapper, newId);
            return newId;
        } finally {
            unlock();
        }
    }

    /** A predefined handle found at MPI init: registered, or marked if already known. */
    public void addPredefined(Object wrapper, RowSpec spec) {
        lock();
        try {
            int s = mainSlot(wrapper);
            if (s < 0) {
                add(wrapper, spec);
                return;
            }
            int idx = interned.intern(spec.name);
            beginWrite(s);
            flags[s] |= spec.flags;
            name[s] = idx;
            owner[s] = spec.proc;
            endWrite(s);
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------ requests (RequestRouting)

    /**
     * The tables' requests, routed by {@link RequestRouting}; the agent calls it directly (through
     * a {@code static final} field, so the hot path loads nothing more than before), tests and
     * tools through the one-line delegates below.
     */
    public RequestRouting requests() {
        return requests;
    }

    /** {@link RequestRouting#addRequest}. */
    public long addRequest(Object request, long key, int proc, String bindingClass, String callName,
                           int peer, int tag, Object communicator, boolean persistent) {
        return requests.addRequest(request, key, proc, bindingClass, callName, peer, tag, communicator, persistent);
    }

    /** {@link RequestRouting#requestCompleted}. */
    public void requestCompleted(Object request, long key) {
        requests.requestCompleted(request, key);
    }

    /** {@link RequestRouting#requestStarted}. */
    public void requestStarted(Object request) {
        requests.requestStarted(request, 0);
    }

    /** {@link RequestRouting#requestStarted}. */
    public void requestStarted(Object request, long key) {
        requests.requestStarted(request, key);
    }

    /** {@link RequestRouting#setStack}. */
    public void setStack(Object wrapper, long key, String[] frames) {
        requests.setStack(wrapper, key, frames);
    }

    /** A request's peer and tag in one long (a row of a table, a slot of the ring). */
    static long peerTag(int peer, int tag) {
        return ((long) peer << 32) | (tag & 0xFFFF_FFFFL);
    }

    static final byte FREED = Lifecycle.FREED.code();

    /**
     * Main-table slot of a wrapper whose handle is active; -1 when unknown, when it is a request's,
     * or when its handle was freed (a freed wrapper stays in the index, so that a debugger can
     * still map it to its orphan, until the wrapper is collected; its id tells a reused slot).
     */
    int mainSlot(Object wrapper) {
        WrapperIndex.Entry e = wrapper == null ? null : wrappers.entry(wrapper);
        if (e == null) return -1;
        int s = e.slot;
        return s >= 0 && (s & REQUEST_SLOT) == 0 && s < highWater && id[s] == e.id
                && state[s] == Lifecycle.ACTIVE.code() ? s : -1;
    }

    /** The application freed the handle: release it now or keep it as an orphan. */
    public void freed(Object wrapper) {
        freed(wrapper, 0);
    }

    /** {@code key}: the native handle the wrapper had before the call, 0 if none. */
    public void freed(Object wrapper, long key) {
        lock();
        try {
            drainCollected();
            if (requests.freed(wrapper, key)) return;
            int s = mainSlot(wrapper);
            if (s < 0) {
                untrackedEvents++;
                return;
            }
            // the wrapper stays in the index (weakly) while its handle is an orphan: a debugger
            // maps a freed wrapper, whose binding no longer names the handle, by its identity
            beginWrite(s);
            state[s] = Lifecycle.FREED.code();
            endWrite(s);
            requests.freedCount++;
            if (!releaseIfUnheld(s) && refCount[s] == 0) {
                watchOrphans();
            }
        } finally {
            unlock();
        }
    }

    /**
     * Releases a freed handle nothing holds any more (registry lock held). Pending requests hold
     * their communicator (window, file) without a count in {@code refCount}: they are counted
     * here, over all request tables. Returns whether the handle is gone (or was not an orphan).
     */
    boolean releaseIfUnheld(int s) {
        if (id[s] == 0 || state[s] != Lifecycle.FREED.code()) return true;
        if (refCount[s] > 0 || requests.pendingRequestsOn(id[s]) > 0) {
            return false;
        }
        release(s);
        return true;
    }

    /**
     * An orphan waits for pending requests of some thread tables. Their owners release it when
     * they complete the last one; the reaper re-checks meanwhile, for the completion that raced
     * with the free (the owner's hot path has no fence that would order the two).
     */
    private void watchOrphans() {
        if (orphanWatch) return;
        orphanWatch = true;
        new WrapperIndex.Entry(null, 0, -1, 0, collected).enqueue(); // wakes the reaper
    }

    private void sweepOrphans() {
        boolean left = false;
        for (int s = 0; s < highWater; s++) {
            if (id[s] != 0 && state[s] == Lifecycle.FREED.code() && refCount[s] == 0 && !releaseIfUnheld(s)) left = true;
        }
        orphanWatch = left;
    }

    public void setErrhandler(Object holder, Object errhandler) {
        lock();
        try {
            int s = slotOrUntracked(holder);
            if (s < 0) return;
            boolean comm = kind[s] == HandleKind.COMMUNICATOR.code();
            int which = comm ? 0 : 1;
            dropRef(s, which);
            int e = holdSlot(errhandler);
            beginWrite(s);
            if (which == 0) {
                ref0Slot[s] = e;
                r0[s] = e >= 0 ? id[e] : 0;
            } else {
                ref1Slot[s] = e;
                r1[s] = e >= 0 ? id[e] : 0;
            }
            endWrite(s);
        } finally {
            unlock();
        }
    }

    // ---- info pairs and attributes (HandleNotes keeps them), under the lock

    private final HandleNotes notes = new HandleNotes(interned);

    /** A dup'ed info starts with its original's pairs; a handle created with an info keeps its pairs as they are now. */
    private void prepareInfo(RowSpec spec, long newId) {
        if (spec.infoFrom != null) {
            int from = mainSlot(spec.infoFrom);
            if (from >= 0) spec.infoPairsSection = notes.copyPairs(id[from], newId);
        }
        if (spec.createdWithInfo != null) {
            int i = mainSlot(spec.createdWithInfo);
            if (i >= 0 && (flags[i] & F_PREDEFINED) == 0) { // MPI_INFO_NULL says nothing
                spec.createdWithInfoId = id[i];
                spec.infoPairsSection = notes.pairSection(id[i]);
            }
        }
    }

    public void infoChanged(Object info, String key, String value, boolean set) {
        lock();
        try {
            int s = slotOrUntracked(info);
            if (s >= 0) replaceSide(s, SIDE_INFO_PAIRS, notes.infoChanged(id[s], key, value, set));
        } finally {
            unlock();
        }
    }

    /** {@code text} null: the attribute was deleted. */
    public void attributeChanged(Object holder, int keyval, String text) {
        lock();
        try {
            int s = slotOrUntracked(holder);
            if (s >= 0) replaceSide(s, SIDE_ATTRIBUTES, notes.attributeChanged(id[s], keyval, text));
        } finally {
            unlock();
        }
    }

    /** Under the lock: the wrapper's main slot, or -1 counted as an event the agent could not track. */
    private int slotOrUntracked(Object wrapper) {
        int s = mainSlot(wrapper);
        if (s < 0) untrackedEvents++;
        return s;
    }

    /** Replaces one section of a live row's side record (the old record stays in the pool until it is compacted). */
    private void replaceSide(int s, int tag, long[] values) {
        long[] record = SideRecord.replace(SidePool.copy(this, sideAt[s], sideLen[s]), tag, values);
        int at = record.length == 0 ? -1 : SidePool.store(this, record);
        beginWrite(s);
        sideAt[s] = at;
        sideLen[s] = record.length;
        if (record.length > 0) flags[s] |= F_HAS_SIDE;
        endWrite(s);
    }

    public void setName(Object wrapper, String newName) {
        lock();
        try {
            int s = mainSlot(wrapper);
            if (s < 0) return;
            int idx = interned.intern(newName);
            beginWrite(s);
            name[s] = idx;
            endWrite(s);
        } finally {
            unlock();
        }
    }

    public void committed(Object datatype) {
        lock();
        try {
            int s = mainSlot(datatype);
            if (s < 0) return;
            beginWrite(s);
            flags[s] |= F_COMMITTED;
            endWrite(s);
        } finally {
            unlock();
        }
    }

    /**
     * An MPI exception raised by a binding call on {@code handle} (a communicator, request or
     * window wrapper, or null). {@code key} is a request's native handle, 0 otherwise.
     * {@code replace}: the entry this exception was recorded in by a nested binding call, to be
     * overwritten with the outer (the application's) call, or -1. Returns the entry number.
     */
    public long recordError(long replace, int proc, String callName, Object handle, long key, int peer,
                            int errorClass, int errorCode, String causeClass, String message) {
        lock();
        try {
            long handleId = 0;
            int s = handle == null ? -1 : mainSlot(handle);
            if (s >= 0) {
                handleId = id[s];
            } else if (handle != null || key != 0) {
                handleId = requests.requestId(handle, key);
            }
            return ErrorRing.record(this, replace, proc, handleId, peer, errorClass, errorCode,
                    interned.intern(callName), interned.intern(causeClass), message);
        } finally {
            unlock();
        }
    }

    /** Never lets a failure inside the agent reach the application; the snapshot shows it. */
    public void internalError(String where, Throwable t) {
        lock();
        try {
            internalErrors++;
            lastError = where + ": " + t;
        } finally {
            unlock();
        }
    }

    /** Records that wrappers were garbage-collected; called by the reaper and on mutations. */
    public void reapForever() throws InterruptedException {
        while (true) {
            Reference<?> r = collected.remove(orphanWatch ? 100 : 0);
            lock();
            try {
                if (r != null) collectedWrapper((WrapperIndex.Entry) r);
                drainCollected();
                if (orphanWatch) sweepOrphans();
            } finally {
                unlock();
            }
        }
    }

    // ------------------------------------------------------------------ the lock

    /*
     * One lock guards every mutation, RequestRouting's too (it calls lock() and unlock()). A
     * monitor costs two atomic instructions per call (enter and exit); this lock costs one (the
     * exit is a release store), which matters on the request hot path, called twice per message.
     * Reentrant, because public operations call each other. Contended (MPJ multicore ranks share the registry) it spins briefly, then parks.
     * The lock word is an int taken by compare-and-set (Ordered: no VarHandle to link at
     * start-up); the owner is written by the thread that took it, so only that thread can read
     * itself there.
     */
    private final int[] lockWord = new int[1];
    private Thread lockOwner;
    private int lockDepth;

    void lock() {
        Thread me = Thread.currentThread();
        if (lockOwner == me) {
            lockDepth++;
            return;
        }
        for (int spins = 0; !Ordered.compareAndSet(lockWord, 0, 0, 1); spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else if (spins < 200) {
                Thread.yield();
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
        }
        lockOwner = me;
    }

    void unlock() {
        if (lockDepth > 0) {
            lockDepth--;
        } else {
            lockOwner = null;
            Ordered.setRelease(lockWord, 0, 0);
        }
    }

    // ------------------------------------------------------------------ internals

    void drainCollected() {
        Reference<?> r;
        while ((r = collected.poll()) != null) collectedWrapper((WrapperIndex.Entry) r);
    }

    private void collectedWrapper(WrapperIndex.Entry e) {
        wrappers.removeEntry(e);
        int s = e.slot;
        if (s >= 0 && (s & REQUEST_SLOT) != 0) {
            requests.wrapperCollected(s & ~REQUEST_SLOT, e.id);
            return;
        }
        if (s < 0 || s >= highWater || id[s] == 0 || id[s] != e.id) return; // the slot holds another handle now
        // the wrapper is gone but the handle was never freed: MPI still holds the object
        // a completed request's wrapper was cleared from the index and is never enqueued; a freed
        // handle's wrapper stays until collected, and its id tells whether the slot is still its own
        if (state[s] == Lifecycle.ACTIVE.code() && (flags[s] & F_PREDEFINED) == 0) {
            beginWrite(s);
            flags[s] |= F_LEAKED;
            endWrite(s);
        }
    }

    private int holdSlot(Object wrapper) {
        if (wrapper == null) return -1;
        int s = mainSlot(wrapper);
        if (s >= 0) addRef(s);
        return s;
    }

    /** One int written: a reader sees the old or the new count, so no seqlock bracket. */
    private void addRef(int s) {
        refCount[s]++;
    }

    /** Drops the counted reference held in ref slot {@code which} (0 or 1) of row s. */
    private void dropRef(int s, int which) {
        int t = which == 0 ? ref0Slot[s] : ref1Slot[s];
        if (which == 0) ref0Slot[s] = -1; else ref1Slot[s] = -1;
        if (t >= 0) unref(t);
    }

    private void unref(int t) {
        refCount[t]--;
        if (refCount[t] <= 0 && state[t] == Lifecycle.FREED.code() && !releaseIfUnheld(t) && refCount[t] == 0) watchOrphans();
    }

    private void release(int s) {
        HistoryRing.record(this, id[s], kind[s], owner[s], name[s], call[s],
                SidePool.firstStackString(this, sideAt[s], sideLen[s]), flags[s]);
        int a = ref0Slot[s], b = ref1Slot[s];
        int[] parents = parentSlots[s];
        ref0Slot[s] = -1;
        ref1Slot[s] = -1;
        parentSlots[s] = null;
        if (state[s] == FREED) requests.freedCount--;
        notes.released(id[s]);
        beginWrite(s);
        id[s] = 0;
        state[s] = Lifecycle.RELEASED.code();
        sideAt[s] = -1;
        sideLen[s] = 0;
        endWrite(s);
        freeSlots[freeCount++] = s;
        if (a >= 0) unref(a);
        if (b >= 0) unref(b);
        if (parents != null) for (int p : parents) unref(p);
    }

    private void beginWrite(int s) {
        SlotStamps.begin(stamp, s);
    }

    private void endWrite(int s) {
        SlotStamps.end(stamp, s);
    }

    private int takeSlot() {
        if (freeCount > 0) return freeSlots[--freeCount];
        if (highWater == id.length) grow();
        return highWater++;
    }

    private void grow() {
        generation++; // odd: readers retry
        allocate(id.length * 2);
        freeSlots = Arrays.copyOf(freeSlots, id.length);
        requests.mainIds = id;
        generation++;
    }

    private void allocate(int capacity) {
        stamp = stamp == null ? new int[capacity] : Arrays.copyOf(stamp, capacity);
        id = id == null ? new long[capacity] : Arrays.copyOf(id, capacity);
        kind = kind == null ? new byte[capacity] : Arrays.copyOf(kind, capacity);
        state = state == null ? new byte[capacity] : Arrays.copyOf(state, capacity);
        flags = flags == null ? new int[capacity] : Arrays.copyOf(flags, capacity);
        owner = owner == null ? new int[capacity] : Arrays.copyOf(owner, capacity);
        refCount = refCount == null ? new int[capacity] : Arrays.copyOf(refCount, capacity);
        cHandle = cHandle == null ? new long[capacity] : Arrays.copyOf(cHandle, capacity);
        i0 = i0 == null ? new int[capacity] : Arrays.copyOf(i0, capacity);
        i1 = i1 == null ? new int[capacity] : Arrays.copyOf(i1, capacity);
        i2 = i2 == null ? new int[capacity] : Arrays.copyOf(i2, capacity);
        l0 = l0 == null ? new long[capacity] : Arrays.copyOf(l0, capacity);
        l1 = l1 == null ? new long[capacity] : Arrays.copyOf(l1, capacity);
        l2 = l2 == null ? new long[capacity] : Arrays.copyOf(l2, capacity);
        r0 = r0 == null ? new long[capacity] : Arrays.copyOf(r0, capacity);
        r1 = r1 == null ? new long[capacity] : Arrays.copyOf(r1, capacity);
        r2 = r2 == null ? new long[capacity] : Arrays.copyOf(r2, capacity);
        name = name == null ? new int[capacity] : Arrays.copyOf(name, capacity);
        call = call == null ? new int[capacity] : Arrays.copyOf(call, capacity);
        cls = cls == null ? new int[capacity] : Arrays.copyOf(cls, capacity);
        int previous = sideAt == null ? 0 : sideAt.length;
        sideAt = sideAt == null ? new int[capacity] : Arrays.copyOf(sideAt, capacity);
        Arrays.fill(sideAt, previous, capacity, -1);
        sideLen = sideLen == null ? new int[capacity] : Arrays.copyOf(sideLen, capacity);
        ref0Slot = ref0Slot == null ? new int[capacity] : Arrays.copyOf(ref0Slot, capacity);
        ref1Slot = ref1Slot == null ? new int[capacity] : Arrays.copyOf(ref1Slot, capacity);
        parentSlots = parentSlots == null ? new int[capacity][] : Arrays.copyOf(parentSlots, capacity);
    }

    /**
     * A thread left a blocking MPI call: the progress signal {@code calls --confirm} compares
     * between two looks. A plain increment: a lost update between threads does not matter, the
     * count only has to move.
     */
    public void blockingCallReturned() {
        blockingReturns[BLOCKING_AT]++;
    }

    /** Whether this JVM holds at most one MPI process (a plain read: a stale answer only counts globally). */
    public boolean oneProcess() {
        return procCount <= 1;
    }

    /** The same, counted for MPI process {@code proc} of a JVM of several (MPJ Express multicore). */
    public void blockingCallReturned(int proc) {
        long[] counts = blockingReturnsByProc;
        int at = proc * BLOCKING_RETURNS_STRIDE;
        if (proc >= 0 && at < counts.length) counts[at]++;
        else blockingReturns[BLOCKING_AT]++;
    }
}
