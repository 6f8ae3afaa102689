package io.mpilens.headless.testing;

import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.agent.registry.RowSpec;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.registry.RegistryLayout;
import java.util.List;

/**
 * Rank 1 of 2 with a handful of handles, published through the agent's real registry the way
 * its interception does, so a reader sees exactly what it would see in an MPI application:
 * COMM_WORLD, an errhandler, a split communicator freed while an iSend on it is pending (an
 * orphan), a committed contiguous datatype, and a group freed outright (in the history).
 */
public final class RegistryTarget {
    static final Object WORLD = new Object(), ERRORS_RETURN = new Object(), ROW = new Object(),
            SEND = new Object(), MPI_INT = new Object(), PAIR = new Object(), GROUP = new Object();
    /** Wrappers are tracked weakly: keep them reachable. */
    static final List<Object> KEEP = List.of(WORLD, ERRORS_RETURN, ROW, SEND, MPI_INT, PAIR, GROUP);

    public static void main(String[] args) throws InterruptedException {
        HandleRegistry r = HandleRegistry.INSTANCE;
        r.configure("test-agent", "openmpi", false);
        int p = r.process(RegistryTarget.class.getClassLoader());
        r.processInitialized(p, 1, 2);

        RowSpec world = spec(p, HandleKind.COMMUNICATOR, "mpi.Intracomm", null, "MPI_COMM_WORLD");
        world.flags = RegistryLayout.F_PREDEFINED | RegistryLayout.F_HAS_CHANDLE;
        world.cHandle = 0x7f3a00c0L;
        world.i0 = 1;
        world.i1 = 2;
        world.members = new int[] {0, 1};
        r.addPredefined(WORLD, world);

        RowSpec eh = spec(p, HandleKind.ERRHANDLER, "mpi.Errhandler", null, "MPI_ERRORS_RETURN");
        eh.flags = RegistryLayout.F_PREDEFINED;
        r.addPredefined(ERRORS_RETURN, eh);

        RowSpec row = spec(p, HandleKind.COMMUNICATOR, "mpi.Intracomm", "split", null);
        row.i0 = 0;
        row.i1 = 1;
        row.members = new int[] {1};
        row.ref0 = ERRORS_RETURN;
        row.derivedFrom = WORLD;
        row.stack = new String[] {"demo.Ring.main(Ring.java:42)", "demo.Launcher.run(Launcher.java:7)"};
        r.add(ROW, row);
        r.addRequest(SEND, 0L, p, "mpi.Request", "iSend", 0, 7, ROW, false);
        r.freed(ROW);

        RowSpec intType = spec(p, HandleKind.DATATYPE, "mpi.Datatype", null, "MPI_INT");
        intType.flags = RegistryLayout.F_PREDEFINED | RegistryLayout.F_COMMITTED;
        intType.l0 = 4;
        intType.l1 = 4;
        r.addPredefined(MPI_INT, intType);
        RowSpec pair = spec(p, HandleKind.DATATYPE, "mpi.Datatype", "createContiguous", null);
        pair.l0 = 8;
        pair.l1 = 8;
        pair.parents = new Object[] {MPI_INT};
        pair.stack = new String[] {"demo.Ring.main(Ring.java:50)"};
        r.add(PAIR, pair);
        r.committed(PAIR);

        RowSpec group = spec(p, HandleKind.GROUP, "mpi.Group", "getGroup", null);
        group.stack = new String[] {"demo.Ring.main(Ring.java:60)"};
        r.add(GROUP, group);
        r.freed(GROUP);

        System.out.println(TargetJvm.READY);
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
}
