package io.mpilens.api.registry;

/**
 * The registry contract, version {@value #VERSION}: the names and encodings shared by the
 * agent that writes the registry and the decoder that reads it. Documented field by field
 * in {@code docs/architecture.md}.
 *
 * <p>One object per JVM, reachable from the static field {@value #ROOT_FIELD} of class
 * {@value #ROOT_CLASS}. Per-handle scalars are columns (primitive arrays indexed by slot);
 * variable-size data are records in one pool, {@link #SIDE_POOL}, read in one bulk read and
 * sliced for rows that have {@link #F_HAS_SIDE}. Strings are interned in {@link #STRINGS} and referenced by index.
 * Requests live in request tables ({@link #REQ_TABLE_COUNT}): one shared, one per thread that
 * creates requests, each written by one thread at a time.
 *
 * <p>Version 2 (version 1 had one request table in the root and counted pending requests in
 * {@link #REF_COUNT}): request tables; a pending request's hold on its communicator is no longer
 * in {@code refCount} but derived from the request rows.
 *
 * <p>Version 3: the wrapper index ({@link #WRAPPERS}) is part of the contract, so a debugger or a
 * heap-dump reader maps an application's wrapper object to its handle id; a freed handle's
 * wrapper stays in it while the handle is an orphan.
 *
 * <p>Version 4: filling a request row no longer moves its table's write counter
 * ({@link #REQ_COUNT_WRITES}), so a reader proves a row consistent by its id alone (read
 * before and after the fields); a version-3 reader would trust an unchanged counter. Wrappers
 * may carry their handle's id in a field of their own ({@link #WRAPPER_ID_FIELD}).
 */
public final class RegistryLayout {
    private RegistryLayout() {
    }

    public static final int MAGIC = 0x4D50494C; // "MPIL"
    public static final int VERSION = 4;

    public static final String ROOT_CLASS = "io.mpilens.agent.registry.HandleRegistry";
    public static final String ROOT_FIELD = "INSTANCE";

    // ---- root scalars
    public static final String MAGIC_FIELD = "magic";
    public static final String VERSION_FIELD = "layoutVersion";
    /** Odd while the columns are being replaced by larger ones; readers retry. */
    public static final String GENERATION = "generation";
    /** Slots [0, highWater) have been used at least once. */
    public static final String HIGH_WATER = "highWater";
    public static final String AGENT_VERSION = "agentVersion";
    public static final String BINDING = "binding";
    public static final String PID = "pid";
    public static final String HOST = "host";
    public static final String INTERNAL_ERRORS = "internalErrors";
    public static final String LAST_ERROR = "lastError";
    public static final String UNTRACKED_EVENTS = "untrackedEvents";
    /**
     * boolean: true when the agent was told not to track requests (agent option
     * {@code requests=false}); then the request tables stay empty whatever the application does.
     * Absent (older agents) means false.
     */
    public static final String REQUESTS_OFF = "requestsOff";
    /**
     * Requests in their wrappers (additive; absent or null in older agents means none): an object
     * whose fields ({@code REQUEST_RING_*}, {@code REQUEST_OVERFLOW*}) are the request ring. Every
     * request the binding makes but persistent ones is written into it when created (slot = its
     * creation sequence modulo the number of slots) and marked done when the application completes
     * or frees it; the wrapper carries only its sequence ({@link #REQUEST_SEQ_FIELD}). A request
     * still pending when its slot is needed again moves to the overflow. Null: every request is in
     * the request tables.
     */
    public static final String REQUEST_RING = "requestRing";
    /**
     * long[]: {@link #RING_STRIDE} longs per slot: the creation sequence of the request in it
     * (> 0; 0: empty or being moved to the overflow), the sequence of the last request in the slot
     * that completed (equal to the first: done), peer (high 32 bits) and tag (low 32 bits) of the
     * creating call, and the holder's registry id (the communicator, window or file it was created
     * on; 0: none or not registered) in the low {@link #RING_CALL_SHIFT} bits with the creating
     * call's index + 1 in {@link #REQUEST_RING_CALLS} above them (0: not recorded).
     */
    public static final String REQUEST_RING_SLOTS = "slots";
    public static final int RING_STRIDE = 4;
    public static final int RING_CALL_SHIFT = 48;
    public static final long RING_HOLDER_MASK = (1L << RING_CALL_SHIFT) - 1;
    /** String[]: the creating calls' names by index (null: unused). */
    public static final String REQUEST_RING_CALLS = "calls";
    /**
     * The overflow: pending requests moved out of the ring, {@code overflowCount} of them in the
     * {@code long[] overflow}, slot by slot as in {@link #REQUEST_RING_SLOTS}; {@code overflowStamp}
     * is odd while they change (a reader reads again when it changed meanwhile).
     * {@code overflowLost}: requests that found the overflow full (not shown).
     */
    public static final String REQUEST_OVERFLOW = "overflow";
    public static final String REQUEST_OVERFLOW_STAMP = "overflowStamp";
    public static final String REQUEST_OVERFLOW_COUNT = "overflowCount";
    public static final String REQUEST_OVERFLOW_LOST = "overflowLost";
    /**
     * long[]: how many times the application's threads returned (or threw) from a blocking MPI
     * call (blocking send/receive, collective, wait on one request) is the sum of its elements.
     * A progress signal: a rank whose sum did not move between two looks has left none of them.
     * The agent writes one element in the middle, so the counter has a cache line of its own.
     * Absent (older agents): unknown.
     */
    public static final String BLOCKING_RETURNS = "blockingReturns";
    /**
     * long[]: the same count per MPI process of a JVM that holds several (MPJ Express multicore),
     * process {@code p}'s at index {@code p * 8} (a cache line each); a process's count is this
     * element plus the sum of {@link #BLOCKING_RETURNS} (returns the agent could not place). A JVM
     * of one process counts in {@link #BLOCKING_RETURNS} only. Absent (older agents): every process
     * of the JVM has the JVM's count.
     */
    public static final String BLOCKING_RETURNS_BY_PROC = "blockingReturnsByProc";
    /** Elements of {@link #BLOCKING_RETURNS_BY_PROC} per process: process p's count is at {@code p * 8}. */
    public static final int BLOCKING_RETURNS_STRIDE = 8;

    // ---- MPI processes in this JVM (one per rank; several under MPJ Express multicore)
    public static final String PROC_COUNT = "procCount";
    /** int[]: COMM_WORLD rank of process p. */
    public static final String PROC_RANK = "procRank";
    /** int[]: COMM_WORLD size seen by process p. */
    public static final String PROC_SIZE = "procSize";
    /** byte[]: {@link io.mpilens.api.model.MpiState} code of process p. */
    public static final String PROC_STATE = "procState";

    // ---- handle columns, all indexed by slot
    /** int[]: seqlock stamp; odd while the row is being written, bumped on every change. */
    public static final String STAMP = "stamp";
    /** long[]: handle id; 0 marks an empty slot. */
    public static final String ID = "id";
    /** byte[]: {@link io.mpilens.api.model.HandleKind} code. */
    public static final String KIND = "kind";
    /** byte[]: {@link io.mpilens.api.model.Lifecycle} code. */
    public static final String STATE = "state";
    /** int[]: F_* flags. */
    public static final String FLAGS = "flags";
    /** int[]: index into the process table of the owning rank, -1 before MPI init. */
    public static final String OWNER = "owner";
    /**
     * int[]: number of live holders other than requests; each pending request (not
     * {@link #F_COMPLETE}) in a request table adds one for the handle in its {@link #REQ_COMM}.
     */
    public static final String REF_COUNT = "refCount";
    public static final String C_HANDLE = "cHandle";
    /** int[] x4: kind-specific integers, see I0..I3 meaning per kind below. */
    public static final String I0 = "i0";
    public static final String I1 = "i1";
    public static final String I2 = "i2";
    /** long[] x3: kind-specific longs. */
    public static final String L0 = "l0";
    public static final String L1 = "l1";
    public static final String L2 = "l2";
    /** long[] x3: ids of referenced handles (0 = none). */
    public static final String R0 = "r0";
    public static final String R1 = "r1";
    public static final String R2 = "r2";
    /** int[]: string index of the MPI name (-1 none). */
    public static final String NAME = "name";
    /** int[]: string index of the creating call. */
    public static final String CALL = "call";
    /** int[]: string index of the wrapper's class name. */
    public static final String CLASS = "cls";
    /** int[]: offset of the slot's side record in {@link #SIDE_POOL}, -1 when it has none. */
    public static final String SIDE_AT = "sideAt";
    /** int[]: length of the slot's side record. */
    public static final String SIDE_LEN = "sideLen";
    /** long[]: all side records; [0, sidePoolUsed) is valid. Compacting it bumps the generation. */
    public static final String SIDE_POOL = "sidePool";
    public static final String SIDE_POOL_USED = "sidePoolUsed";
    /** String[]: interned strings; [0, stringCount) are valid and never change. */
    public static final String STRINGS = "strings";
    public static final String STRING_COUNT = "stringCount";

    // ---- requests: packed request tables, so the request hot path touches one or two cache lines
    /*
     * Table 0 is shared (written under the agent's lock); each further table belongs to one
     * thread, which writes it without a lock. A table's arrays hang from the root in arrays of
     * arrays indexed by table, [0, reqTableCount) valid, so a reader (or a heap-dump prefetch)
     * reaches them two steps from the root. Growing these outer arrays bumps the generation.
     */
    public static final String REQ_TABLE_COUNT = "reqTableCount";
    /**
     * long[][]: per table, {@link #REQ_COUNTERS_LENGTH} scalars at the REQ_COUNT_* indexes. Never replaced.
     */
    public static final String REQ_COUNTERS = "reqCounters";
    /** Rows [0, high water) have been used at least once. */
    public static final int REQ_COUNT_HIGH_WATER = 0;
    /**
     * Odd while the table's arrays are replaced (growth). Rows are not covered by it (version 4):
     * a row is consistent when its id, read before and after its fields, did not change.
     */
    public static final int REQ_COUNT_WRITES = 1;
    /** Rows completed by another thread than the owner and not yet released by it (see {@link #DONE_IDS}). */
    public static final int REQ_COUNT_DONE = 2;
    public static final int REQ_COUNTERS_LENGTH = 3;
    /**
     * long[][]: per table, the request id of each row, 0 when the row is empty. A row is filled
     * while its id is 0 and published by storing the id last; ids are never reused, so an id
     * unchanged across a read of the row's fields proves them consistent (the ids are the rows'
     * seqlock stamps).
     */
    public static final String REQ_IDS = "reqIds";
    /** long[][]: per table, REQ_STRIDE longs per row, fields at the REQ_* offsets. */
    public static final String REQS = "reqRows";
    /** int[][] x2, elements null when unused: side record (creation stack) of a row in {@link #SIDE_POOL}, -1 if none. */
    public static final String REQ_SIDE_AT = "reqSideAts";
    public static final String REQ_SIDE_LEN = "reqSideLens";
    /**
     * long[][]: per table, a row completed by another thread than the table's owner, not yet
     * released by the owner, has {@code doneIds[t][r] == reqIds[t][r]}: it is complete (gone).
     * Only meaningful while the table's {@link #REQ_COUNT_DONE} is not 0.
     */
    public static final String DONE_IDS = "doneIds";
    public static final int REQ_STRIDE = 4;
    /** Native handle (the binding's request pointer), 0 if none. */
    public static final int REQ_KEY = 0;
    /** peer in the high 32 bits, tag in the low 32 bits (Integer.MIN_VALUE: not known). */
    public static final int REQ_PEER_TAG = 1;
    /** Id of the communicator (window, file) it was created on, 0 if none. */
    public static final int REQ_COMM = 2;
    /** flags (bits 0-15), creating call (16-31), class name (32-47) string indexes, owner process (48-63). */
    public static final int REQ_META = 3;
    private static final int NONE16 = 0xFFFF;

    public static long requestMeta(int flags, int callIndex, int classIndex, int owner) {
        return (flags & 0xFFFFL) | ((long) field16(callIndex) << 16) | ((long) field16(classIndex) << 32)
                | ((long) field16(owner) << 48);
    }

    public static int requestFlags(long meta) {
        return (int) (meta & 0xFFFF);
    }

    public static int requestCall(long meta) {
        return unfield16((int) (meta >>> 16) & 0xFFFF);
    }

    public static int requestClass(long meta) {
        return unfield16((int) (meta >>> 32) & 0xFFFF);
    }

    public static int requestOwner(long meta) {
        return unfield16((int) (meta >>> 48) & 0xFFFF);
    }

    /** Indexes that do not fit (or are -1) are stored as "none". */
    private static int field16(int v) {
        return v < 0 || v >= NONE16 ? NONE16 : v;
    }

    private static int unfield16(int v) {
        return v == NONE16 ? -1 : v;
    }

    // ---- wrapper index: the application's wrapper objects -> handle ids, without retaining them
    /*
     * Root field WRAPPERS holds an object whose field WRAPPER_TABLE is an array of entries
     * (open addressing by identity hash; null and cleared entries are free). An entry is a
     * java.lang.ref.WeakReference: its field WRAPPER_REFERENT (Reference's own field) is the
     * wrapper, null once collected; WRAPPER_ID (long) is the handle's registry id, of a main-table
     * row or of a request-table row. Read with field and array reads only (the table in chunks of
     * at most TargetReader.MAX_OBJECT_ARRAY_CHUNK, then one read per entry). Which wrappers are in it:
     * every handle created with a wrapper (communicators, groups, datatypes, windows, ...), from
     * creation while the wrapper lives, freed ones included; requests tracked by wrapper (MPJ
     * Express) until they complete. Not in it: requests with a native handle (Open MPI), found by
     * their native handle. An entry may outlive its handle (freed, then released, wrapper not yet
     * collected): its id then names no live row. The table is replaced when it grows; an entry's
     * id changes only when the same wrapper is registered again (stored 0 first).
     */
    public static final String WRAPPERS = "wrappers";
    public static final String WRAPPER_TABLE = "table";
    public static final String WRAPPER_REFERENT = "referent";
    public static final String WRAPPER_ID = "id";
    /**
     * long, on the application's wrapper objects themselves (layout 4, optional): the agent adds
     * this private transient field to the root class of each non-request handle hierarchy of the
     * binding when it is loaded after the agent (-javaagent), and stores the handle's registry
     * id there when it registers the wrapper. A debugger that holds a wrapper reads its id with
     * one field read instead of the whole wrapper index. A binding without native request
     * handles (MPJ Express) has it on its request classes too: their rows are keyed by that id
     * ({@link #F_KEY_IS_ID}) and are not in the wrapper index. Absent after a late attach (a
     * loaded class cannot get a field) and on Open MPI's request wrappers: then the wrapper index
     * answers (Open MPI requests by their native handle). 0: not registered (yet). Like an index
     * entry it may outlive its handle.
     */
    public static final String WRAPPER_ID_FIELD = "mpilens$id";
    /**
     * int (a long before 2026-11-28; readers take both), the one field the agent adds to the
     * binding's request class when requests live in their wrappers: the request's creation
     * sequence number, per JVM (its slot in {@link #REQUEST_RING}), 1 .. 2^31 - 1, then from 1 again.
     */
    public static final String REQUEST_SEQ_FIELD = "mpilens$seq";

    // ---- history ring of released handles
    /** long: number of releases ever recorded; entry i lives at i % capacity. */
    public static final String HIST_COUNT = "histCount";
    public static final String HIST_STAMP = "hStamp";
    public static final String HIST_ID = "hId";
    public static final String HIST_KIND = "hKind";
    public static final String HIST_OWNER = "hOwner";
    public static final String HIST_NAME = "hName";
    public static final String HIST_CALL = "hCall";
    public static final String HIST_SITE = "hSite";
    public static final String HIST_FLAGS = "hFlags";

    // ---- ring of MPI exceptions raised by binding calls (added in layout 1, absent in older agents)
    /** long: number of exceptions ever recorded; entry i lives at i % capacity. */
    public static final String ERR_COUNT = "errCount";
    /** int[]: seqlock stamp per entry. */
    public static final String ERR_STAMP = "errStamp";
    /** long[]: System.nanoTime() when the call threw. */
    public static final String ERR_TIME = "errTime";
    /** int[]: index into the process table of the rank whose call threw, -1 if unknown. */
    public static final String ERR_OWNER = "errOwner";
    /** long[]: id of the handle the call was on (communicator, request, window), 0 if unknown. */
    public static final String ERR_HANDLE = "errHandle";
    /** int[]: peer rank of a point-to-point call, Integer.MIN_VALUE if none or unknown. */
    public static final String ERR_PEER = "errPeer";
    /** int[]: MPI error class and error code when the exception carries them, Integer.MIN_VALUE otherwise. */
    public static final String ERR_CLASS = "errClass";
    public static final String ERR_CODE = "errCode";
    /** int[]: string indexes of the binding call and of the root cause's class name. */
    public static final String ERR_CALL = "errCall";
    public static final String ERR_CAUSE = "errCause";
    /** String[]: the root cause's message, truncated; kept here, not interned, so the ring stays bounded. */
    public static final String ERR_MESSAGE = "errMessage";

    // ---- flags
    public static final int F_PREDEFINED = 1;
    public static final int F_LEAKED = 1 << 1;
    public static final int F_PERSISTENT = 1 << 2;
    public static final int F_COMPLETE = 1 << 3;
    public static final int F_INTER = 1 << 4;
    public static final int F_COMMITTED = 1 << 5;
    public static final int F_HAS_CHANDLE = 1 << 6;
    public static final int F_HAS_SIDE = 1 << 7;
    public static final int F_TOPO_CART = 1 << 8;
    public static final int F_TOPO_GRAPH = 1 << 9;
    public static final int F_TOPO_DIST_GRAPH = 1 << 10;
    /**
     * Request rows: the binding has no native request handle (MPJ Express), so the row's key is
     * the request's own id, which the wrapper also carries in {@link #WRAPPER_ID_FIELD}. Not a
     * cHandle; never set together with {@link #F_HAS_CHANDLE}.
     */
    public static final int F_KEY_IS_ID = 1 << 11;

    // ---- side record: repeated [tag, n, v1..vn] in one long[]
    public static final int SIDE_MEMBERS = 1;
    public static final int SIDE_REMOTE_MEMBERS = 2;
    public static final int SIDE_DIMS = 3;
    /** 0/1 per dimension. */
    public static final int SIDE_PERIODS = 4;
    public static final int SIDE_GRAPH_INDEX = 5;
    public static final int SIDE_GRAPH_EDGES = 6;
    /** Ids of parent datatypes. */
    public static final int SIDE_PARENTS = 7;
    /** String indexes of the creation stack, top user frame first. */
    public static final int SIDE_STACK = 8;
    /**
     * A distributed graph's neighbours on this rank (sources: in, destinations: out), present
     * (possibly empty) when known; absent when the agent could not learn them safely. Additive:
     * layout version unchanged.
     */
    public static final int SIDE_DIST_SOURCES = 9;
    public static final int SIDE_DIST_DESTINATIONS = 10;
    /**
     * A derived datatype's constructor arguments as the application passed them, in order: for
     * each argument {@code [TYPE_ARG_*, n, v1..vn]} (a datatype as its registry id, 0 when not
     * registered). An array longer than {@link #TYPE_ARG_MAX_VALUES} is
     * {@code [TYPE_ARG_INTS_CUT, n+1, fullLength, v1..vn]}. Additive: layout version unchanged.
     */
    public static final int SIDE_TYPE_ARGS = 11;
    public static final int TYPE_ARG_OTHER = 0;
    public static final int TYPE_ARG_INT = 1;
    public static final int TYPE_ARG_INTS = 2;
    public static final int TYPE_ARG_TYPE = 3;
    public static final int TYPE_ARG_TYPES = 4;
    public static final int TYPE_ARG_INTS_CUT = 5;
    public static final int TYPE_ARG_TYPES_CUT = 6;
    public static final int TYPE_ARG_LONG = 7;
    /** Values kept of one array argument (block lengths, displacements, types). */
    public static final int TYPE_ARG_MAX_VALUES = 1024;
    /**
     * Key/value pairs, as string indexes {@code k1, v1, k2, v2, ...}: an info's current pairs
     * (kept current through set/delete, copied by dup), or on a window, file or communicator the
     * pairs of the info it was created with, as they were then. Additive: layout version unchanged.
     */
    public static final int SIDE_INFO_PAIRS = 12;
    /** On a window, file or communicator created with an info: {@code [info id]}. */
    public static final int SIDE_CREATED_WITH_INFO = 13;
    /** A file: {@code [name string, access mode, access mode flags string]} (the flags as {@code MODE_A|MODE_B}). */
    public static final int SIDE_FILE = 14;
    /** Attributes the application cached on a handle: {@code [keyval, value string, ...]}. */
    public static final int SIDE_ATTRIBUTES = 15;
    /** Pairs kept per info (and attributes per handle); characters kept per key, value or attribute text. */
    public static final int INFO_MAX_PAIRS = 64;
    public static final int INFO_MAX_CHARS = 256;

    /*
     * Kind-specific columns:
     *   COMMUNICATOR  i0 rank, i1 size, i2 remote size; r0 errhandler, r1 group built on, r2 derived from
     *   GROUP         i0 rank, i1 size; r2 derived from
     *   REQUEST       i0 peer, i1 tag; r0 communicator (or window, file)
     *   DATATYPE      l0 size, l1 extent, l2 lower bound
     *   WINDOW        i0 displacement unit; l0 size in bytes; r0 communicator, r1 errhandler
     *   FILE          r0 communicator, r1 errhandler
     * Counted references (they keep the target alive): REQUEST r0 while not complete,
     * COMMUNICATOR r0 and r1, WINDOW/FILE r0 and r1, DATATYPE side parents. r2 is lineage only.
     */
}
