package io.mpilens.plugin.model;

import io.mpilens.headless.ft.ProcessState;
import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import java.util.ArrayList;
import java.util.List;

/** Snapshots shaped like a 4-rank HandleTour at its "orphans" pause. */
final class Fixtures {
    static final String SITE_SPLIT = "io.mpilens.examples.openmpi.HandleTour.main(HandleTour.java:46)";

    private Fixtures() {
    }

    static ProcessSnapshot rank(int rank, String host, List<HandleInfo> handles) {
        return new ProcessSnapshot(rank, 4, 1000 + rank, host, "openmpi", MpiState.INITIALIZED, 1,
                new AgentHealth("test", 0, null, 0), handles, List.of(), 0);
    }

    static HandleInfo world(int owner) {
        return HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(owner).name("MPI_COMM_WORLD").predefined(true)
                .rank(owner).size(4).members(new int[] {0, 1, 2, 3}).cHandle(0x7f00aa00L).build();
    }

    /** split(rank % 2): freed, still held by the pending receive #31. */
    static HandleInfo split(int owner) {
        int[] members = owner % 2 == 0 ? new int[] {0, 2} : new int[] {1, 3};
        return HandleInfo.builder(22, HandleKind.COMMUNICATOR).ownerRank(owner).name("tour-split-" + owner % 2)
                .state(Lifecycle.FREED).refCount(1).heldBy(new long[] {31}).rank(owner / 2).size(2).members(members)
                .derivedFrom(1).creatingCall("split").creationStack(List.of(SITE_SPLIT)).cHandle(0x5550L + owner)
                .build();
    }

    /** What a shrink after rank 2 died leaves: the survivors, derived from COMM_WORLD. */
    static HandleInfo shrunk(int owner) {
        return HandleInfo.builder(40, HandleKind.COMMUNICATOR).ownerRank(owner).name("survivors").rank(owner == 3 ? 2 : owner)
                .size(3).members(new int[] {0, 1, 3}).derivedFrom(1).creatingCall("shrink").build();
    }

    static HandleInfo recv(int owner) {
        return HandleInfo.builder(31, HandleKind.REQUEST).ownerRank(owner).creatingCall("iRecv").peer(owner / 2)
                .tag(77).communicator(22).creationStack(List.of("HandleTour.main(HandleTour.java:66)")).build();
    }

    static JobView tour(ProcessState... states) {
        List<RankView> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            ProcessSnapshot p = rank(r, r < 2 ? "node-a" : "node-b", List.of(world(r), split(r), recv(r)));
            ProcessState s = states.length > r ? states[r] : ProcessState.OK;
            ranks.add(new RankView("rank JVM " + r, p, s, false, s == ProcessState.OK ? null : "gone"));
        }
        return new JobView("HandleTour", ranks);
    }
}
