package io.mpilens.headless.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.testing.RebuildJob;
import io.mpilens.headless.testing.Snapshots;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * REBUILD from hand-built snapshots shaped like the registries of a real rebuild (4 ranks, rank 2
 * dead, survivors 0 1 3 spawn one JVM and merge with it): each side's binding names a process
 * outside its own COMM_WORLD with a negative rank ({@code MPI_UNDEFINED}).
 */
class ReplacementsTest {
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    static HandleInfo comm(int owner, long id, String call, long from, int[] members, int[] remote, String name) {
        return RebuildJob.comm(owner, id, call, from, members, remote, name);
    }

    static HandleInfo world(int owner, int[] members) {
        return RebuildJob.world(owner, members);
    }

    private static ProcessSnapshot survivor(int r, boolean rebuilt) {
        return RebuildJob.survivor(r, rebuilt, "rebuilt");
    }

    static ProcessSnapshot child(boolean initialized) {
        return RebuildJob.child(initialized, "rebuilt");
    }

    static RankStatus status(int r, ProcessState s, long pid, ProcessSnapshot p) {
        return RebuildJob.status(r, s, pid, p);
    }

    static JobModel model(boolean rebuilt, ProcessState childState, ProcessSnapshot child, Timeline t) {
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        for (int r : new int[] {0, 1, 3}) {
            ProcessSnapshot p = survivor(r, rebuilt);
            views.put(r, p);
            ranks.add(status(r, ProcessState.OK, 100 + r, p));
        }
        ranks.add(status(2, ProcessState.FAILED, 102, null));
        List<Replacements.Spawned> spawned = List.of(new Replacements.Spawned(status(0, childState, 500, child), "ns2"));
        Replacements.Placed placed = Replacements.place(ranks, views, spawned);
        return FaultModel.build("j", T0, placed.ranks(), placed.views(), null, t);
    }

    @Test
    void theReplacementIsTheFailedRanksNextEpochAndJoinsBeforeMpiInit() {
        JobModel m = model(false, ProcessState.JOINING, child(false), null);
        assertEquals(ProcessState.FAILED, m.rank(2).orElseThrow().state(), "the first incarnation stays listed, FAILED");
        RankStatus next = m.replacement(2).orElseThrow();
        assertEquals(1, next.epoch());
        assertEquals(500, next.pid());
        assertEquals(ProcessState.JOINING, next.state());
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(List.of(2), world.failed(), "COMM_WORLD's member 2 is the dead process");
        assertFalse(world.rebuilt());
    }

    @Test
    void bothSidesNameEachOthersMembersAndTheWorldIsRebuilt() {
        JobModel m = model(true, ProcessState.OK, child(true), null);
        CommunicatorView rebuilt = m.communicator("rebuilt").orElseThrow(() -> new AssertionError(m.communicators().toString()));
        assertEquals(List.of(0, 1, 2, 3), rebuilt.members(), "the U of the survivors is the child; the child's U's the survivors");
        assertEquals(List.of(0, 1, 2, 3), rebuilt.seenBy());
        assertEquals(Map.of(2, 1), rebuilt.epochs());
        assertEquals(CommState.OK, rebuilt.state(), "its member 2 is the live replacement");
        CommunicatorView merged = m.communicators().stream().filter(c -> "merge".equals(c.key().replaceAll(".*/(\\w+)\\[.*", "$1")))
                .findFirst().orElseThrow();
        assertEquals(List.of(0, 1, 3, 2), merged.members());
        CommunicatorView spawn = m.communicators().stream().filter(CommunicatorView::inter).findFirst().orElseThrow();
        assertEquals(List.of(List.of(0, 1, 3), List.of(2)), spawn.groups(), "the child's getParent side is the same communicator");
        assertEquals(List.of(0, 1, 2, 3), spawn.seenBy());
        assertEquals(1, m.communicators().stream().filter(CommunicatorView::inter).count(), m.communicators().toString());
        assertFalse(m.communicators().stream().anyMatch(c -> c.members().equals(List.of(2))),
                "the child's own COMM_WORLD of one is not a communicator of the job: " + m.communicators());

        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(CommState.RECOVERED, world.state());
        assertEquals(List.of(2), world.failed());
        assertEquals(List.of(merged.key(), rebuilt.key()), world.rebuiltBy(), "intracommunicators of all four, 2 replaced");
        assertTrue(world.recoveredBy().contains(m.communicator("survivors").orElseThrow().key()), "and the shrink before it");
    }

    @Test
    void theFailedRanksLastViewIsNotItsReplacements() {
        // read before it died, rank 2's last view still holds COMM_WORLD; its replacement is not read yet
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        for (int r : new int[] {0, 1, 3}) {
            views.put(r, survivor(r, false));
            ranks.add(status(r, ProcessState.OK, 100 + r, views.get(r)));
        }
        views.put(2, new ProcessSnapshot(2, 4, 102, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                List.of(world(2, new int[] {0, 1, 2, 3})), List.of(), 0));
        ranks.add(status(2, ProcessState.FAILED, 102, null));
        Replacements.Placed placed = Replacements.place(ranks, views,
                List.of(new Replacements.Spawned(status(0, ProcessState.UNAVAILABLE, 500, null), "ns2")));
        JobModel m = FaultModel.build("j", T0, placed.ranks(), placed.views(), null, null);
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(List.of(2), world.failed(), "its member 2 is still the dead process: " + world);
        assertEquals(CommState.RECOVERED, world.state(), "by the survivors' createGroup");
        assertEquals(Map.of(), world.epochs());
    }

    @Test
    void aSpawnedProcessWithNoFailedRankToReplaceIsNotPlaced() {
        List<RankStatus> ranks = List.of(status(0, ProcessState.OK, 100, null), status(1, ProcessState.OK, 101, null));
        Replacements.Placed placed = Replacements.place(ranks, Map.of(),
                List.of(new Replacements.Spawned(status(0, ProcessState.OK, 500, child(true)), "ns2")));
        assertEquals(ranks, placed.ranks());
    }

    @Test
    void theTimelineFollowsTheReplacementAsASubjectOfItsOwn() {
        Timeline t = new Timeline();
        model(false, ProcessState.JOINING, child(false), t);
        model(true, ProcessState.OK, child(true), t);
        assertTrue(t.transitions().stream().anyMatch(x -> x.subject().equals("rank 2 epoch 1") && "JOINING".equals(x.from())
                && "OK".equals(x.to())), t.transitions().toString());
        assertTrue(t.transitions().stream().noneMatch(x -> x.subject().equals("rank 2") && x.from() != null),
                "rank 2 stays FAILED: " + t.transitions());
        assertTrue(t.transitions().stream().anyMatch(x -> x.subject().equals("comm MPI_COMM_WORLD") && "RECOVERED (rebuilt)".equals(x.to())
                && "RECOVERED".equals(x.from())
                && x.why().contains("rebuilt with replacements")), t.transitions().toString());
    }
}
