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

    private static final int U = io.mpilens.api.model.HandleInfo.UNKNOWN;

    private static io.mpilens.api.model.HandleInfo comm(int owner, long id, String call, long from, int[] members,
                                                        int[] remote, String name) {
        io.mpilens.api.model.HandleInfo.Builder b = io.mpilens.api.model.HandleInfo.builder(id,
                io.mpilens.api.model.HandleKind.COMMUNICATOR).ownerRank(owner).creatingCall(call).size(members.length)
                .members(members).derivedFrom(from).name(name);
        if (remote != null) b.inter(true).remoteMembers(remote);
        return b.build();
    }

    /**
     * A REBUILD as the registries hold it (rank 2 dead; 0 1 3 createGroup, spawn, merge, split; the
     * spawned JVM, a debug target of its own, numbered by its own COMM_WORLD of one): the views get it
     * from {@code headless.ft}, which places it as rank 2's epoch 1.
     */
    private static JobView rebuild(boolean childInitialized) {
        List<RankView> ranks = new java.util.ArrayList<>();
        for (int r = 0; r < 4; r++) {
            List<io.mpilens.api.model.HandleInfo> hs = new java.util.ArrayList<>(List.of(Fixtures.world(r)));
            if (r != 2) {
                hs.add(comm(r, 9, "createGroup", 1, new int[] {0, 1, 3}, null, "survivors"));
                if (childInitialized) {
                    hs.add(comm(r, 10, "spawn", 9, new int[] {0, 1, 3}, new int[] {U}, null));
                    hs.add(comm(r, 11, "merge", 10, new int[] {0, 1, 3, U}, null, null));
                    hs.add(comm(r, 12, "split", 11, new int[] {0, 1, U, 3}, null, "rebuilt"));
                }
            }
            ProcessState s = r == 2 ? ProcessState.FAILED : ProcessState.OK;
            ranks.add(new RankView("rank " + r, Fixtures.rank(r, "node-a", hs), s, false, r == 2 ? "process gone" : null));
        }
        List<io.mpilens.api.model.HandleInfo> mine = new java.util.ArrayList<>();
        if (childInitialized) {
            mine.add(io.mpilens.api.model.HandleInfo.builder(1, io.mpilens.api.model.HandleKind.COMMUNICATOR).ownerRank(0)
                    .name("MPI_COMM_WORLD").predefined(true).size(1).members(new int[] {0}).build());
            mine.add(comm(0, 40, "getParent", 0, new int[] {0}, new int[] {U, U, U}, "MPI_COMM_PARENT"));
            mine.add(comm(0, 41, "merge", 40, new int[] {U, U, U, 0}, null, null));
            mine.add(comm(0, 42, "split", 41, new int[] {U, U, 0, U}, null, "rebuilt"));
        }
        io.mpilens.api.model.ProcessSnapshot child = new io.mpilens.api.model.ProcessSnapshot(childInitialized ? 0 : U, 1,
                4711, "node-a", "openmpi", childInitialized ? io.mpilens.api.model.MpiState.INITIALIZED
                : io.mpilens.api.model.MpiState.NOT_INITIALIZED, 1, new io.mpilens.api.model.AgentHealth("test", 0, null, 0),
                mine, List.of(), 0);
        java.time.Instant t0 = java.time.Instant.parse("2026-01-01T00:00:00Z");
        io.mpilens.headless.job.JobRecord record = new io.mpilens.headless.job.JobRecord("job", 0, 1, 4711, 99, "node-a",
                "127.0.0.1:4711", "openmpi", 0, t0, t0, childInitialized ? "INITIALIZED" : "STARTING", "test",
                java.nio.file.Path.of("spawned-ns2-0.json"), null, "job", "ns2");
        ProcessState childState = childInitialized ? ProcessState.OK : ProcessState.JOINING;
        ranks.add(new RankView("rank 2 replacement", child, childState, false, childInitialized ? null : "before MPI_Init",
                null, record));
        return new JobView("rebuild", ranks);
    }

    @Test
    void aJoiningReplacementIsNamedInTheFailedMembersCell() {
        JobView job = rebuild(false);
        Box world = CommunicatorBoxes.of(job).get(0);
        assertEquals("MPI_COMM_WORLD", world.title());
        assertEquals(List.of("r0", "r1", "r2", "r3"), world.cells().stream().map(Box.Cell::label).toList());
        assertEquals("FAILED \u2192 epoch 1 JOINING", world.cells().get(2).detail());
        assertEquals(StatePalette.fill(ProcessState.FAILED), world.cells().get(2).fill());
        assertTrue(world.cells().get(2).tooltip().endsWith("replaced by pid 4711, epoch 1 (JOINING)"), world.cells().get(2).tooltip());
        assertEquals(U, job.ranks().get(4).rank(), "a spawned process is no rank of the job by its own numbering");
        assertTrue(job.summary().startsWith("rebuild \u2014 4 ranks + 1 spawned, "), job.summary());
        Box.Cell host = HostBoxes.of(job).get(0).cells().stream().filter(c -> c.label().equals("rank 2 epoch 1")).findFirst()
                .orElseThrow();
        assertEquals(StatePalette.fill(ProcessState.JOINING), host.fill());
        assertEquals("pid 4711", host.detail());
    }

    @Test
    void theReplacementIsTheFailedRanksNextEpochInTheCommunicatorsBuiltWithIt() {
        List<Box> boxes = CommunicatorBoxes.of(rebuild(true));
        java.util.Map<String, Box> byTitle = new java.util.LinkedHashMap<>();
        for (Box b : boxes) byTitle.put(b.title(), b);
        Box world = byTitle.get("MPI_COMM_WORLD");
        assertEquals("RECOVERED (rebuilt)", world.state());
        assertEquals(StatePalette.border(CommState.RECOVERED), world.border());
        assertEquals("FAILED \u2192 epoch 1 OK", world.cells().get(2).detail());
        Box rebuilt = byTitle.get("rebuilt");
        assertEquals(List.of("r0", "r1", "2 \u2190 pid 4711, epoch 1", "r3"), rebuilt.cells().stream().map(Box.Cell::label).toList());
        assertEquals("OK", rebuilt.cells().get(2).detail());
        assertTrue(rebuilt.cells().get(2).tooltip().startsWith("rank 2 epoch 1: OK \u2014 pid 4711 on node-a"),
                rebuilt.cells().get(2).tooltip());
        String merged = rebuilt.subtitle().substring(rebuilt.subtitle().indexOf("from ") + 5);
        assertEquals("size 4, recovered by survivors, rebuilt with replacements as " + merged + ", rebuilt", world.subtitle());
        assertTrue(byTitle.containsKey(merged), merged + " in " + byTitle.keySet());
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
