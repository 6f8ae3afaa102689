package io.mpilens.headless.testing;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.Topology;
import java.util.List;

/** Hand-built snapshots for output tests. */
public final class Snapshots {
    private Snapshots() {
    }

    public static final AgentHealth HEALTHY = new AgentHealth("0.1.0", 0, null, 0, true, 0);

    /** Rank 0 of 4: COMM_WORLD, a freed cartesian communicator kept alive by a pending iSend. */
    public static ProcessSnapshot ring() {
        HandleInfo world = HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(0).name("MPI_COMM_WORLD")
                .predefined(true).bindingClass("mpi.Intracomm").cHandle(0x7f3a00c0L).rank(0).size(4)
                .members(new int[] {0, 1, 2, 3}).build();
        HandleInfo grid = HandleInfo.builder(17, HandleKind.COMMUNICATOR).ownerRank(0).bindingClass("mpi.CartComm")
                .creatingCall("createCart").state(Lifecycle.FREED).refCount(1).heldBy(new long[] {23})
                .creationStack(List.of("demo.Ring.main(Ring.java:42)", "demo.Launcher.run(Launcher.java:7)"))
                .rank(0).size(4).members(new int[] {0, 1, 2, 3})
                .topology(Topology.cartesian(new int[] {2, 2}, new boolean[] {true, false}))
                .errhandler(2).derivedFrom(1).build();
        HandleInfo send = HandleInfo.builder(23, HandleKind.REQUEST).ownerRank(0).bindingClass("mpi.Request")
                .creatingCall("iSend").peer(1).tag(7).communicator(17).build();
        HandleInfo released = HandleInfo.builder(12, HandleKind.GROUP).ownerRank(0).creatingCall("getGroup")
                .state(Lifecycle.RELEASED).creationStack(List.of("demo.Ring.main(Ring.java:60)")).build();
        return new ProcessSnapshot(0, 4, 4242, "node1", "openmpi", MpiState.INITIALIZED, 1, HEALTHY,
                List.of(world, grid, send), List.of(released), 0);
    }
}
