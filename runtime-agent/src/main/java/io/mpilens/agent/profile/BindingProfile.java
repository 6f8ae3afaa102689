package io.mpilens.agent.profile;

import io.mpilens.api.binding.BindingCalls;
import io.mpilens.api.model.HandleKind;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A Java MPI binding described as data: which classes are handles of which kind, which
 * methods create, free, complete and modify them, and how to read their attributes with the
 * binding's own cheap local getters. The interception code is generic over this; a third
 * binding is a new profile.
 */
public final class BindingProfile {
    /** Positions of peer and tag among a request-creating call's arguments. */
    public static final class RequestCall {
        public final int peerArg;
        public final int tagArg;

        RequestCall(int peerArg, int tagArg) {
            this.peerArg = peerArg;
            this.tagArg = tagArg;
        }
    }

    /** Positions of size and displacement unit among a window constructor's arguments. */
    public static final class WindowCtor {
        public final int sizeArg;
        public final int dispUnitArg;

        WindowCtor(int sizeArg, int dispUnitArg) {
            this.sizeArg = sizeArg;
            this.dispUnitArg = dispUnitArg;
        }
    }

    public String id;
    public String displayName;
    /** Class whose presence on a class path identifies the binding, as a resource name. */
    public String markerResource;
    /**
     * Whether {@link #present()} found {@link #markerResource} on the system class path by its own
     * scan: the system class loader then has the binding without being asked again.
     */
    public boolean markerOnSystemClassPath;
    /** Resources of a launcher that loads the binding later in its own class loaders. */
    public String[] launcherResources = new String[0];
    /** Packages whose frames are the binding's, not the user's, in creation stacks. */
    public String[] bindingPackages;
    public String mpiClass;
    public Set<String> initMethods;
    public Set<String> finalizeMethods;
    /** Handle classes by exact name; subclasses are found by walking superclasses. */
    public final Map<String, HandleKind> handleClasses = new LinkedHashMap<>();
    /** Handle classes whose public constructors create handles (windows, files). */
    public Set<String> constructedClasses = Set.of();
    public Set<String> freeMethods;
    public String setErrhandlerMethod;
    public String setNameMethod;
    public String commitMethod;
    public String persistentRequestClass;
    public Set<String> startMethods = Set.of();
    /** Blocking completion of the receiver. */
    public Set<String> waitMethods = Set.of();
    /** Non-blocking completion of the receiver: complete when the result is true or non-null. */
    public Set<String> testMethods = Set.of();
    /** Static calls over a request array that complete all of them. */
    public Set<String> waitAllMethods = Set.of();
    /** Static calls over a request array that complete all when the result is true/non-null. */
    public Set<String> testAllMethods = Set.of();
    /** Static calls over a request array that complete the indexes they return. */
    public Set<String> someMethods = Set.of();
    /** Blocking calls by name (shared with the debugger side), for recording failures and counting returns. */
    public BindingCalls calls;
    /** Class name of the binding's MPI exception. */
    public String exceptionClass = "mpi.MPIException";

    /** Request-creating calls by method name. Calls not listed record peer and tag as unknown. */
    public final Map<String, RequestCall> requestCalls = new LinkedHashMap<>();
    public final Map<Integer, WindowCtor> windowCtorsByArity = new LinkedHashMap<>();
    /**
     * Long field holding a request's native handle: requests are then tracked by handle value,
     * without any reference to the wrapper. Null: tracked by weak reference.
     */
    public String requestKeyField;
    /**
     * Private static (Request[], long[]) method through which the binding writes the handles
     * returned by an array wait/test back into the wrappers; at its entry the old handles are
     * still in the wrappers, so the agent sees which requests completed.
     */
    public String handleWritebackMethod;
    /**
     * Whether the agent can tell that a request recorded in its wrapper completed, without a table
     * (else requests live in the request tables): its one-request wait returning, a test saying
     * so, and where there is one the array write-back ({@link #handleWritebackMethod}) cover every
     * completion. Open MPI: the write-back sees the null request handle written into completed
     * wrappers. MPJ Express: {@code Test}, {@code Waitall}, {@code Waitany}, ... call {@code Wait()}
     * on each request they find complete (read in 0.44's {@code mpi.Request}).
     */
    public boolean wrapperCompletion;
    /** A request that finished (non-persistent) answers true; null if the binding has no such getter. */
    public String requestIsNullMethod;

    // ---- info, files, attributes: recorded from the calls' own arguments (no MPI call); null: not in this binding
    /** Instance (String key, String value) and (String key) methods of the info class that change its pairs. */
    public String infoSetMethod, infoDeleteMethod;
    /** Instance (int keyval, Object value) and (int keyval) methods that cache and delete an attribute. */
    public String attrSetMethod, attrDeleteMethod;
    /**
     * A file's constructor: positions of its name and access mode; the MPI class's static int
     * fields that name the access mode bits, in the order they are spelled out (the window
     * assertion flags, MODE_NOCHECK..., share their values and are not among them).
     */
    public int fileNameArg = -1, fileModeArg = -1;
    public String[] fileModeFields = new String[0];

    // attribute getters (instance methods without arguments unless noted)
    public String rankMethod, sizeMethod, nameMethod, isInterMethod, remoteSizeMethod;
    public String groupMethod, remoteGroupMethod;
    /** static (Group, int[], Group) -> int[] */
    public String translateRanksMethod;
    public String worldCommField;
    public String datatypeSizeMethod, datatypeExtentMethod, datatypeLbMethod;
    /** Field holding the native handle, or null when the binding has none. */
    public String nativeHandleField;
    public String cartClass, cartTopoMethod;
    public String graphClass, graphTopoMethod;
    /** Reads dims/periods or index/edges from the binding's topology parameter object. */
    public TopologyReader topologyReader;

    // ---- what the agent may know without asking MPI (docs/architecture.md, "MPI calls the agent makes")
    /**
     * Static long fields of handle classes that hold the null handle's native value (Open MPI:
     * {@code Comm.nullHandle}, {@code Group.nullHandle}, {@code Message.NULL}, {@code Info.NULL}).
     */
    public Set<String> nullHandleStatics = Set.of();
    /** Static fields of the MPI class whose name ends so are null handles ({@code REQUEST_NULL}, {@code DATATYPE_NULL}). */
    public String nullConstantSuffix = "_NULL";
    /** The root class of the binding's requests (both bindings: {@code mpi.Request}). */
    public String requestClass = "mpi.Request";
    /** A request whose native handle is 0 is a null request (Open MPI's {@code Request.isNull}). */
    public boolean zeroRequestIsNull;
    /** MPI_Topo_test on a communicator (a valid, non-null one only); null: the class says the topology. */
    public String topologyKindMethod;
    /** Neighbours of a distributed-graph communicator (MPI_Dist_graph_neighbors; only on one). */
    public String distGraphNeighborsMethod;
    /** Calls whose arguments are the topology itself: (dims, periods, …) and (index, edges, …). */
    public Set<String> cartCreateCalls = Set.of();
    public Set<String> graphCreateCalls = Set.of();
    /** Distributed graphs: the adjacent form names this rank's sources and destinations in its arguments. */
    public Set<String> distGraphAdjacentCalls = Set.of();
    public Set<String> distGraphCalls = Set.of();
    /** A nonblocking dup: its result may not be used until the request completes; its copy's source is asked instead. */
    public Set<String> nonblockingDupCalls = Set.of();
    /** Predefined communicators and group described from the rank and size alone. */
    public String selfCommField = "COMM_SELF";
    public String emptyGroupField = "GROUP_EMPTY";
    /** Environment variables of the launcher giving the COMM_WORLD rank and size (late attach asks these, not MPI). */
    public String[] worldRankSizeEnvironment;
    /** Methods returning Object that create a handle of the receiver's kind (mpiJava clone). */
    public Set<String> cloneMethods = Set.of("clone");

    /**
     * Classes that extend a handle class but are the binding's implementation behind the
     * application's wrapper (MPJ's IntracommImpl); calls on them are the binding's internals.
     */
    public Set<String> internalClasses = Set.of();

    /**
     * Collectives the binding writes in Java on top of its own public calls (MPJ Express: {@code
     * Allreduce} is {@code Reduce} then {@code Bcast}, each of {@code send}s, {@code recv}s and an
     * {@code Op} worker made per call). Inside one, what the binding creates, frees or raises is its
     * own: not described, not registered, not recorded; the collective's own failure is recorded
     * when it leaves. Empty for a binding whose collectives are native (Open MPI).
     */
    public Set<String> javaCollectives = Set.of();

    public boolean isInternal(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (internalClasses.contains(k.getName())) return true;
        }
        return false;
    }

    public HandleKind kindOf(Class<?> c) {
        if (isInternal(c)) return null;
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            HandleKind kind = handleClasses.get(k.getName());
            if (kind != null) return kind;
        }
        return null;
    }

    public boolean isBindingFrame(String className) {
        for (String p : bindingPackages) {
            if (className.startsWith(p)) return true;
        }
        return false;
    }

    /** Binding-specific reading of a topology parameter object, by reflection. */
    public interface TopologyReader {
        /** {dims, periods(0/1)} of a Cartesian communicator's parameters. */
        int[][] cartesian(Object parms) throws ReflectiveOperationException;

        /** {index, edges} of a graph communicator's parameters. */
        int[][] graph(Object parms) throws ReflectiveOperationException;

        /** {sources, destinations} of a distributed graph's neighbours object; null if the binding has none. */
        default int[][] distGraph(Object neighbours) throws ReflectiveOperationException {
            return null;
        }
    }

    /** Both profiles; the agent installs interception for each whose classes exist. */
    public static BindingProfile[] all() {
        return new BindingProfile[] {OpenMpiProfile.create(), MpjExpressProfile.create()};
    }

    /** The binding has initialised: what {@link #present()}'s scan kept open for its class loader is closed. */
    public static void bindingLoaded() {
        ClassPathScan.release();
    }

    /**
     * The profile of the binding on the system class path (its marker class, or its launcher's),
     * in the order of {@link #all()}; only that one is built. Null when neither is there.
     */
    public static BindingProfile present() {
        // the class path's own directories and jars first (ClassPathScan: the class loader's
        // search costs ≈ 5 ms); the class loader when the scan cannot tell or finds neither
        boolean[] scan = ClassPathScan.find(OpenMpiProfile.MARKER, MpjExpressProfile.MARKER, MpjExpressProfile.LAUNCHER);
        if (scan != null && scan[0]) {
            BindingProfile p = OpenMpiProfile.create();
            p.markerOnSystemClassPath = true;
            return p;
        }
        if (scan != null && (scan[1] || scan[2])) {
            BindingProfile p = MpjExpressProfile.create();
            p.markerOnSystemClassPath = scan[1];
            return p;
        }
        if (ClassLoader.getSystemResource(OpenMpiProfile.MARKER) != null) return OpenMpiProfile.create();
        if (ClassLoader.getSystemResource(MpjExpressProfile.MARKER) != null
                || ClassLoader.getSystemResource(MpjExpressProfile.LAUNCHER) != null) {
            return MpjExpressProfile.create();
        }
        return null;
    }

    /** Both sets in one (profiles list the binding's waits from {@code BindingCalls} beside their tests). */
    static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> out = new java.util.LinkedHashSet<>(a);
        out.addAll(b);
        return java.util.Collections.unmodifiableSet(out);
    }
}
