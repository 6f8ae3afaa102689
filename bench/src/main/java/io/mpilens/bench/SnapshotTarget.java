package io.mpilens.bench;

import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.agent.registry.RowSpec;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.registry.RegistryLayout;

/**
 * The JVM {@link SnapshotBench} reads: one rank of 64 with a full registry, filled through the
 * agent's real {@link HandleRegistry} the way its interception would (mostly keyed requests, some
 * communicators and datatypes with members, parents and creation stacks), and the application's
 * own request wrappers, which is all a debugger without a registry could walk. Runs on the
 * application JDK with only {@code bench/target/classes} and the agent jar on its class path.
 *
 * <p>Arguments: live handles, communicators, datatypes, wrappers. Prints {@value #READY} and
 * what it holds, then sleeps until killed.
 */
public final class SnapshotTarget {
    static final String READY = "SNAPSHOT-TARGET-READY";
    /** Name of the static field the naive walk starts from. */
    static final String WRAPPERS_FIELD = "requests";
    static final int PREDEFINED = 4;
    static final int WORLD_SIZE = 64;

    /**
     * Stands in for a communicator's or datatype's wrapper as the agent leaves it when the class
     * loads after it (-javaagent): with the wrapper id field (RegistryLayout.WRAPPER_ID_FIELD),
     * which the registry fills when it registers the wrapper.
     */
    static final class HandleWrapper {
        private transient long mpilens$id;
    }

    /** Stands in for Open MPI's {@code mpi.Request}: a native handle plus what the application passed in. */
    static final class RequestWrapper {
        long handle;
        int peer;
        int tag;
        Object comm;
        boolean persistent;
        Object buffer;
        int count;
        Object datatype;
    }

    /** The application's requests, what a debugger without a registry walks. */
    static RequestWrapper[] requests;
    /** Communicator and datatype wrappers: the registry tracks them weakly, the application keeps them. */
    static Object[] handles;

    private static final String[][] SITES = {
        {"app.Solver.decompose(Solver.java:88)", "app.Solver.setUp(Solver.java:40)", "app.Main.main(Main.java:17)"},
        {"app.Halo.neighbours(Halo.java:51)", "app.Solver.setUp(Solver.java:44)", "app.Main.main(Main.java:17)"},
        {"app.Io.columnType(Io.java:23)", "app.Io.open(Io.java:12)", "app.Main.main(Main.java:21)"},
    };

    private SnapshotTarget() {
    }

    public static void main(String[] args) throws InterruptedException {
        int live = Integer.parseInt(args[0]);
        int communicators = Integer.parseInt(args[1]);
        int datatypes = Integer.parseInt(args[2]);
        int wrappers = Integer.parseInt(args[3]);
        int requestCount = live - PREDEFINED - communicators - datatypes;
        if (requestCount < 0) throw new IllegalArgumentException("more communicators and datatypes than handles");

        HandleRegistry r = HandleRegistry.INSTANCE;
        r.configure("bench", "openmpi", false);
        int p = r.process(SnapshotTarget.class.getClassLoader());
        r.processInitialized(p, 0, WORLD_SIZE);

        Object world = new Object(), errorsReturn = new Object(), mpiByte = new Object(), mpiInt = new Object();
        RowSpec s = spec(p, HandleKind.COMMUNICATOR, "mpi.Intracomm", null, "MPI_COMM_WORLD");
        s.flags = RegistryLayout.F_PREDEFINED;
        s.i0 = 0;
        s.i1 = WORLD_SIZE;
        s.members = range(0, WORLD_SIZE);
        r.addPredefined(world, s);
        s = spec(p, HandleKind.ERRHANDLER, "mpi.Errhandler", null, "MPI_ERRORS_RETURN");
        s.flags = RegistryLayout.F_PREDEFINED;
        r.addPredefined(errorsReturn, s);
        s = spec(p, HandleKind.DATATYPE, "mpi.Datatype", null, "MPI_BYTE");
        s.flags = RegistryLayout.F_PREDEFINED | RegistryLayout.F_COMMITTED;
        s.l0 = s.l1 = 1;
        r.addPredefined(mpiByte, s);
        s = spec(p, HandleKind.DATATYPE, "mpi.Datatype", null, "MPI_INT");
        s.flags = RegistryLayout.F_PREDEFINED | RegistryLayout.F_COMMITTED;
        s.l0 = s.l1 = 4;
        r.addPredefined(mpiInt, s);

        handles = new Object[PREDEFINED + communicators + datatypes];
        handles[0] = world;
        handles[1] = errorsReturn;
        handles[2] = mpiByte;
        handles[3] = mpiInt;
        int at = PREDEFINED;
        Object[] comms = new Object[Math.max(communicators, 1)];
        comms[0] = world;
        for (int i = 0; i < communicators; i++) {
            Object c = new HandleWrapper();
            s = spec(p, HandleKind.COMMUNICATOR, "mpi.Intracomm", "split", null);
            s.i0 = 0;
            s.i1 = 8;
            s.members = range(8 * (i % 8), 8);
            s.ref0 = errorsReturn;
            s.derivedFrom = world;
            s.stack = SITES[i % 2];
            r.add(c, s);
            comms[i] = c;
            handles[at++] = c;
        }
        for (int i = 0; i < datatypes; i++) {
            Object t = new HandleWrapper();
            s = spec(p, HandleKind.DATATYPE, "mpi.Datatype", i % 2 == 0 ? "createContiguous" : "createVector", null);
            s.l0 = 4L * (i + 2);
            s.l1 = 4L * (i + 2);
            s.parents = new Object[] {mpiInt};
            s.stack = SITES[2];
            r.add(t, s);
            r.committed(t);
            handles[at++] = t;
        }

        requests = new RequestWrapper[wrappers];
        Object buffer = new byte[8];
        long handleSum = 0;
        for (int i = 0; i < Math.max(wrappers, requestCount); i++) {
            RequestWrapper w = new RequestWrapper();
            w.handle = 0x7f00_0000_0000L + 64L * i;
            w.peer = i % WORLD_SIZE;
            w.tag = i % 1000;
            w.comm = comms[i % comms.length];
            w.buffer = buffer;
            w.count = 8;
            w.datatype = mpiByte;
            if (i < wrappers) {
                requests[i] = w;
                handleSum += w.handle;
            }
            // keyed by native handle, as for Open MPI: the registry keeps no reference to the wrapper
            if (i < requestCount) {
                r.addRequest(w, w.handle, p, "mpi.Request", i % 2 == 0 ? "iRecv" : "iSend", w.peer, w.tag, w.comm,
                        false);
            }
        }

        System.out.println(READY + " live=" + live + " requests=" + requestCount + " communicators=" + communicators
                + " datatypes=" + datatypes + " sideRows=" + (1 + communicators + datatypes) + " wrappers=" + wrappers
                + " handleSum=" + handleSum);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static RowSpec spec(int proc, HandleKind kind, String cls, String call, String name) {
        RowSpec s = new RowSpec(kind);
        s.proc = proc;
        s.bindingClass = cls;
        s.call = call;
        s.name = name;
        return s;
    }

    private static int[] range(int from, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) out[i] = from + i;
        return out;
    }
}
