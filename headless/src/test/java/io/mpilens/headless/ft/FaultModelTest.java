package io.mpilens.headless.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.testing.Snapshots;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The job model from hand-built rank states and snapshots: the rules users rely on. */
class FaultModelTest {
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    /** Rank r of 4: COMM_WORLD, plus a communicator from createGroup on the live ranks when given. */
    private static ProcessSnapshot rank(int r, int[] rebuilt) {
        List<HandleInfo> hs = new ArrayList<>();
        hs.add(HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(r).name("MPI_COMM_WORLD").predefined(true)
                .rank(r).size(4).members(new int[] {0, 1, 2, 3}).build());
        hs.add(HandleInfo.builder(2, HandleKind.COMMUNICATOR).ownerRank(r).name("MPI_COMM_SELF").predefined(true)
                .rank(0).size(1).members(new int[] {r}).build());
        if (rebuilt != null) {
            hs.add(HandleInfo.builder(9, HandleKind.COMMUNICATOR).ownerRank(r).creatingCall("createGroup")
                    .size(rebuilt.length).members(rebuilt).derivedFrom(1).build());
        }
        return new ProcessSnapshot(r, 4, 100 + r, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                hs, List.of(), 0);
    }

    private static RankStatus status(int r, ProcessState s) {
        return new RankStatus(r, 0, 100 + r, 99, "node1", "127.0.0.1:" + (4000 + r), s, "test", 5, null);
    }

    private static JobModel model(Map<Integer, ProcessState> states, Map<Integer, ProcessSnapshot> views, Timeline t) {
        List<RankStatus> ranks = new ArrayList<>();
        states.forEach((r, s) -> ranks.add(status(r, s)));
        return FaultModel.build("j", T0, ranks, views, (h, pid) -> new HostView.Daemon(pid, "orterun", true), t);
    }

    private static Map<Integer, ProcessState> allOk() {
        Map<Integer, ProcessState> m = new HashMap<>();
        for (int r = 0; r < 4; r++) m.put(r, ProcessState.OK);
        return m;
    }

    private static Map<Integer, ProcessSnapshot> views(int[] rebuilt, int... ranks) {
        Map<Integer, ProcessSnapshot> m = new HashMap<>();
        for (int r : ranks) m.put(r, rank(r, rebuilt));
        return m;
    }

    @Test
    void aHealthyJobHasWorldOkAndNoSelfCommunicators() {
        JobModel m = model(allOk(), views(null, 0, 1, 2, 3), null);
        assertEquals(1, m.communicators().size(), "COMM_SELF is left out: " + m.communicators());
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(CommState.OK, world.state());
        assertEquals(List.of(0, 1, 2, 3), world.seenBy());
        assertEquals(HostState.UP, m.hosts().get(0).state());
    }

    @Test
    void anMpiExceptionOnWorldMakesItDetectedBeforeAnyMemberIsKnownDead() {
        Map<Integer, ProcessSnapshot> v = views(null, 0, 1, 2, 3);
        ProcessSnapshot r1 = v.get(1);
        v.put(1, new ProcessSnapshot(1, 4, 101, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                r1.handles(), List.of(), 0, List.of(new MpiError(5, 1, "Send", 1, 2, HandleInfo.UNKNOWN,
                        HandleInfo.UNKNOWN, "java.nio.channels.ClosedChannelException", null))));
        JobModel m = model(allOk(), v, null);
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(CommState.DETECTED, world.state());
        assertEquals(List.of(1), world.raisedOn());
        assertEquals(List.of(), world.failed());
        // the cause says the binding closed its channels (MPJ niodev): nothing can be sent on it from rank 1
        assertEquals(List.of(1), m.failedOn(world.key()));
        assertEquals(List.of(), m.failedOn("no such key"));
    }

    @Test
    void aClosedTransportMakesTheCommunicatorFailedOnThatRankAfterDetected() {
        Timeline t = new Timeline();
        Map<Integer, ProcessState> s = allOk();
        s.put(2, ProcessState.FAILED);
        model(s, views(null, 0, 1, 3), t);
        Map<Integer, ProcessSnapshot> v = views(null, 0, 1, 3);
        ProcessSnapshot r3 = v.get(3);
        v.put(3, new ProcessSnapshot(3, 4, 103, "node1", "mpj-niodev", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                r3.handles(), List.of(), 0, List.of(new MpiError(5, 3, "Send", 1, 2, HandleInfo.UNKNOWN,
                        HandleInfo.UNKNOWN, "java.nio.channels.ClosedChannelException", null))));
        JobModel m = model(s, v, t);
        assertEquals(List.of(3), m.failedOn("MPI_COMM_WORLD"));
        List<String> world = new ArrayList<>();
        for (Transition x : t.transitions()) if (x.subject().startsWith("comm MPI_COMM_WORLD")) world.add(x.subject() + "=" + x.to());
        assertEquals(List.of("comm MPI_COMM_WORLD=DETECTED", "comm MPI_COMM_WORLD on rank 3=FAILED"), world);
    }

    @Test
    void aFailedMemberMakesWorldDetected() {
        Map<Integer, ProcessState> s = allOk();
        s.put(2, ProcessState.FAILED);
        JobModel m = model(s, views(null, 0, 1, 3), null);
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(CommState.DETECTED, world.state());
        assertEquals(List.of(2), world.failed());
        assertEquals(HostState.PARTIAL, m.hosts().get(0).state());
    }

    @Test
    void anUnavailableMemberIsASuspectNotAFailure() {
        Map<Integer, ProcessState> s = allOk();
        s.put(1, ProcessState.UNAVAILABLE);
        JobModel m = model(s, views(null, 0, 2, 3), null);
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(CommState.OK, world.state());
        assertEquals(List.of(1), world.unavailable());
        assertEquals(HostState.UP, m.hosts().get(0).state());
    }

    @Test
    void aCommunicatorOfExactlyTheSurvivorsDerivedFromWorldRecoversIt() {
        Map<Integer, ProcessState> s = allOk();
        s.put(2, ProcessState.FAILED);
        JobModel m = model(s, views(new int[] {0, 1, 3}, 0, 1, 3), null);
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        CommunicatorView rebuilt = m.communicator("createGroup(MPI_COMM_WORLD)").orElseThrow();
        assertEquals(CommState.RECOVERED, world.state());
        assertEquals(List.of(rebuilt.key()), world.recoveredBy());
        assertEquals(CommState.OK, rebuilt.state());
        assertEquals(world.key(), rebuilt.parent(), "lineage COMM_WORLD -> new");
        assertEquals(List.of(0, 1, 3), rebuilt.seenBy());
    }

    @Test
    void requestsPendingOnTheFailedPeerAreFlaggedOthersAreNot() {
        Map<Integer, ProcessState> s = allOk();
        s.put(2, ProcessState.FAILED);
        List<RankStatus> ranks = new ArrayList<>();
        for (int r : new int[] {0, 1, 3}) {
            ProcessSnapshot p = rank(r, null);
            List<HandleInfo> hs = new ArrayList<>(p.handles());
            // a receive from rank 2 (pending), one from rank 1 (pending, live peer), one from 2 already complete
            hs.add(HandleInfo.builder(20, HandleKind.REQUEST).ownerRank(r).creatingCall("iRecv").peer(2).tag(11)
                    .communicator(1).build());
            hs.add(HandleInfo.builder(21, HandleKind.REQUEST).ownerRank(r).creatingCall("iRecv").peer(1).tag(11)
                    .communicator(1).build());
            hs.add(HandleInfo.builder(22, HandleKind.REQUEST).ownerRank(r).creatingCall("iRecv").peer(2).tag(12)
                    .communicator(1).complete(true).build());
            ProcessSnapshot q = new ProcessSnapshot(r, 4, 100 + r, "node1", "openmpi", MpiState.INITIALIZED, 1,
                    Snapshots.HEALTHY, hs, List.of(), 0);
            ranks.add(new RankStatus(r, 0, 100 + r, 99, "node1", "a", ProcessState.OK, "answered", 5, q));
        }
        ranks.add(status(2, ProcessState.FAILED));
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        for (RankStatus r : ranks) if (r.snapshot() != null) views.put(r.rank(), r.snapshot());
        Timeline t = new Timeline();
        JobModel m = FaultModel.build("j", T0, ranks, views, null, t);
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(3, m.pendingOnFailed().size(), m.pendingOnFailed().toString());
        for (PendingOnFailedPeer p : m.pendingOnFailed()) {
            assertEquals(20, p.requestId(), p.toString());
            assertEquals(2, p.peer());
            assertEquals(11, p.tag());
            assertEquals("iRecv", p.call());
            assertEquals(world.key(), p.communicator());
        }
        assertEquals(List.of(0, 1, 3), m.pendingOnFailed(world.key()).stream().map(PendingOnFailedPeer::rank).toList());
        assertTrue(t.transitions().stream().anyMatch(x -> x.subject().equals("rank 3 requests on FAILED peers")
                && x.to().equals("1")), t.transitions().toString());
    }

    /** Ranks 0-3 of a job with an intercommunicator {@code bridge} (id 7) between [0, 3] and [2, 1]. */
    private static Map<Integer, ProcessSnapshot> withBridge() {
        Map<Integer, ProcessSnapshot> v = new HashMap<>();
        for (int r = 0; r < 4; r++) {
            boolean first = r == 0 || r == 3;
            ProcessSnapshot p = rank(r, null);
            List<HandleInfo> hs = new ArrayList<>(p.handles());
            hs.add(HandleInfo.builder(7, HandleKind.COMMUNICATOR).ownerRank(r).creatingCall("createIntercomm").name("bridge")
                    .derivedFrom(1).inter(true).size(2).members(first ? new int[] {0, 3} : new int[] {2, 1})
                    .remoteMembers(first ? new int[] {2, 1} : new int[] {0, 3}).build());
            v.put(r, new ProcessSnapshot(r, 4, 100 + r, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                    hs, List.of(), 0));
        }
        return v;
    }

    /** The job of {@link #withBridge()}, every rank OK and read (its snapshot in its status, as the wait-for analysis wants). */
    private static JobModel bridgeJob() {
        Map<Integer, ProcessSnapshot> v = withBridge();
        List<RankStatus> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            ranks.add(new RankStatus(r, 0, 100 + r, 99, "node1", "127.0.0.1:" + (4000 + r), ProcessState.OK, "test", 5,
                    v.get(r)));
        }
        return FaultModel.build("j", T0, ranks, v, (h, pid) -> new HostView.Daemon(pid, "orterun", true), null);
    }

    /**
     * An intercommunicator between [0, 3] and [2, 1]: each side's registry holds its own local
     * group and the other as remote, yet it is one communicator of all four ranks, the same key
     * on either side; a failed member of either group makes it DETECTED.
     */
    @Test
    void bothSidesOfAnIntercommunicatorAreOneCommunicatorOfBothGroups() {
        Map<Integer, ProcessSnapshot> v = withBridge();
        JobModel m = model(allOk(), v, null);
        List<CommunicatorView> bridges = m.communicators().stream().filter(c -> c.label().equals("bridge")).toList();
        assertEquals(1, bridges.size(), m.communicators().toString());
        CommunicatorView bridge = bridges.get(0);
        assertTrue(bridge.inter());
        assertEquals(List.of(List.of(0, 3), List.of(2, 1)), bridge.groups());
        assertEquals(List.of(0, 3, 2, 1), bridge.members());
        assertEquals(List.of(0, 1, 2, 3), bridge.seenBy());
        assertEquals(CommState.OK, bridge.state());

        Map<Integer, ProcessState> states = allOk();
        states.put(1, ProcessState.FAILED);
        v.remove(1);
        CommunicatorView after = model(states, v, null).communicators().stream()
                .filter(c -> c.label().equals("bridge")).findFirst().orElseThrow();
        assertEquals(CommState.DETECTED, after.state(), "a failed member of the remote group counts too");
        assertEquals(List.of(1), after.failed());
    }

    /**
     * A collective on an intercommunicator involves both groups: ranks 0 and 3 in a barrier on
     * {@code bridge} wait for ranks 2 and 1 of the other group, who wait on COMM_WORLD for rank 0
     * and for rank 2 — a deadlock (with each side's local group alone, the barrier looked complete).
     */
    @Test
    void aCollectiveOnAnIntercommunicatorWaitsForTheOtherGroupToo() {
        JobModel m = bridgeJob();
        List<InFlightCall> calls = List.of(
                new InFlightCall(0, "main", "mpi.Intercomm.barrier", "bridge", 7, -1, List.of(), false),
                new InFlightCall(3, "main", "mpi.Intercomm.barrier", "bridge", 7, -1, List.of(), false),
                new InFlightCall(2, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, 0, List.of(), false),
                new InFlightCall(1, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, 2, List.of(), false));
        WaitFor.Analysis a = WaitFor.of(m, calls, java.util.Set.of(0, 1, 2, 3));
        WaitFor.Wait barrier = a.waits().stream().filter(w -> w.call().rank() == 0).findFirst().orElseThrow();
        assertEquals(List.of(2, 1), barrier.on(), "the other group, in its order");
        assertEquals(List.of(0, 1, 2, 3), a.deadlocked());
        assertEquals(List.of(0, 1, 2, 0), a.cycle(), "0 waits in the barrier for 1, 1 receives from 2, 2 from 0");
    }

    /**
     * A synchronous send from one side of an intercommunicator pairs with the receive on the other
     * side: both name the same communicator (as two half communicators they never paired, and the
     * two ranks looked stuck on each other).
     */
    @Test
    void aSendAndAReceiveAcrossAnIntercommunicatorPair() {
        JobModel m = bridgeJob();
        List<InFlightCall> calls = List.of(
                new InFlightCall(0, "main", "mpi.Comm.sSend", "bridge", 7, 1, List.of(), false, null, false, 7),
                new InFlightCall(1, "main", "mpi.Comm.recv", "bridge", 7, 0, List.of(), false, null, false, 7));
        WaitFor.Analysis a = WaitFor.of(m, calls, java.util.Set.of(0, 1, 2, 3));
        assertEquals(List.of(), a.stuck(), a.waits().toString());
    }

    @Test
    void aSubsetThatHappensToLeaveTheDeadRankOutIsNoRecovery() {
        Map<Integer, ProcessState> s = allOk();
        s.put(2, ProcessState.FAILED);
        JobModel m = model(s, views(new int[] {1, 3}, 1, 3), null);
        assertEquals(CommState.DETECTED, m.communicator("MPI_COMM_WORLD").orElseThrow().state());
    }

    @Test
    void everyMemberFailedMeansFailed() {
        Map<Integer, ProcessState> s = new HashMap<>();
        for (int r = 0; r < 4; r++) s.put(r, ProcessState.FAILED);
        JobModel m = model(s, views(null, 0), null);
        assertEquals(CommState.FAILED, m.communicator("MPI_COMM_WORLD").orElseThrow().state());
        assertEquals(HostState.DOWN, m.hosts().get(0).state());
    }

    @Test
    void aHostNoneOfWhoseRanksCouldBeReadIsUnknownNotUp() {
        Map<Integer, ProcessState> s = allOk();
        for (int r = 0; r < 4; r++) s.put(r, ProcessState.UNAVAILABLE);
        assertEquals(HostState.UNKNOWN, model(s, views(null, 0), null).hosts().get(0).state());
        s.put(1, ProcessState.OK);
        assertEquals(HostState.UP, model(s, views(null, 0), null).hosts().get(0).state(), "one rank answered");
        s.put(1, ProcessState.FAILED);
        assertEquals(HostState.PARTIAL, model(s, views(null, 0), null).hosts().get(0).state(), "one rank is dead");
    }

    @Test
    void aGoneLauncherDaemonMakesTheHostPartial() {
        List<RankStatus> ranks = List.of(status(0, ProcessState.OK));
        JobModel m = FaultModel.build("j", T0, ranks, Map.of(), (h, pid) -> new HostView.Daemon(pid, "orted", false), null);
        assertEquals(HostState.PARTIAL, m.hosts().get(0).state());
        assertEquals("orted", m.hosts().get(0).daemons().get(0).command());
    }

    /** mpirun exits after a clean end: the host of a job that finished is not PARTIAL for it. */
    @Test
    void aLauncherGoneAfterEveryRankFinalizedLeavesTheHostUp() {
        List<RankStatus> done = List.of(status(0, ProcessState.FINALIZED), status(1, ProcessState.FINALIZED));
        JobModel m = FaultModel.build("j", T0, done, Map.of(), (h, pid) -> new HostView.Daemon(pid, "orterun", false), null);
        assertEquals(HostState.UP, m.hosts().get(0).state());
        List<RankStatus> oneLeft = List.of(status(0, ProcessState.FINALIZED), status(1, ProcessState.OK));
        m = FaultModel.build("j", T0, oneLeft, Map.of(), (h, pid) -> new HostView.Daemon(pid, "orterun", false), null);
        assertEquals(HostState.PARTIAL, m.hosts().get(0).state(), "a rank still running lost its launcher");
    }

    @Test
    void theTimelineRecordsEachChangeOnceInOrder() {
        Timeline t = new Timeline();
        model(allOk(), views(null, 0, 1, 2, 3), t);
        Map<Integer, ProcessState> s = allOk();
        s.put(2, ProcessState.UNAVAILABLE);
        model(s, views(null, 0, 1, 3), t);
        s.put(2, ProcessState.FAILED);
        model(s, views(null, 0, 1, 3), t);
        model(s, views(null, 0, 1, 3), t);
        List<String> rank2 = new ArrayList<>();
        for (Transition x : t.transitions()) if (x.subject().equals("rank 2")) rank2.add(x.from() + "->" + x.to());
        assertEquals(List.of("null->OK", "OK->UNAVAILABLE", "UNAVAILABLE->FAILED"), rank2);
        assertTrue(t.transitions().stream().anyMatch(x -> x.subject().equals("comm MPI_COMM_WORLD")
                && "DETECTED".equals(x.to()) && x.why().contains("[2]")));
    }

    @Test
    void noAnswerIsUnavailableNeverFailed() {
        for (Liveness.Outcome o : List.of(Liveness.Outcome.TIMED_OUT, Liveness.Outcome.REFUSED, Liveness.Outcome.NO_ADDRESS)) {
            assertEquals(ProcessState.UNAVAILABLE, Liveness.judge(o, null, true, false).state(), o.name());
            assertEquals(ProcessState.UNAVAILABLE, Liveness.judge(o, null, null, false).state(), o.name());
        }
    }

    @Test
    void failedNeedsEvidence() {
        assertEquals(ProcessState.FAILED, Liveness.judge(Liveness.Outcome.TIMED_OUT, null, false, false).state());
        assertEquals(ProcessState.FAILED, Liveness.judge(Liveness.Outcome.DISCONNECTED, null, null, false).state());
        assertEquals(ProcessState.UNAVAILABLE, Liveness.judge(Liveness.Outcome.DISCONNECTED, null, true, false).state());
        assertEquals(ProcessState.FINALIZED, Liveness.judge(Liveness.Outcome.REFUSED, null, false, true).state(),
                "a rank that finalized and exited did not fail");
    }

    @Test
    void answersMapToJoiningOkFinalized() {
        assertEquals(ProcessState.JOINING, Liveness.judge(Liveness.Outcome.ANSWERED, MpiState.NOT_INITIALIZED, true, false).state());
        assertEquals(ProcessState.OK, Liveness.judge(Liveness.Outcome.ANSWERED, MpiState.INITIALIZED, true, false).state());
        assertEquals(ProcessState.FINALIZED, Liveness.judge(Liveness.Outcome.ANSWERED, MpiState.FINALIZED, true, false).state());
    }

    @Test
    void latecomersGetTheObservedSkewPlusTwentyPercent() {
        Duration floor = Duration.ofMillis(100);
        Duration cap = Duration.ofSeconds(10);
        assertEquals(cap, Liveness.latecomerDeadline(List.of(), Duration.ZERO, floor, cap), "nobody answered yet");
        // first at 200 ms, last at 1200 ms: skew 1 s, deadline 200 + 1200
        assertEquals(Duration.ofMillis(1400), Liveness.latecomerDeadline(
                List.of(Duration.ofMillis(200), Duration.ofMillis(1200)), Duration.ZERO, floor, cap));
        // a larger skew seen in an earlier round counts
        assertEquals(Duration.ofMillis(2600), Liveness.latecomerDeadline(
                List.of(Duration.ofMillis(200)), Duration.ofSeconds(2), floor, cap));
        assertEquals(Duration.ofMillis(300), Liveness.latecomerDeadline(
                List.of(Duration.ofMillis(200)), Duration.ZERO, floor, cap), "the floor");
        assertEquals(cap, Liveness.latecomerDeadline(List.of(Duration.ofSeconds(9)), Duration.ofSeconds(5), floor, cap));
    }
}
