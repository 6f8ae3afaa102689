package io.mpilens.api.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.Topology;
import io.mpilens.api.target.HeapInstances;
import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.api.target.TargetReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns the registry in a target's heap into {@link ProcessSnapshot}s, reading only fields and
 * arrays through a {@link TargetReader}. The same code runs live (JDI), post-mortem (heap dump)
 * and in tests. Cost: a fixed number of bulk reads (one per column, one or two per request
 * table) plus one per string not seen before. A request table that did not change while it was
 * read costs one read of its packed rows only; its row stamps are read (twice) only when it did.
 *
 * <p>Why this file is long: one consistent read of the root's columns, request tables and side pool
 * (a torn or grown registry is detected across all of them, so they are read in one place), and
 * the assembly of the model from what was read; side records and requests in wrappers are read
 * by {@link SideRecords} and {@link WrappedRequests}.
 */
public final class RegistryDecoder {
    private static final List<String> ROOT_FIELDS = List.of(MAGIC_FIELD, VERSION_FIELD, GENERATION, HIGH_WATER,
            AGENT_VERSION, BINDING, PID, HOST, INTERNAL_ERRORS, LAST_ERROR, UNTRACKED_EVENTS, REQUESTS_OFF, BLOCKING_RETURNS, BLOCKING_RETURNS_BY_PROC, PROC_COUNT, PROC_RANK,
            PROC_SIZE, PROC_STATE, STAMP, ID, KIND, STATE, FLAGS, OWNER, REF_COUNT, C_HANDLE, I0, I1, I2, L0, L1,
            L2, R0, R1, R2, NAME, CALL, CLASS, SIDE_AT, SIDE_LEN, SIDE_POOL, SIDE_POOL_USED, STRINGS, STRING_COUNT,
            REQUEST_RING, REQ_TABLE_COUNT, REQ_COUNTERS, REQ_IDS, REQS, REQ_SIDE_AT, REQ_SIDE_LEN, DONE_IDS, HIST_COUNT, HIST_STAMP, HIST_ID,
            HIST_KIND, HIST_OWNER, HIST_NAME, HIST_CALL, HIST_SITE, HIST_FLAGS, ERR_COUNT, ERR_STAMP, ERR_TIME,
            ERR_OWNER, ERR_HANDLE, ERR_PEER, ERR_CLASS, ERR_CODE, ERR_CALL, ERR_CAUSE, ERR_MESSAGE);
    private static final int MAX_ATTEMPTS = 5;
    private static final long[] NO_IDS = new long[0];

    private final TargetReader reader;
    /** Interned strings never change once published, so they are cached across snapshots. */
    private final Map<Integer, String> stringCache = new HashMap<>();

    public RegistryDecoder(TargetReader reader) {
        this.reader = reader;
    }

    /** One snapshot per MPI process in the target JVM (several under MPJ Express multicore). */
    public List<ProcessSnapshot> decode() {
        TargetObject root = findRoot();
        for (int attempt = 1; ; attempt++) {
            boolean last = attempt == MAX_ATTEMPTS;
            Map<String, Object> f = reader.fields(root, ROOT_FIELDS);
            checkLayout(f);
            int generation = asInt(f.get(GENERATION));
            if ((generation & 1) != 0 && !last) continue; // columns being replaced right now
            Columns c = readColumns(f);
            // the string table read after the rows: a row published meanwhile may name a string
            // interned after the first read (strings are only appended, before the rows naming them)
            Map<String, Object> g = reader.fields(root, List.of(GENERATION, STRINGS, STRING_COUNT));
            int after = asInt(g.get(GENERATION));
            if (c != null && (after == generation || last)) {
                Map<String, Object> now = new HashMap<>(f);
                now.put(STRINGS, g.get(STRINGS));
                now.put(STRING_COUNT, g.get(STRING_COUNT));
                return assemble(now, c);
            }
            if (last) {
                throw new TargetReadException("the mpilens registry in " + reader.describe()
                        + " kept growing while being read; try again with the target suspended");
            }
        }
    }

    /**
     * The wrappers the agent's wrapper index still holds ({@link RegistryLayout#WRAPPERS}), each
     * with the id of its handle: the identity of a binding object the application holds, mapped
     * without any code running in the target. Keys are this reader's objects (equal when they
     * are the same target object); a wrapper not in the map is unknown to the registry (an Open
     * MPI request, found by its native handle instead, or a handle created before the agent
     * came). An id may name a handle released meanwhile (look in the snapshot's history). Cost:
     * one read of the table per {@link TargetReader#MAX_OBJECT_ARRAY_CHUNK} entries and one
     * field read per entry in use.
     */
    public Map<TargetObject, Long> wrapperIds() {
        TargetObject root = findRoot();
        Map<String, Object> f = reader.fields(root, List.of(MAGIC_FIELD, VERSION_FIELD, WRAPPERS));
        checkLayout(f);
        Map<TargetObject, Long> out = new HashMap<>();
        TargetObject index = (TargetObject) f.get(WRAPPERS);
        if (index == null) return out;
        TargetObject table = (TargetObject) reader.fields(index, List.of(WRAPPER_TABLE)).get(WRAPPER_TABLE);
        if (table == null) return out;
        int length = reader.arrayLength(table);
        List<String> entryFields = List.of(WRAPPER_REFERENT, WRAPPER_ID);
        for (int from = 0; from < length; from += TargetReader.MAX_OBJECT_ARRAY_CHUNK) {
            List<TargetObject> entries = new ArrayList<>();
            for (TargetObject entry : reader.objects(table, from, Math.min(TargetReader.MAX_OBJECT_ARRAY_CHUNK, length - from))) {
                if (entry != null) entries.add(entry);
            }
            // one read per entry: the reader may overlap them (JDWP round trips)
            for (Map<String, Object> e : reader.fieldsOfEach(entries, entryFields)) {
                long id = asLong(e.get(WRAPPER_ID));
                if (e.get(WRAPPER_REFERENT) instanceof TargetObject && id != 0) {
                    out.put((TargetObject) e.get(WRAPPER_REFERENT), id);
                }
            }
        }
        return out;
    }

    /**
     * The handle id a wrapper carries in its own {@link RegistryLayout#WRAPPER_ID_FIELD}: one field
     * read (a request in its wrapper: its {@link RegistryLayout#REQUEST_SEQ_FIELD} names its id).
     * Returns the id; 0 when the wrapper has the field but was never registered; -1 when its
     * class has no such field (a late-attached agent, a request in a table, no agent): then only the
     * wrapper index ({@link #wrapperIds()}) knows. {@link WrapperLookup} does both.
     */
    public long wrapperIdField(TargetObject wrapper) {
        Map<String, Object> f = reader.fields(wrapper, WRAPPER_ID_FIELDS);
        Object v = f.get(WRAPPER_ID_FIELD);
        Object seq = f.get(REQUEST_SEQ_FIELD);
        if (v instanceof Long && (Long) v > 0) return (Long) v;
        // a request in its wrapper: its id is its creation sequence's (rare duplicates aside); a
        // binding without native request handles (MPJ Express) also has the id field, which only
        // its persistent requests, kept in the tables, fill
        // (an int since the agent of 2026-11-28, a long before it)
        if ((seq instanceof Integer || seq instanceof Long) && ((Number) seq).longValue() > 0) {
            return ringRequestId(((Number) seq).longValue());
        }
        return v instanceof Long || seq instanceof Integer || seq instanceof Long ? 0 : -1;
    }

    private static final List<String> WRAPPER_ID_FIELDS = List.of(WRAPPER_ID_FIELD, REQUEST_SEQ_FIELD);

    private TargetObject findRoot() {
        List<TargetClass> classes = reader.classesNamed(ROOT_CLASS);
        for (TargetClass c : classes) {
            Object v = reader.staticField(c, ROOT_FIELD);
            if (v instanceof TargetObject) {
                return (TargetObject) v;
            }
        }
        throw new RegistryNotFoundException("no mpilens registry in " + reader.describe()
                + ": the mpilens agent is not loaded there (start the JVM with -javaagent:mpilens-agent.jar"
                + " or attach it with 'java -jar mpilens-agent.jar attach PID')");
    }

    private void checkLayout(Map<String, Object> f) {
        Object magic = f.get(MAGIC_FIELD);
        if (!(magic instanceof Integer) || (Integer) magic != MAGIC) {
            throw new UnsupportedLayoutException(-1, "the object at " + ROOT_CLASS + "." + ROOT_FIELD + " in "
                    + reader.describe() + " is not an mpilens registry (bad magic " + magic + ")");
        }
        Object version = f.get(VERSION_FIELD);
        int v = version instanceof Integer ? (Integer) version : -1;
        if (v != VERSION) {
            throw new UnsupportedLayoutException(v, "the mpilens registry in " + reader.describe()
                    + " has layout version " + v + ", this mpilens reads layout version " + VERSION
                    + "; use an mpilens release that matches the agent in the target");
        }
    }

    /** The columns as read; null when the registry grew between reading the root and the arrays. */
    private static final class Columns {
        int rows;
        int[] stamp, flags, owner, refCount, i0, i1, i2, name, call, cls, sideAt, sideLen;
        long[] sidePool;
        long[] id, cHandle, l0, l1, l2, r0, r1, r2;
        byte[] kind, state;
        int[] stampAfter;
        final List<RequestRows> tables = new ArrayList<>();
    }

    /** One request table as read: which rows are consistent, and their packed fields. */
    private static final class RequestRows {
        int rows;
        long[] ids = new long[0];
        long[] reqs = new long[0];
        /** Null: every row is consistent (the table did not change while it was read). */
        boolean[] stable;
        /** Null: no row was completed by another thread than the table's owner. */
        boolean[] done;
        int[] sideAt, sideLen;

        boolean usable(int r) {
            return (stable == null || stable[r]) && ids[r] != 0 && (done == null || !done[r]);
        }

        boolean torn(int r) {
            return stable != null && !stable[r];
        }
    }

    private Columns readColumns(Map<String, Object> f) {
        int highWater = asInt(f.get(HIGH_WATER));
        TargetObject stampArray = (TargetObject) f.get(STAMP);
        if (stampArray == null) return null;
        int rows = Math.min(highWater, reader.arrayLength(stampArray));
        Columns c = new Columns();
        c.rows = rows;
        c.stamp = reader.ints(stampArray, 0, rows);
        c.id = longs(f, ID, rows);
        c.kind = bytes(f, KIND, rows);
        c.state = bytes(f, STATE, rows);
        c.flags = ints(f, FLAGS, rows);
        c.owner = ints(f, OWNER, rows);
        c.refCount = ints(f, REF_COUNT, rows);
        c.cHandle = longs(f, C_HANDLE, rows);
        c.i0 = ints(f, I0, rows);
        c.i1 = ints(f, I1, rows);
        c.i2 = ints(f, I2, rows);
        c.l0 = longs(f, L0, rows);
        c.l1 = longs(f, L1, rows);
        c.l2 = longs(f, L2, rows);
        c.r0 = longs(f, R0, rows);
        c.r1 = longs(f, R1, rows);
        c.r2 = longs(f, R2, rows);
        c.name = ints(f, NAME, rows);
        c.call = ints(f, CALL, rows);
        c.cls = ints(f, CLASS, rows);
        c.sideAt = ints(f, SIDE_AT, rows);
        c.sideLen = ints(f, SIDE_LEN, rows);
        int tableCount = asInt(f.get(REQ_TABLE_COUNT));
        if (tableCount > 0 && f.get(REQ_COUNTERS) != null) {
            TargetObject[] counters = tableArrays(f, REQ_COUNTERS, tableCount);
            TargetObject[] ids = tableArrays(f, REQ_IDS, tableCount);
            TargetObject[] packed = tableArrays(f, REQS, tableCount);
            TargetObject[] sideAt = tableArrays(f, REQ_SIDE_AT, tableCount);
            TargetObject[] sideLen = tableArrays(f, REQ_SIDE_LEN, tableCount);
            TargetObject[] done = tableArrays(f, DONE_IDS, tableCount);
            for (int i = 0; i < tableCount; i++) {
                c.tables.add(readTable(counters[i], ids[i], packed[i], sideAt[i], sideLen[i], done[i]));
            }
        }
        // every side record in one bulk read, after the rows that point into it
        TargetObject pool = (TargetObject) f.get(SIDE_POOL);
        int poolUsed = pool == null ? 0 : Math.min(asInt(f.get(SIDE_POOL_USED)), reader.arrayLength(pool));
        c.sidePool = poolUsed > 0 ? reader.longs(pool, 0, poolUsed) : new long[0];
        c.stampAfter = reader.ints(stampArray, 0, rows);
        return c;
    }

    /** Element i of the root's per-table array {@code name}, for the first {@code count} tables (nulls if absent). */
    private TargetObject[] tableArrays(Map<String, Object> f, String name, int count) {
        TargetObject outer = (TargetObject) f.get(name);
        if (outer == null) return new TargetObject[count];
        TargetObject[] got = reader.objects(outer, 0, Math.min(count, reader.arrayLength(outer)));
        return got.length == count ? got : Arrays.copyOf(got, count);
    }

    /**
     * A row is filled while its id is 0 and appears when the id is stored, last; ids are never
     * reused. So a row is consistent as read when its id is the same before and after its fields
     * (a table's writer takes no lock and bumps no counter per row: the ids are read twice).
     */
    private RequestRows readTable(TargetObject counters, TargetObject ids, TargetObject reqs, TargetObject sideAt,
                                  TargetObject sideLen, TargetObject doneIds) {
        RequestRows out = new RequestRows();
        if (counters == null || ids == null || reqs == null) return out;
        long[] before = reader.longs(counters, 0, REQ_COUNTERS_LENGTH);
        int rows = (int) Math.min(before[REQ_COUNT_HIGH_WATER],
                Math.min(reader.arrayLength(ids), reader.arrayLength(reqs) / REQ_STRIDE));
        boolean marks = before[REQ_COUNT_DONE] != 0 && doneIds != null;
        out.rows = rows;
        out.ids = reader.longs(ids, 0, rows);
        out.reqs = reader.longs(reqs, 0, rows * REQ_STRIDE);
        if (sideAt != null && sideLen != null) {
            out.sideAt = reader.ints(sideAt, 0, Math.min(rows, reader.arrayLength(sideAt)));
            out.sideLen = reader.ints(sideLen, 0, Math.min(rows, reader.arrayLength(sideLen)));
        }
        long[] done = marks ? reader.longs(doneIds, 0, Math.min(rows, reader.arrayLength(doneIds))) : null;
        long[] after = reader.longs(ids, 0, rows);
        out.stable = new boolean[rows];
        // a request there before but gone or replaced after is not shown, and counted torn;
        // one that appeared meanwhile (id 0 before) is simply not shown
        for (int r = 0; r < rows; r++) out.stable[r] = out.ids[r] == after[r] || out.ids[r] == 0;
        if (done != null) {
            out.done = new boolean[rows];
            for (int r = 0; r < rows && r < done.length; r++) out.done[r] = done[r] != 0 && done[r] == out.ids[r];
        }
        return out;
    }

    private List<ProcessSnapshot> assemble(Map<String, Object> f, Columns c) {
        int procCount = asInt(f.get(PROC_COUNT));
        int[] procRank = procCount == 0 ? new int[0] : unknownIfNegative(reader.ints((TargetObject) f.get(PROC_RANK), 0, procCount));
        int[] procSize = procCount == 0 ? new int[0] : unknownIfNegative(reader.ints((TargetObject) f.get(PROC_SIZE), 0, procCount));
        byte[] procState = procCount == 0 ? new byte[0] : reader.bytes((TargetObject) f.get(PROC_STATE), 0, procCount);
        TargetObject strings = (TargetObject) f.get(STRINGS);
        int stringCount = asInt(f.get(STRING_COUNT));

        // which rows are consistent: even stamp, unchanged during the read, non-empty
        boolean[] usable = new boolean[c.rows];
        int torn = 0;
        List<Integer> sideRows = new ArrayList<>();
        for (int s = 0; s < c.rows; s++) {
            if (c.id[s] == 0 && (c.stamp[s] & 1) == 0 && c.stamp[s] == c.stampAfter[s]) continue;
            if ((c.stamp[s] & 1) != 0 || c.stamp[s] != c.stampAfter[s]) {
                torn++;
                continue;
            }
            if (c.id[s] == 0) continue;
            usable[s] = true;
            if ((c.flags[s] & F_HAS_SIDE) != 0) sideRows.add(s);
        }
        Map<Integer, long[]> side = SideRecords.slices(c.sidePool, sideRows, c.sideAt, c.sideLen);
        List<Map<Integer, long[]>> requestSide = new ArrayList<>();
        for (RequestRows t : c.tables) {
            List<Integer> withSide = new ArrayList<>();
            for (int r = 0; r < t.rows; r++) {
                if (t.torn(r)) {
                    torn++;
                } else if (t.usable(r) && (requestFlags(t.reqs[r * REQ_STRIDE + REQ_META]) & F_HAS_SIDE) != 0
                        && t.sideAt != null) {
                    withSide.add(r);
                }
            }
            requestSide.add(withSide.isEmpty() ? Map.of() : SideRecords.slices(c.sidePool, withSide, t.sideAt, t.sideLen));
        }
        StringTable table = new StringTable(strings, stringCount);
        WrappedRequests wrappedReader = new WrappedRequests(reader);
        List<WrappedRequests.Request> wrapped = wrappedReader.read(f);

        // counted references, inverted: who holds whom
        Map<Long, List<Long>> holders = new HashMap<>();
        Map<Long, List<Long>> attached = new HashMap<>();
        Inverse inv = new Inverse();
        for (int s = 0; s < c.rows; s++) {
            if (!usable[s]) continue;
            HandleKind k = HandleKind.ofCode(c.kind[s]);
            long self = c.id[s];
            long[] withInfo = SideRecords.values(side.get(s), SIDE_CREATED_WITH_INFO);
            if (withInfo.length == 1 && withInfo[0] != 0) inv.usedBy.computeIfAbsent(withInfo[0], x -> new ArrayList<>()).add(self);
            if ((k == HandleKind.WINDOW || k == HandleKind.FILE) && c.r0[s] != 0) {
                (k == HandleKind.WINDOW ? inv.windows : inv.files).computeIfAbsent(c.r0[s], x -> new ArrayList<>()).add(self);
            }
            switch (k) {
                case REQUEST:
                    if ((c.flags[s] & F_COMPLETE) == 0) hold(holders, c.r0[s], self);
                    break;
                case COMMUNICATOR:
                case WINDOW:
                case FILE:
                    hold(holders, c.r0[s], self);
                    hold(holders, c.r1[s], self);
                    long eh = k == HandleKind.COMMUNICATOR ? c.r0[s] : c.r1[s];
                    if (eh != 0) attached.computeIfAbsent(eh, x -> new ArrayList<>()).add(self);
                    if (k == HandleKind.COMMUNICATOR && c.r1[s] != 0) {
                        inv.builtOnGroup.computeIfAbsent(c.r1[s], x -> new ArrayList<>()).add(self);
                    }
                    break;
                case DATATYPE:
                    for (long p : SideRecords.values(side.get(s), SIDE_PARENTS)) hold(holders, p, self);
                    break;
                default:
                    break;
            }
        }

        // pending requests hold their communicator (window, file) without a count in refCount
        Map<Long, Integer> requestHolds = new HashMap<>();
        for (RequestRows t : c.tables) {
            for (int r = 0; r < t.rows; r++) {
                int b = r * REQ_STRIDE;
                if (!t.usable(r) || (requestFlags(t.reqs[b + REQ_META]) & F_COMPLETE) != 0) continue;
                long comm = t.reqs[b + REQ_COMM];
                if (comm == 0) continue;
                hold(holders, comm, t.ids[r]);
                requestHolds.merge(comm, 1, Integer::sum);
            }
        }

        for (WrappedRequests.Request w : wrapped) {
            if (w.holder == 0) continue;
            hold(holders, w.holder, w.id);
            requestHolds.merge(w.holder, 1, Integer::sum);
        }

        Map<Integer, List<HandleInfo>> byProc = new LinkedHashMap<>();
        for (int p = 0; p < Math.max(procCount, 1); p++) byProc.put(p, new ArrayList<>());
        for (int s = 0; s < c.rows; s++) {
            if (!usable[s]) continue;
            // freed, and neither counted holders nor pending requests hold it: released (the agent
            // releases it when its last request in the ring completes, at its next sweep)
            HandleKind kind = HandleKind.ofCode(c.kind[s]);
            if (c.state[s] == Lifecycle.FREED.code() && c.refCount[s] == 0 && !requestHolds.containsKey(c.id[s])
                    && f.get(REQUEST_RING) != null && (kind == HandleKind.COMMUNICATOR || kind == HandleKind.WINDOW || kind == HandleKind.FILE)) {
                continue;
            }
            int p = procIndex(c.owner[s], procCount);
            HandleInfo h = row(c, s, side.get(s), table, procRank, p, holders, attached, inv,
                    requestHolds.getOrDefault(c.id[s], 0));
            byProc.computeIfAbsent(p, x -> new ArrayList<>()).add(h);
        }
        for (int i = 0; i < c.tables.size(); i++) {
            RequestRows t = c.tables.get(i);
            for (int r = 0; r < t.rows; r++) {
                if (!t.usable(r)) continue;
                int p = procIndex(requestOwner(t.reqs[r * REQ_STRIDE + REQ_META]), procCount);
                HandleInfo h = requestRow(t.ids[r], t.reqs, r, requestSide.get(i).get(r), table, procRank, p);
                byProc.computeIfAbsent(p, x -> new ArrayList<>()).add(h);
            }
        }
        // several MPI processes in this JVM (MPJ Express multicore): a request in the ring is its
        // holder's process's (every request of that binding is made on a communicator)
        Map<Long, Integer> ownerOf = new HashMap<>();
        if (procCount > 1 && !wrapped.isEmpty()) {
            for (int s = 0; s < c.rows; s++) if (usable[s]) ownerOf.put(c.id[s], c.owner[s]);
        }
        for (WrappedRequests.Request w : wrapped) {
            int p = procIndex(ownerOf.getOrDefault(w.holder, -1), procCount);
            byProc.computeIfAbsent(p, x -> new ArrayList<>()).add(HandleInfo.builder(w.id, HandleKind.REQUEST)
                    .ownerRank(p >= 0 && p < procRank.length ? procRank[p] : HandleInfo.UNKNOWN)
                    .creatingCall(w.call).state(Lifecycle.ACTIVE).heldBy(NO_IDS)
                    .peer((int) (w.peerTag >> 32)).tag((int) w.peerTag).communicator(w.holder)
                    .persistent(false).complete(false).creationStack(List.of()).build());
        }
        List<HandleInfo>[] history = readHistory(f, table, procCount, procRank);
        List<MpiError>[] errors = readErrors(f, table, procCount, procRank);

        AgentHealth health = new AgentHealth(str(f.get(AGENT_VERSION)), asInt(f.get(INTERNAL_ERRORS)),
                str(f.get(LAST_ERROR)), asLong(f.get(UNTRACKED_EVENTS)) + wrappedReader.lost, !Boolean.TRUE.equals(f.get(REQUESTS_OFF)),
                blockingReturns((TargetObject) f.get(BLOCKING_RETURNS)));
        // several MPI processes in this JVM: each also counts its own returns
        TargetObject returnsByProc = (TargetObject) f.get(BLOCKING_RETURNS_BY_PROC);
        long[] perProc = health.blockingReturns() < 0 || returnsByProc == null || procCount <= 1 ? NO_IDS
                : reader.longs(returnsByProc, 0, reader.arrayLength(returnsByProc));
        List<ProcessSnapshot> out = new ArrayList<>();
        for (Map.Entry<Integer, List<HandleInfo>> e : byProc.entrySet()) {
            int p = e.getKey();
            boolean known = p >= 0 && p < procCount;
            if (!known && e.getValue().isEmpty() && procCount > 0) continue;
            int at = p * BLOCKING_RETURNS_STRIDE;
            long own = known && at < perProc.length ? perProc[at] : 0;
            out.add(new ProcessSnapshot(known ? procRank[p] : HandleInfo.UNKNOWN,
                    known ? procSize[p] : HandleInfo.UNKNOWN, asLong(f.get(PID)), str(f.get(HOST)),
                    str(f.get(BINDING)), known ? MpiState.ofCode(procState[p]) : MpiState.NOT_INITIALIZED,
                    VERSION, health.plusBlockingReturns(own), e.getValue(), p >= 0 && p < history.length ? history[p] : List.of(), torn,
                    p >= 0 && p < errors.length ? errors[p] : List.of()));
        }
        return out;
    }

    private HandleInfo row(Columns c, int s, long[] side, StringTable strings, int[] procRank, int proc,
                           Map<Long, List<Long>> holders, Map<Long, List<Long>> attached,
                           Inverse inv, int requestHolds) {
        HandleKind kind = HandleKind.ofCode(c.kind[s]);
        int flags = c.flags[s];
        long id = c.id[s];
        HandleInfo.Builder b = HandleInfo.builder(id, kind)
                .ownerRank(proc >= 0 && proc < procRank.length ? procRank[proc] : HandleInfo.UNKNOWN)
                .bindingClass(strings.get(c.cls[s]))
                .name(strings.get(c.name[s]))
                .creatingCall(strings.get(c.call[s]))
                .predefined((flags & F_PREDEFINED) != 0)
                .state(Lifecycle.ofCode(c.state[s]))
                .refCount(c.refCount[s] + requestHolds)
                .heldBy(toArray(holders.get(id)))
                .leaked((flags & F_LEAKED) != 0);
        if ((flags & F_HAS_CHANDLE) != 0) b.cHandle(c.cHandle[s]);
        if (SideRecords.has(side, SIDE_INFO_PAIRS)) {
            long[] v = SideRecords.values(side, SIDE_INFO_PAIRS);
            Map<String, String> pairs = new LinkedHashMap<>();
            for (int i = 1; i + 1 < v.length; i += 2) pairs.put(strings.get((int) v[i]), strings.get((int) v[i + 1]));
            b.infoPairs(pairs, v.length > 0 ? (int) v[0] : 0);
        }
        long[] withInfo = SideRecords.values(side, SIDE_CREATED_WITH_INFO);
        if (withInfo.length == 1) b.createdWithInfo(withInfo[0]);
        b.usedBy(toArray(inv.usedBy.get(id)));
        long[] attrs = SideRecords.values(side, SIDE_ATTRIBUTES);
        if (attrs.length > 1) {
            Map<Integer, String> a = new TreeMap<>();
            for (int i = 0; i + 1 < attrs.length; i += 2) a.put((int) attrs[i], strings.get((int) attrs[i + 1]));
            b.attributes(a);
        }
        List<String> stack = new ArrayList<>();
        for (long idx : SideRecords.values(side, SIDE_STACK)) stack.add(strings.get((int) idx));
        b.creationStack(stack);
        switch (kind) {
            case COMMUNICATOR:
                b.rank(c.i0[s]).size(c.i1[s]).inter((flags & F_INTER) != 0)
                        .members(toInts(SideRecords.values(side, SIDE_MEMBERS)))
                        .remoteMembers(toInts(SideRecords.values(side, SIDE_REMOTE_MEMBERS)))
                        .errhandler(c.r0[s]).group(c.r1[s]).derivedFrom(c.r2[s])
                        .windows(toArray(inv.windows.get(id))).files(toArray(inv.files.get(id)));
                if ((flags & F_TOPO_CART) != 0) {
                    long[] periods = SideRecords.values(side, SIDE_PERIODS);
                    boolean[] per = new boolean[periods.length];
                    for (int i = 0; i < per.length; i++) per[i] = periods[i] != 0;
                    b.topology(Topology.cartesian(toInts(SideRecords.values(side, SIDE_DIMS)), per));
                } else if ((flags & F_TOPO_GRAPH) != 0) {
                    b.topology(Topology.graph(Topology.Type.GRAPH, toInts(SideRecords.values(side, SIDE_GRAPH_INDEX)),
                            toInts(SideRecords.values(side, SIDE_GRAPH_EDGES))));
                } else if ((flags & F_TOPO_DIST_GRAPH) != 0) {
                    b.topology(Topology.distGraph(
                            SideRecords.has(side, SIDE_DIST_SOURCES) ? toInts(SideRecords.values(side, SIDE_DIST_SOURCES)) : null,
                            SideRecords.has(side, SIDE_DIST_DESTINATIONS) ? toInts(SideRecords.values(side, SIDE_DIST_DESTINATIONS)) : null));
                }
                break;
            case GROUP:
                b.rank(c.i0[s]).size(c.i1[s]).members(toInts(SideRecords.values(side, SIDE_MEMBERS))).derivedFrom(c.r2[s])
                        .communicators(toArray(inv.builtOnGroup.get(id)));
                break;
            case REQUEST:
                b.peer(c.i0[s]).tag(c.i1[s]).communicator(c.r0[s])
                        .persistent((flags & F_PERSISTENT) != 0).complete((flags & F_COMPLETE) != 0);
                break;
            case DATATYPE:
                b.typeSize(c.l0[s]).extent(c.l1[s]).lowerBound(c.l2[s])
                        .committed((flags & F_COMMITTED) != 0)
                        .constructor(strings.get(c.call[s]))
                        .parents(SideRecords.values(side, SIDE_PARENTS))
                        .typeArguments(SideRecords.typeArguments(SideRecords.values(side, SIDE_TYPE_ARGS)));
                break;
            case WINDOW:
                b.displacementUnit(c.i0[s]).windowSize(c.l0[s]).communicator(c.r0[s]).errhandler(c.r1[s]);
                break;
            case FILE: {
                b.communicator(c.r0[s]).errhandler(c.r1[s]);
                long[] file = SideRecords.values(side, SIDE_FILE);
                if (file.length == 3) {
                    b.fileName(strings.get((int) file[0]))
                            .accessMode(file[1] == Integer.MIN_VALUE ? HandleInfo.UNKNOWN : (int) file[1], strings.get((int) file[2]));
                }
                break;
            }
            case ERRHANDLER:
                b.attachedTo(toArray(attached.get(id)));
                break;
            default:
                break;
        }
        return b.build();
    }

    /** Relations read off other rows: what was built on a group, created with an info, on a communicator. */
    private static final class Inverse {
        final Map<Long, List<Long>> builtOnGroup = new HashMap<>();
        final Map<Long, List<Long>> usedBy = new HashMap<>();
        final Map<Long, List<Long>> windows = new HashMap<>();
        final Map<Long, List<Long>> files = new HashMap<>();
    }

    /**
     * Ids of requests found in their wrappers: this base plus the wrapper's creation sequence
     * number (the registry's own ids, one per handle ever registered, stay far below it).
     */
    public static final long WRAPPED_REQUEST_ID = HandleIds.RING_BASE;

    /** The MPI process index a row's owner names; the only one when the JVM has one, -1 when unknown. */
    private static int procIndex(int owner, int procCount) {
        return owner >= 0 && owner < procCount ? owner : (procCount <= 1 ? 0 : -1);
    }

    /** The id of the request in the ring with creation sequence {@code seq} (the one its wrapper carries); 0 for none. */
    public static long ringRequestId(long seq) {
        return seq > 0 ? WRAPPED_REQUEST_ID + seq : 0;
    }

    private HandleInfo requestRow(long id, long[] reqs, int r, long[] side, StringTable strings, int[] procRank,
                                  int proc) {
        int b = r * REQ_STRIDE;
        long meta = reqs[b + REQ_META];
        int flags = requestFlags(meta);
        long peerTag = reqs[b + REQ_PEER_TAG];
        HandleInfo.Builder h = HandleInfo.builder(id, HandleKind.REQUEST)
                .ownerRank(proc >= 0 && proc < procRank.length ? procRank[proc] : HandleInfo.UNKNOWN)
                .bindingClass(strings.get(requestClass(meta)))
                .creatingCall(strings.get(requestCall(meta)))
                .state(Lifecycle.ACTIVE)
                .heldBy(NO_IDS) // no counted reference points at a request
                .leaked((flags & F_LEAKED) != 0)
                .peer((int) (peerTag >> 32))
                .tag((int) peerTag)
                .communicator(reqs[b + REQ_COMM])
                .persistent((flags & F_PERSISTENT) != 0)
                .complete((flags & F_COMPLETE) != 0);
        if ((flags & F_HAS_CHANDLE) != 0) h.cHandle(reqs[b + REQ_KEY]);
        if (side != null) {
            List<String> stack = new ArrayList<>();
            for (long idx : SideRecords.values(side, SIDE_STACK)) stack.add(strings.get((int) idx));
            h.creationStack(stack);
        } else {
            h.creationStack(List.of());
        }
        return h.build();
    }

    /** The sum of the {@link RegistryLayout#BLOCKING_RETURNS} counters; -1 without them (older agent). */
    private long blockingReturns(TargetObject counters) {
        if (counters == null) return -1;
        long sum = 0;
        for (long v : reader.longs(counters, 0, reader.arrayLength(counters))) sum += v;
        return sum;
    }

    @SuppressWarnings("unchecked")
    private List<HandleInfo>[] readHistory(Map<String, Object> f, StringTable strings, int procCount, int[] procRank) {
        List<HandleInfo>[] out = new List[Math.max(procCount, 1)];
        for (int i = 0; i < out.length; i++) out[i] = new ArrayList<>();
        long count = asLong(f.get(HIST_COUNT));
        TargetObject idArray = (TargetObject) f.get(HIST_ID);
        if (count == 0 || idArray == null) return out;
        int cap = reader.arrayLength(idArray);
        int n = (int) Math.min(count, cap);
        int[] stamp = reader.ints((TargetObject) f.get(HIST_STAMP), 0, cap);
        long[] ids = reader.longs(idArray, 0, cap);
        byte[] kinds = reader.bytes((TargetObject) f.get(HIST_KIND), 0, cap);
        int[] owners = reader.ints((TargetObject) f.get(HIST_OWNER), 0, cap);
        int[] names = reader.ints((TargetObject) f.get(HIST_NAME), 0, cap);
        int[] calls = reader.ints((TargetObject) f.get(HIST_CALL), 0, cap);
        int[] sites = reader.ints((TargetObject) f.get(HIST_SITE), 0, cap);
        int[] flags = reader.ints((TargetObject) f.get(HIST_FLAGS), 0, cap);
        int[] stampAfter = reader.ints((TargetObject) f.get(HIST_STAMP), 0, cap);
        for (long i = count - 1; i >= count - n; i--) { // newest first
            int s = (int) (i % cap);
            if ((stamp[s] & 1) != 0 || stamp[s] != stampAfter[s] || ids[s] == 0) continue;
            int p = owners[s] >= 0 && owners[s] < procCount ? owners[s] : 0;
            String site = strings.get(sites[s]);
            out[p].add(HandleInfo.builder(ids[s], HandleKind.ofCode(kinds[s]))
                    .ownerRank(owners[s] >= 0 && owners[s] < procCount ? procRank[owners[s]] : HandleInfo.UNKNOWN)
                    .name(strings.get(names[s])).creatingCall(strings.get(calls[s]))
                    .predefined((flags[s] & F_PREDEFINED) != 0).leaked((flags[s] & F_LEAKED) != 0)
                    .state(Lifecycle.RELEASED)
                    .creationStack(site == null ? List.of() : List.of(site)).build());
        }
        return out;
    }

    /** The ring of recorded MPI exceptions, newest first per process; empty for agents that predate it. */
    @SuppressWarnings("unchecked")
    private List<MpiError>[] readErrors(Map<String, Object> f, StringTable strings, int procCount, int[] procRank) {
        List<MpiError>[] out = new List[Math.max(procCount, 1)];
        for (int i = 0; i < out.length; i++) out[i] = new ArrayList<>();
        long count = asLong(f.get(ERR_COUNT));
        TargetObject stampArray = (TargetObject) f.get(ERR_STAMP);
        if (count == 0 || stampArray == null) return out;
        int cap = reader.arrayLength(stampArray);
        int n = (int) Math.min(count, cap);
        int[] stamp = reader.ints(stampArray, 0, cap);
        long[] times = reader.longs((TargetObject) f.get(ERR_TIME), 0, cap);
        int[] owners = reader.ints((TargetObject) f.get(ERR_OWNER), 0, cap);
        long[] handles = reader.longs((TargetObject) f.get(ERR_HANDLE), 0, cap);
        int[] peers = reader.ints((TargetObject) f.get(ERR_PEER), 0, cap);
        int[] classes = reader.ints((TargetObject) f.get(ERR_CLASS), 0, cap);
        int[] codes = reader.ints((TargetObject) f.get(ERR_CODE), 0, cap);
        int[] calls = reader.ints((TargetObject) f.get(ERR_CALL), 0, cap);
        int[] causes = reader.ints((TargetObject) f.get(ERR_CAUSE), 0, cap);
        TargetObject[] messages = reader.objects((TargetObject) f.get(ERR_MESSAGE), 0, cap);
        int[] stampAfter = reader.ints(stampArray, 0, cap);
        for (long i = count - 1; i >= count - n; i--) { // newest first
            int s = (int) (i % cap);
            if ((stamp[s] & 1) != 0 || stamp[s] != stampAfter[s] || stamp[s] == 0) continue;
            boolean known = owners[s] >= 0 && owners[s] < procCount;
            int p = known ? owners[s] : 0;
            out[p].add(new MpiError(times[s], known ? procRank[owners[s]] : HandleInfo.UNKNOWN, strings.get(calls[s]),
                    handles[s], peers[s], classes[s], codes[s], strings.get(causes[s]),
                    messages[s] == null ? null : reader.string(messages[s])));
        }
        return out;
    }

    private final class StringTable {
        private final TargetObject array;
        private final int count;
        private TargetObject[] refs;

        StringTable(TargetObject array, int count) {
            this.array = array;
            this.count = count;
        }

        String get(int index) {
            if (index < 0 || index >= count || array == null) return null;
            String cached = stringCache.get(index);
            if (cached != null) return cached;
            if (refs == null) refs = reader.objects(array, 0, Math.min(count, reader.arrayLength(array)));
            if (index >= refs.length || refs[index] == null) return null;
            String s = reader.string(refs[index]);
            stringCache.put(index, s);
            return s;
        }
    }

    private static void hold(Map<Long, List<Long>> holders, long target, long holder) {
        if (target != 0) holders.computeIfAbsent(target, x -> new ArrayList<>()).add(holder);
    }

    private static long[] toArray(List<Long> ids) {
        if (ids == null) return NO_IDS; // never exposed: HandleInfo copies what it keeps
        long[] out = new long[ids.size()];
        for (int i = 0; i < out.length; i++) out[i] = ids.get(i);
        Arrays.sort(out);
        return out;
    }

    /** The agent writes -1 before MPI init; the model says UNKNOWN. */
    private static int[] unknownIfNegative(int[] v) {
        for (int i = 0; i < v.length; i++) if (v[i] < 0) v[i] = HandleInfo.UNKNOWN;
        return v;
    }

    private static int[] toInts(long[] v) {
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (int) v[i];
        return out;
    }

    private int[] ints(Map<String, Object> f, String name, int rows) {
        return reader.ints((TargetObject) f.get(name), 0, rows);
    }

    private long[] longs(Map<String, Object> f, String name, int rows) {
        return reader.longs((TargetObject) f.get(name), 0, rows);
    }

    private byte[] bytes(Map<String, Object> f, String name, int rows) {
        return reader.bytes((TargetObject) f.get(name), 0, rows);
    }

    private String str(Object v) {
        return v instanceof TargetObject ? reader.string((TargetObject) v) : null;
    }

    private static int asInt(Object v) {
        return v instanceof Number ? ((Number) v).intValue() : 0;
    }

    private static long asLong(Object v) {
        return v instanceof Number ? ((Number) v).longValue() : 0L;
    }
}
