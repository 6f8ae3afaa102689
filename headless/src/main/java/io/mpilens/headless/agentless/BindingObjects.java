package io.mpilens.headless.agentless;

import io.mpilens.api.binding.BindingClasses;
import io.mpilens.api.job.RankVariables;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.target.HeapInstances;
import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.api.target.TargetReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Agentless mode: the MPI processes of a JVM (live or dumped) that ran without the mpilens
 * agent, read from the binding's own objects — every instance of its handle classes
 * ({@link BindingClasses}), by field reads only. What the fields hold: Open MPI's C handles,
 * MPJ Express's context ids and group members (mapped to {@code MPI_COMM_WORLD} ranks through
 * the processes' UUIDs), datatype extents, persistent requests' peers. Objects the application
 * dropped but the garbage collector has not reclaimed yet may be listed too.
 */
public final class BindingObjects {
    /** Objects read per JVM at most: a job holding millions of requests is listed in part. */
    public static final int LIMIT = 100_000;
    private static final String MPI_CLASS = "mpi.MPI";
    /** Environment variables that carry the world rank and size of an Open MPI process. */
    private static final String[][] RANK_VARIABLES = {{RankVariables.OMPI_RANK, RankVariables.OMPI_SIZE},
        {RankVariables.PMIX_RANK, null}};

    private final TargetReader reader;
    private final HeapInstances heap;
    private final String source;

    private BindingObjects(TargetReader reader, HeapInstances heap) {
        this.reader = reader;
        this.heap = heap;
        this.source = reader.describe();
    }

    /**
     * @throws BindingNotFoundException no MPI binding is loaded in the target
     * @throws TargetReadException      the target could not be read
     */
    public static List<AgentlessProcess> read(TargetReader reader, HeapInstances heap) {
        return new BindingObjects(reader, heap).read();
    }

    private List<AgentlessProcess> read() {
        List<TargetClass> mpiClasses = reader.classesNamed(MPI_CLASS);
        if (mpiClasses.isEmpty()) {
            throw new BindingNotFoundException("no MPI binding is loaded in " + source + " (no class " + MPI_CLASS
                    + "): the JVM had not started MPI yet, or runs a binding mpilens does not know (it knows Open"
                    + " MPI's Java bindings and MPJ Express)");
        }
        BindingClasses binding = reader.classesNamed("mpjdev.Comm").isEmpty()
                ? BindingClasses.OPEN_MPI : BindingClasses.MPJ_EXPRESS;
        List<TargetClass> types = new ArrayList<>();
        for (String name : binding.handleClasses().keySet()) types.addAll(reader.classesNamed(name));
        List<TargetClass> internal = new ArrayList<>();
        for (String name : binding.internalClasses()) internal.addAll(reader.classesNamed(name));
        List<TargetClass> asked = new ArrayList<>(types);
        asked.addAll(internal);
        HeapInstances.Found found = heap.instancesOf(asked, LIMIT);
        Set<TargetObject> internals = new java.util.HashSet<>();
        for (TargetClass t : internal) internals.addAll(found.of(t));
        List<AgentlessProcess> out = new ArrayList<>();
        // one process per defining loader of mpi.MPI: MPJ Express multicore runs every rank in one JVM
        for (TargetClass mpi : mpiClasses) {
            Object loader = heap.definingLoader(mpi);
            Process p = new Process(binding, mpi);
            for (TargetClass t : types) {
                if (!heap.definingLoader(t).equals(loader)) continue;
                HandleKind kind = binding.handleClasses().get(t.name());
                for (TargetObject o : found.of(t)) {
                    if (!internals.contains(o)) p.add(kind, o);
                }
            }
            out.add(p.result(mpiClasses.size() == 1 ? found.beyondLimit() : 0));
        }
        out.sort(java.util.Comparator.comparingInt(p -> p.rank() < 0 ? Integer.MAX_VALUE : p.rank()));
        return out;
    }

    /** The objects of one MPI process (one copy of the binding's classes). */
    private final class Process {
        final BindingClasses binding;
        final boolean openMpi;
        final TargetClass mpi;
        final Map<TargetObject, String> names = new HashMap<>();
        final Set<TargetObject> seen = new LinkedHashSet<>();
        final Map<String, Integer> worldRankByUuid = new HashMap<>();
        final Map<String, Long> nullHandles = new HashMap<>();
        final List<BindingObject> objects = new ArrayList<>();
        int rank = -1;
        int worldSize = -1;
        String rankFrom;

        Process(BindingClasses binding, TargetClass mpi) {
            this.binding = binding;
            this.openMpi = binding == BindingClasses.OPEN_MPI;
            this.mpi = mpi;
            for (String f : heap.staticFieldNames(mpi)) {
                Object v = reader.staticField(mpi, f);
                if (v instanceof TargetObject) names.putIfAbsent((TargetObject) v, "MPI_" + f);
            }
            if (openMpi) {
                openMpiRank();
            } else {
                mpjWorld();
            }
        }

        /** MPJ Express: rank, size and the members' UUIDs of COMM_WORLD, which map any group to world ranks. */
        private void mpjWorld() {
            Object world = reader.staticField(mpi, "COMM_WORLD");
            if (!(world instanceof TargetObject)) return;
            TargetObject group = mpjdevGroup(obj(field((TargetObject) world, "group")));
            if (group == null) return;
            Map<String, Object> g = reader.fields(group, List.of("rank", "size", "ids"));
            rank = intOr(g.get("rank"), -1);
            worldSize = intOr(g.get("size"), -1);
            rankFrom = "COMM_WORLD";
            List<String> uuids = uuids(obj(g.get("ids")));
            for (int i = 0; i < uuids.size(); i++) {
                if (uuids.get(i) != null) worldRankByUuid.putIfAbsent(uuids.get(i), i);
            }
        }

        /** Open MPI keeps ranks in C; the process environment (if Java code ever read it) has them. */
        private void openMpiRank() {
            Map<String, String> env = HeapEnvironment.read(reader);
            for (String[] v : RANK_VARIABLES) {
                Integer r = parse(env.get(v[0]));
                if (r == null) continue;
                rank = r;
                rankFrom = v[0];
                Integer s = v[1] == null ? null : parse(env.get(v[1]));
                if (s != null) worldSize = s;
                return;
            }
        }

        void add(HandleKind kind, TargetObject o) {
            if (!seen.add(o)) return;
            objects.add(openMpi ? openMpiObject(kind, o) : mpjObject(kind, o));
        }

        AgentlessProcess result(long notRead) {
            return new AgentlessProcess(source, binding.id(), rank, worldSize, rankFrom, state(), objects, notRead);
        }

        private MpiState state() {
            Object initialized = reader.staticField(mpi, "initialized");
            Object finalized = openMpi ? reader.staticField(mpi, "finalized") : null;
            if (Boolean.TRUE.equals(finalized)) return MpiState.FINALIZED;
            if (Boolean.TRUE.equals(initialized)) return MpiState.INITIALIZED;
            // MPJ Express clears 'initialized' in Finalize and has no 'finalized'
            if (!openMpi && reader.staticField(mpi, "COMM_WORLD") != null && worldSize > 0) return MpiState.FINALIZED;
            return MpiState.NOT_INITIALIZED;
        }

        // ------------------------------------------------------------ Open MPI

        private BindingObject openMpiObject(HandleKind kind, TargetObject o) {
            String cls = o.typeName();
            Map<String, Object> f = reader.fields(o, List.of("handle", "baseType", "baseSize", "lb", "extent"));
            Long handle = f.get("handle") instanceof Long ? (Long) f.get("handle") : null;
            Map<String, String> details = new LinkedHashMap<>();
            if (kind == HandleKind.DATATYPE) {
                put(details, "baseType", f.get("baseType"));
                put(details, "baseSize", f.get("baseSize"));
                // cached by the binding once getExtent()/getLb() was called; 0 means never asked
                if (intOr(f.get("extent"), 0) != 0) {
                    put(details, "extent", f.get("extent"));
                    put(details, "lowerBound", f.get("lb"));
                }
            }
            boolean nullHandle = handle != null && handle.equals(nullHandle(cls));
            return new BindingObject(kind, simpleName(cls), names.get(o), handle, nullHandle, List.of(), -1, -1,
                    List.of(), details);
        }

        /** The binding's null handle for this class (static {@code nullHandle} or {@code NULL}), or null. */
        private Long nullHandle(String cls) {
            return nullHandles.computeIfAbsent(cls, c -> {
                for (TargetClass t : reader.classesNamed(c)) {
                    if (!heap.definingLoader(t).equals(heap.definingLoader(mpi))) continue;
                    for (String name : List.of("nullHandle", "NULL")) {
                        Object v = reader.staticField(t, name);
                        if (v instanceof Long) return (Long) v;
                    }
                }
                return Long.MIN_VALUE; // no null handle known: never equal to a handle read
            });
        }

        // ------------------------------------------------------------ MPJ Express

        private BindingObject mpjObject(HandleKind kind, TargetObject o) {
            String cls = o.typeName();
            Map<String, String> details = new LinkedHashMap<>();
            List<Integer> contexts = List.of();
            List<Integer> members = List.of();
            int r = -1, s = -1;
            switch (kind) {
                case COMMUNICATOR: {
                    Map<String, Object> f = reader.fields(o, List.of("group", "localgroup", "mpjdevComm", "intercomm",
                            "cartParms", "graphParms"));
                    boolean inter = Boolean.TRUE.equals(f.get("intercomm"));
                    TargetObject local = mpjdevGroup(obj(f.get(inter ? "localgroup" : "group")));
                    if (local != null) {
                        Map<String, Object> g = reader.fields(local, List.of("rank", "size", "ids"));
                        r = intOr(g.get("rank"), -1);
                        s = intOr(g.get("size"), -1);
                        members = worldRanks(obj(g.get("ids")));
                    }
                    if (inter) {
                        TargetObject remote = mpjdevGroup(obj(f.get("group")));
                        if (remote != null) {
                            details.put("remoteMembers", join(worldRanks(obj(reader.fields(remote, List.of("ids"))
                                    .get("ids")))));
                        }
                    }
                    TargetObject dev = obj(f.get("mpjdevComm"));
                    if (dev != null) {
                        Map<String, Object> c = reader.fields(dev, List.of("sendctxt", "recvctxt", "collctxt"));
                        contexts = List.of(intOr(c.get("sendctxt"), -1), intOr(c.get("recvctxt"), -1),
                                intOr(c.get("collctxt"), -1));
                    }
                    TargetObject cart = obj(f.get("cartParms"));
                    if (cart != null) {
                        Map<String, Object> c = reader.fields(cart, List.of("dims", "periods"));
                        details.put("dims", join(ints(obj(c.get("dims")))));
                        details.put("periods", join(booleans(obj(c.get("periods")))));
                    }
                    TargetObject graph = obj(f.get("graphParms"));
                    if (graph != null) {
                        Map<String, Object> c = reader.fields(graph, List.of("index", "edges"));
                        details.put("index", join(ints(obj(c.get("index")))));
                        details.put("edges", join(ints(obj(c.get("edges")))));
                    }
                    break;
                }
                case GROUP: {
                    TargetObject g = obj(field(o, "mpjdevGroup"));
                    if (g != null) {
                        Map<String, Object> f = reader.fields(g, List.of("rank", "size", "ids"));
                        r = intOr(f.get("rank"), -1);
                        s = intOr(f.get("size"), -1);
                        members = worldRanks(obj(f.get("ids")));
                    }
                    break;
                }
                case DATATYPE: {
                    Map<String, Object> f = reader.fields(o, List.of("size", "extent", "lb", "baseType", "byteSize"));
                    put(details, "typeSize", f.get("size"));
                    put(details, "extent", f.get("extent"));
                    put(details, "lowerBound", f.get("lb"));
                    put(details, "baseType", f.get("baseType"));
                    put(details, "byteSize", f.get("byteSize"));
                    break;
                }
                case REQUEST: {
                    Map<String, Object> f = reader.fields(o, List.of("isNull", "dest", "tag", "comm"));
                    put(details, "complete", f.get("isNull"));
                    // only persistent requests (Prequest) keep their peer, tag and communicator
                    put(details, "peer", f.get("dest"));
                    put(details, "tag", f.get("tag"));
                    break;
                }
                case OP:
                    put(details, "opCode", field(o, "opCode"));
                    break;
                case ERRHANDLER:
                    put(details, "code", field(o, "code"));
                    break;
                default:
                    break;
            }
            return new BindingObject(kind, simpleName(cls), names.get(o), null, false, contexts, r, s, members, details);
        }

        private TargetObject mpjdevGroup(TargetObject group) {
            return group == null ? null : obj(field(group, "mpjdevGroup"));
        }

        private List<Integer> worldRanks(TargetObject ids) {
            List<Integer> out = new ArrayList<>();
            for (String u : uuids(ids)) out.add(u == null ? -1 : worldRankByUuid.getOrDefault(u, -1));
            return out;
        }

        /** The UUIDs of an array of {@code xdev.ProcessID}, as strings (null for a null element). */
        private List<String> uuids(TargetObject ids) {
            List<String> out = new ArrayList<>();
            if (ids == null) return out;
            for (TargetObject id : reader.objects(ids, 0, Math.min(reader.arrayLength(ids), LIMIT))) {
                TargetObject uuid = id == null ? null : obj(field(id, "uuid"));
                if (uuid == null) {
                    out.add(null);
                    continue;
                }
                Map<String, Object> f = reader.fields(uuid, List.of("mostSigBits", "leastSigBits"));
                out.add(f.get("mostSigBits") + ":" + f.get("leastSigBits"));
            }
            return out;
        }
    }

    // ---------------------------------------------------------------- small helpers

    private Object field(TargetObject o, String name) {
        return reader.fields(o, List.of(name)).get(name);
    }

    private List<Integer> ints(TargetObject array) {
        List<Integer> out = new ArrayList<>();
        if (array == null) return out;
        for (int v : reader.ints(array, 0, Math.min(reader.arrayLength(array), LIMIT))) out.add(v);
        return out;
    }

    /** A boolean[] through the byte reads every reader offers (HPROF and JDWP both store booleans as bytes). */
    private List<Boolean> booleans(TargetObject array) {
        List<Boolean> out = new ArrayList<>();
        if (array == null || !array.typeName().equals("[Z")) return out;
        for (byte v : reader.bytes(array, 0, Math.min(reader.arrayLength(array), LIMIT))) out.add(v != 0);
        return out;
    }

    private static TargetObject obj(Object v) {
        return v instanceof TargetObject ? (TargetObject) v : null;
    }

    private static int intOr(Object v, int otherwise) {
        return v instanceof Integer ? (Integer) v : otherwise;
    }

    private static void put(Map<String, String> details, String key, Object v) {
        if (v != null) details.put(key, String.valueOf(v));
    }

    private static String join(List<?> values) {
        StringBuilder b = new StringBuilder();
        for (Object v : values) b.append(b.length() == 0 ? "" : ",").append(v);
        return b.toString();
    }

    private static Integer parse(String s) {
        try {
            return s == null ? null : Integer.valueOf(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String simpleName(String binaryName) {
        return binaryName.substring(binaryName.lastIndexOf('.') + 1);
    }
}
