package io.mpilens.plugin.model;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.ProcessState;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CommunicatorBoxesTest {
    @Test
    void oneBoxPerCommunicatorAcrossRanksWithACellPerMember() {
        List<Box> boxes = CommunicatorBoxes.of(Fixtures.tour());
        assertEquals(List.of("MPI_COMM_WORLD", "tour-split-0", "tour-split-1"),
                boxes.stream().map(Box::title).collect(Collectors.toList()));
        assertEquals(List.of("r0", "r1", "r2", "r3"),
                boxes.get(0).cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        assertEquals(List.of("r0", "r2"), boxes.get(1).cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        assertEquals("OK", boxes.get(0).state());
    }

    /** Both sides of an intercommunicator make one box of both groups, named in the subtitle. */
    @Test
    void anIntercommunicatorIsOneBoxOfBothGroups() {
        JobView tour = Fixtures.tour();
        List<RankView> ranks = new java.util.ArrayList<>();
        for (RankView r : tour.ranks()) {
            List<io.mpilens.api.model.HandleInfo> hs = new java.util.ArrayList<>(r.process().handles());
            boolean first = r.rank() == 0 || r.rank() == 3;
            hs.add(io.mpilens.api.model.HandleInfo.builder(50, io.mpilens.api.model.HandleKind.COMMUNICATOR)
                    .ownerRank(r.rank()).name("bridge").creatingCall("createIntercomm").derivedFrom(1).inter(true).size(2)
                    .members(first ? new int[] {0, 3} : new int[] {2, 1})
                    .remoteMembers(first ? new int[] {2, 1} : new int[] {0, 3}).build());
            ranks.add(new RankView(r.target(), Fixtures.rank(r.rank(), r.host(), hs), r.state(), false, r.problem()));
        }
        List<Box> bridges = CommunicatorBoxes.of(new JobView("HandleTour", ranks)).stream()
                .filter(b -> b.title().equals("bridge")).toList();
        assertEquals(1, bridges.size());
        assertEquals(List.of("r0", "r3", "r2", "r1"), bridges.get(0).cells().stream().map(Box.Cell::label).toList());
        assertEquals("size 4, inter: [0, 3] | [2, 1], from MPI_COMM_WORLD", bridges.get(0).subtitle());
    }

    @Test
    void lineageAndOrphansAreInTheSubtitle() {
        Box split0 = CommunicatorBoxes.of(Fixtures.tour()).get(1);
        assertEquals("size 2, from MPI_COMM_WORLD, orphan on all ranks", split0.subtitle());
    }

    @Test
    void aFailedMemberColoursItsCellAndMarksItsCommunicatorsDetected() {
        ProcessState ok = ProcessState.OK;
        List<Box> boxes = CommunicatorBoxes.of(Fixtures.tour(ok, ok, ProcessState.FAILED, ok));
        Box world = boxes.get(0), split0 = boxes.get(1), split1 = boxes.get(2);
        assertEquals("DETECTED", world.state());
        assertEquals(StatePalette.border(CommState.DETECTED), world.border());
        Box.Cell r2 = world.cells().get(2);
        assertEquals("FAILED", r2.detail());
        assertEquals(StatePalette.fill(ProcessState.FAILED), r2.fill());
        assertTrue(r2.tooltip().startsWith("rank 2: FAILED \u2014 pid 1002 on node-b \u2014 gone"), r2.tooltip());
        assertEquals("DETECTED", split0.state());
        assertEquals("OK", split1.state());
    }

    @Test
    void aCommunicatorRebuiltFromTheSurvivorsIsRecovered() {
        ProcessState ok = ProcessState.OK;
        JobView before = Fixtures.tour(ok, ok, ProcessState.FAILED, ok);
        List<RankView> ranks = new java.util.ArrayList<>();
        for (RankView r : before.ranks()) {
            java.util.List<io.mpilens.api.model.HandleInfo> hs = new java.util.ArrayList<>(r.process().handles());
            if (r.rank() != 2) hs.add(Fixtures.shrunk(r.rank()));
            ranks.add(new RankView(r.target(), Fixtures.rank(r.rank(), r.host(), hs), r.state(), false, r.problem()));
        }
        List<Box> boxes = CommunicatorBoxes.of(new JobView("HandleTour", ranks));
        Box world = boxes.get(0);
        assertEquals("MPI_COMM_WORLD", world.title());
        assertEquals("RECOVERED", world.state());
        assertEquals(StatePalette.border(CommState.RECOVERED), world.border());
        assertEquals("size 4, recovered by survivors", world.subtitle());
        Box survivors = boxes.stream().filter(b -> b.title().equals("survivors")).findFirst().orElseThrow();
        assertEquals("OK", survivors.state());
        assertEquals(List.of("r0", "r1", "r3"), survivors.cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
    }

    @Test
    void hostsGroupTheirProcessesAndArePartialWhenOneFailed() {
        ProcessState ok = ProcessState.OK;
        List<Box> hosts = HostBoxes.of(Fixtures.tour(ok, ok, ProcessState.FAILED, ok));
        assertEquals(List.of("node-a", "node-b"), hosts.stream().map(Box::title).collect(Collectors.toList()));
        assertEquals("UP", hosts.get(0).state());
        assertEquals("PARTIAL", hosts.get(1).state());
        assertEquals(List.of("rank 2", "rank 3"), hosts.get(1).cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        assertEquals("pid 1002", hosts.get(1).cells().get(0).detail());
    }
}
