package io.mpilens.headless.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.text.FaultBoxes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The wait-for analysis on models built by hand: which ranks cannot progress, what it calls a
 * cycle, what it leaves alone (anything it does not understand can progress), and how two looks
 * confirm a deadlock only when the agents' counts of blocking calls did not move.
 */
class WaitForTest {
    /** COMM_WORLD of {@code n} ranks; rank r's registry id for it is 1. */
    private static CommunicatorView world(int n) {
        List<Integer> members = new ArrayList<>();
        Map<Integer, Long> ids = new HashMap<>();
        for (int r = 0; r < n; r++) {
            members.add(r);
            ids.put(r, 1L);
        }
        return new CommunicatorView("MPI_COMM_WORLD", "MPI_COMM_WORLD", members, CommState.OK, List.of(), List.of(), null,
                List.of(), members, List.of(), ids);
    }

    private static JobModel job(int n, Map<Integer, ProcessState> states, Map<Integer, Long> counters) {
        List<RankStatus> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            long counted = counters.getOrDefault(r, -1L);
            ProcessSnapshot p = new ProcessSnapshot(r, n, 100 + r, "h", "openmpi", MpiState.INITIALIZED, 4,
                    new AgentHealth("t", 0, null, 0, true, counted), List.of(), List.of(), 0);
            ranks.add(new RankStatus(r, 0, 100 + r, 1, "h", "h:" + r, states.getOrDefault(r, ProcessState.OK), null, 1, p));
        }
        return new JobModel("j", Instant.EPOCH, ranks, List.of(world(n)), List.of(), List.of());
    }

    private static JobModel job(int n) {
        return job(n, Map.of(), Map.of());
    }

    /** {@code n} ranks, each holding COMM_WORLD (id 1) and the pending requests given for it. */
    private static JobModel withRequests(int n, Map<Integer, List<HandleInfo>> requests) {
        List<RankStatus> ranks = new ArrayList<>();
        int[] members = new int[n];
        for (int r = 0; r < n; r++) members[r] = r;
        for (int r = 0; r < n; r++) {
            List<HandleInfo> handles = new ArrayList<>();
            handles.add(HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(r).name("MPI_COMM_WORLD").predefined(true)
                    .members(members).build());
            handles.addAll(requests.getOrDefault(r, List.of()));
            ProcessSnapshot p = new ProcessSnapshot(r, n, 100 + r, "h", "openmpi", MpiState.INITIALIZED, 4,
                    new AgentHealth("t", 0, null, 0, true, 0), handles, List.of(), 0);
            ranks.add(new RankStatus(r, 0, 100 + r, 1, "h", "h:" + r, ProcessState.OK, null, 1, p));
        }
        return new JobModel("j", Instant.EPOCH, ranks, List.of(world(n)), List.of(), List.of());
    }

    private static HandleInfo request(long id, int owner, String call, int peer) {
        return HandleInfo.builder(id, HandleKind.REQUEST).ownerRank(owner).creatingCall(call).peer(peer).tag(7)
                .communicator(1).build();
    }

    private static InFlightCall waitOver(int rank, String method, Long... requests) {
        return new InFlightCall(rank, "main", "mpi.Request." + method, null, 0, -1, List.of(), false, List.of(requests));
    }

    private static InFlightCall recv(int rank, int peer) {
        return new InFlightCall(rank, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, peer, List.of(), false);
    }

    private static InFlightCall send(int rank, int peer) {
        return new InFlightCall(rank, "main", "mpi.Comm.send", "MPI_COMM_WORLD", 1, peer, List.of(), false);
    }

    private static InFlightCall collective(int rank, String method) {
        return new InFlightCall(rank, "main", "mpi.Intracomm." + method, "MPI_COMM_WORLD", 1, -1, List.of(), false);
    }

    private static Set<Integer> all(int n) {
        Set<Integer> s = new HashSet<>();
        for (int r = 0; r < n; r++) s.add(r);
        return s;
    }

    @Test
    void twoRanksReceivingFromEachOtherAreACycleAndABarrierBehindThemIsStuckToo() {
        WaitFor.Analysis a = WaitFor.of(job(4), List.of(recv(0, 1), recv(1, 0), collective(2, "barrier")), all(4));
        // rank 3 runs outside MPI: it can still come to the barrier, but 0 and 1 cannot
        assertEquals(List.of(0, 1, 2), a.stuck());
        assertEquals(List.of(0, 1, 2), a.deadlocked());
        assertEquals(List.of(0, 1), a.onCycles());
        assertEquals(List.of(0, 1, 0), a.cycle());
        assertEquals(List.of(0, 1), a.waits().stream().filter(w -> w.call().rank() == 2).findFirst().orElseThrow().on());
    }

    @Test
    void aSendMatchedByAReceiveAndACollectiveEveryMemberIsInCanComplete() {
        assertFalse(WaitFor.of(job(2), List.of(send(0, 1), recv(1, 0)), all(2)).any());
        assertFalse(WaitFor.of(job(3), List.of(collective(0, "barrier"), collective(1, "barrier"), collective(2, "barrier")),
                all(3)).any());
        // one rank outside any call lets the others' receives complete
        assertFalse(WaitFor.of(job(3), List.of(recv(0, 2), recv(1, 0)), all(3)).any());
    }

    /** A receive from its own rank with nothing sent: a cycle of one. */
    @Test
    void aRankReceivingFromItselfWaitsForItself() {
        WaitFor.Analysis a = WaitFor.of(job(2), List.of(recv(0, 0)), all(2));
        assertEquals(List.of(0), a.onCycles());
        assertEquals(List.of(0, 0), a.cycle());
        assertEquals("possible deadlock (one look): rank 0 waits for itself", new FaultBoxes(false).waitFor(a,
                WaitFor.Looks.ONE).get(0));
    }

    @Test
    void differentCollectivesOnTheSameCommunicatorWaitForEachOther() {
        WaitFor.Analysis a = WaitFor.of(job(2), List.of(collective(0, "barrier"), collective(1, "bcast")), all(2));
        assertEquals(List.of(0, 1), a.deadlocked());
        assertEquals(List.of(0, 1, 0), a.cycle());
    }

    @Test
    void whatIsNotUnderstoodOrNotSeenCanProgress() {
        // a receive from a peer not read off the frame, a buffered send, a send-receive whose source is not
        // known, a wait over an array not read: assumed to complete
        List<InFlightCall> calls = List.of(recv(0, -1),
                new InFlightCall(1, "main", "mpi.Comm.bSend", "MPI_COMM_WORLD", 1, 0, List.of(), false),
                new InFlightCall(2, "main", "mpi.Comm.sendRecv", "MPI_COMM_WORLD", 1, 3, List.of(), false),
                new InFlightCall(3, "main", "mpi.Request.waitAll", null, 0, -1, List.of(), false));
        assertFalse(WaitFor.of(job(4), calls, all(4)).any());
        // rank 1 was not read: nothing is claimed about rank 0's receive from it
        assertFalse(WaitFor.of(job(2), List.of(recv(0, 1)), Set.of(0)).any());
        // a collective on a communicator not placed in the model (handle id 0)
        assertFalse(WaitFor.of(job(2), List.of(new InFlightCall(0, "main", "mpi.Intracomm.barrier", "mpi.Intracomm", 0, -1,
                List.of(), false)), all(2)).any());
    }

    @Test
    void ranksWaitingThroughOthersForAFailedOrFinalizedRankAreNotADeadlock() {
        JobModel failed = job(4, Map.of(3, ProcessState.FAILED), Map.of());
        WaitFor.Analysis a = WaitFor.of(failed, List.of(recv(0, 1), recv(1, 3)), Set.of(0, 1));
        assertEquals(List.of(0, 1), a.behindFailed());
        assertTrue(a.deadlocked().isEmpty());
        JobModel finalized = job(3, Map.of(2, ProcessState.FINALIZED), Map.of());
        WaitFor.Analysis f = WaitFor.of(finalized, List.of(recv(0, 2), collective(1, "barrier")), Set.of(0, 1));
        assertEquals(List.of(0, 1), f.behindFinalized());
        assertTrue(f.deadlocked().isEmpty());
        List<String> text = new FaultBoxes(false).waitFor(f, WaitFor.Looks.ONE);
        assertEquals("ranks 0 1 wait, directly or through others, for FINALIZED [2]: it sends no more",
                text.get(0));
    }

    @Test
    void twoLooksConfirmOnlyRanksWhoseCountersStood() {
        // 0 and 1 deadlocked; 3 and 4 in a ping-pong that one look catches inside recv; 2 in a barrier
        List<InFlightCall> calls = List.of(recv(0, 1), recv(1, 0), collective(2, "barrier"), recv(3, 4), recv(4, 3));
        Map<Integer, Long> before = Map.of(0, 5L, 1, 5L, 2, 9L, 3, 100L, 4, 100L);
        Map<Integer, Long> after = Map.of(0, 5L, 1, 5L, 2, 9L, 3, 90_000L, 4, 90_001L);
        WaitFor.Analysis first = WaitFor.of(job(5, Map.of(), before), calls, all(5));
        WaitFor.Analysis second = WaitFor.of(job(5, Map.of(), after), calls, all(5));
        assertEquals(List.of(0, 1, 2, 3, 4), second.deadlocked());
        WaitFor.Looks looks = WaitFor.compare(first, second, 2.0);
        assertEquals(List.of(0, 1), looks.confirmed());
        assertEquals(List.of(2), looks.behind());
        assertEquals(List.of(3, 4), looks.moved());
        assertTrue(looks.counted());
        List<String> text = new FaultBoxes(false).waitFor(second, looks);
        assertEquals(List.of(
                "DEADLOCK: ranks 0 1 wait for each other; no blocking call returned in 2.0 s",
                "  cycle 0 -> 1 -> 0",
                "  rank 0  recv on MPI_COMM_WORLD peer 1  waits for 1",
                "  rank 1  recv on MPI_COMM_WORLD peer 0  waits for 0",
                "  stuck behind them: rank 2",
                "    rank 2  barrier on MPI_COMM_WORLD  waits for 0 1",
                "not deadlocked: ranks 3 4 looked stuck, but there was progress within 2.0 s"), text);
    }

    /** Caught matched at both looks, the busy pair is not stuck; the barrier then waits only for the cycle. */
    @Test
    void aRankWaitingOnlyForTheCycleIsBehindItNotInIt() {
        List<InFlightCall> calls = List.of(recv(0, 1), recv(1, 0), collective(2, "barrier"), send(3, 4), recv(4, 3));
        Map<Integer, Long> counts = Map.of(0, 5L, 1, 5L, 2, 9L);
        WaitFor.Analysis first = WaitFor.of(job(5, Map.of(), counts), calls, all(5));
        WaitFor.Analysis second = WaitFor.of(job(5, Map.of(), counts), calls, all(5));
        assertEquals(List.of(0, 1, 2), second.deadlocked());
        assertEquals(List.of(0, 1), second.onCycles());
        WaitFor.Looks looks = WaitFor.compare(first, second, 1.5);
        assertEquals(List.of(0, 1), looks.confirmed());
        assertEquals(List.of(2), looks.behind());
        assertTrue(looks.moved().isEmpty());
        assertEquals("DEADLOCK: ranks 0 1 wait for each other; no blocking call returned in 1.5 s",
                new FaultBoxes(false).waitFor(second, looks).get(0));
    }

    @Test
    void withoutCountersOrWithOtherCallsNothingIsConfirmed() {
        List<InFlightCall> calls = List.of(recv(0, 1), recv(1, 0));
        WaitFor.Analysis unknown = WaitFor.of(job(2), calls, all(2));
        WaitFor.Looks looks = WaitFor.compare(unknown, unknown, 1.0);
        assertTrue(looks.confirmed().isEmpty());
        assertFalse(looks.counted());
        assertEquals("cannot confirm: ranks 0 1 look stuck, but an agent does not count blocking calls",
                new FaultBoxes(false).waitFor(unknown, looks).get(0));
        // same counters, but rank 1 is in another call at the second look (a new request, say)
        Map<Integer, Long> c = Map.of(0, 1L, 1, 1L);
        WaitFor.Analysis first = WaitFor.of(job(2, Map.of(), c), calls, all(2));
        WaitFor.Analysis second = WaitFor.of(job(2, Map.of(), c), List.of(recv(0, 1),
                new InFlightCall(1, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, 0, List.of(), false),
                send(1, 0)), all(2));
        assertFalse(WaitFor.compare(first, second, 1.0).confirmed().contains(1));
    }

    @Test
    void waitAllNeedsEveryRequestAndWaitAnyOne() {
        // rank 0 waits for all of {iRecv from 1, iRecv from 2}; rank 1 waits for its iRecv from 0; rank 2 runs
        JobModel m = withRequests(3, Map.of(0, List.of(request(10, 0, "iRecv", 1), request(11, 0, "iRecv", 2)),
                1, List.of(request(20, 1, "iRecv", 0))));
        WaitFor.Analysis all = WaitFor.of(m, List.of(waitOver(0, "waitAll", 10L, 11L), waitOver(1, "waitAll", 20L)), all(3));
        assertEquals(List.of(0, 1), all.deadlocked());
        assertEquals(List.of(1), all.waits().get(0).on(), "rank 2 can still send: only 1 is awaited");
        // waiting for any one of them: rank 2 can send, so rank 0 can progress, and then rank 1
        WaitFor.Analysis any = WaitFor.of(m, List.of(waitOver(0, "waitAny", 10L, 11L), waitOver(1, "waitAll", 20L)), all(3));
        assertFalse(any.any());
        // an element not found pending (finished already, or untracked): waitAll ignores it, waitAny may be done
        WaitFor.Analysis unknown = WaitFor.of(m, List.of(waitOver(0, "waitAny", 10L, 0L), waitOver(1, "waitAll", 20L)), all(3));
        assertFalse(unknown.any());
    }

    @Test
    void aPendingSendRequestOfThePeerLetsAReceiveComplete() {
        // rank 1 posted an iSend to 0 earlier and is now in a blocking receive from 0: MPI can
        // complete the send while rank 1 waits, so rank 0's receive from 1 can complete, then 1's
        JobModel m = withRequests(2, Map.of(1, List.of(request(30, 1, "iSend", 0))));
        assertFalse(WaitFor.of(m, List.of(recv(0, 1), recv(1, 0)), all(2)).any());
        // the same iSend, but to rank 5's place (another rank): no help for rank 0
        JobModel other = withRequests(3, Map.of(1, List.of(request(30, 1, "iSend", 2))));
        assertEquals(List.of(0, 1), WaitFor.of(other, List.of(recv(0, 1), recv(1, 0), recv(2, 0)), all(3)).cycle()
                .subList(0, 2));
    }

    /** 4,096 ranks: all but two in a barrier behind a two-rank cycle, every rank's call analysed. */
    @Test
    void aLargeJobIsAnalysedWhole() {
        int n = 4096;
        List<InFlightCall> calls = new ArrayList<>(List.of(recv(0, 1), recv(1, 0)));
        for (int r = 2; r < n; r++) calls.add(collective(r, "barrier"));
        WaitFor.Analysis a = WaitFor.of(job(n), calls, all(n));
        assertEquals(n, a.deadlocked().size());
        assertEquals(List.of(0, 1, 0), a.cycle());
    }

    /** 4,096 ranks: a master receiving from any source, every worker waiting for the master. */
    @Test
    void aLargeMasterAndWorkersAreAnalysedWhole() {
        int n = 4096;
        List<InFlightCall> calls = new ArrayList<>(List.of(p2p(0, "recv", 1, -1, true, 7)));
        for (int r = 1; r < n; r++) calls.add(p2p(r, "recv", 1, 0, false, 7));
        WaitFor.Analysis a = WaitFor.of(withRequests(n, Map.of()), calls, all(n));
        assertEquals(n, a.onCycles().size());
        assertEquals(n - 1, a.waits().get(0).on().size());
        // the last worker sends instead: the master can go on, and so can every worker after it
        calls.set(n - 1, p2p(n - 1, "send", 1, 0, false, 7));
        assertFalse(WaitFor.of(withRequests(n, Map.of()), calls, all(n)).any());
    }

    @Test
    void sixtyFourRanksInABarrierBehindATwoRankCycleFitTheLines() {
        List<InFlightCall> calls = new ArrayList<>(List.of(recv(0, 1), recv(1, 0)));
        for (int r = 2; r < 64; r++) calls.add(collective(r, "barrier"));
        WaitFor.Analysis a = WaitFor.of(job(64), calls, all(64));
        assertEquals(64, a.deadlocked().size());
        List<String> text = new FaultBoxes(false).waitFor(a, WaitFor.Looks.ONE);
        for (String l : text) assertTrue(l.length() <= 80, l.length() + ": " + l);
        assertEquals(List.of(0, 1), a.onCycles(), "the barrier's ranks wait for the cycle, they are not on it");
        assertEquals("possible deadlock (one look): ranks 0 1 wait for each other", text.get(0));
        assertTrue(text.contains("  stuck behind them: ranks 2-63"), String.join("\n", text));
        assertTrue(text.contains("    ranks 2-63  barrier on MPI_COMM_WORLD  wait for 0 1"), String.join("\n", text));
    }

    // ---------------------------------------------------------------- any source, tags, communicators

    /** A point-to-point call on COMM_WORLD (id 1) or, with {@code comm} 2, on the job's {@code dup}. */
    private static InFlightCall p2p(int rank, String method, long comm, int peer, boolean anySource, int tag) {
        return new InFlightCall(rank, "main", "mpi.Comm." + method, comm == 1 ? "MPI_COMM_WORLD" : "dup", comm, peer,
                List.of(), false, null, anySource, tag);
    }

    /**
     * {@code n} ranks holding COMM_WORLD (id 1) and a duplicate of it (id 2), both placed in the
     * model, and the pending requests given.
     */
    private static JobModel twoCommunicators(int n, Map<Integer, List<HandleInfo>> requests) {
        JobModel one = withRequests(n, Map.of());
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, Long> ids = new HashMap<>();
        List<Integer> members = new ArrayList<>();
        for (RankStatus r : one.processes()) {
            ProcessSnapshot p = r.snapshot();
            List<HandleInfo> handles = new ArrayList<>(p.handles());
            handles.add(HandleInfo.builder(2, HandleKind.COMMUNICATOR).ownerRank(r.rank()).name("dup")
                    .members(p.handles().get(0).members()).build());
            handles.addAll(requests.getOrDefault(r.rank(), List.of()));
            ProcessSnapshot q = new ProcessSnapshot(r.rank(), n, p.pid(), "h", "openmpi", MpiState.INITIALIZED, 4,
                    p.agentHealth(), handles, List.of(), 0);
            ranks.add(new RankStatus(r.rank(), 0, p.pid(), 1, "h", "h:" + r.rank(), ProcessState.OK, null, 1, q));
            ids.put(r.rank(), 2L);
            members.add(r.rank());
        }
        CommunicatorView dup = new CommunicatorView("dup", "dup", members, CommState.OK, List.of(), List.of(), null,
                List.of(), members, List.of(), ids);
        return new JobModel("j", Instant.EPOCH, ranks, List.of(world(n), dup), List.of(), List.of());
    }

    /** Master and workers: the master receives from any source, every worker waits for the master. */
    @Test
    void aReceiveFromAnySourceIsStuckOnlyWhenNoOtherMemberCanSendIt() {
        JobModel m = withRequests(3, Map.of());
        List<InFlightCall> stuck = List.of(p2p(0, "recv", 1, -1, true, 7), p2p(1, "recv", 1, 0, false, 7),
                p2p(2, "recv", 1, 0, false, 7));
        WaitFor.Analysis a = WaitFor.of(m, stuck, all(3));
        assertEquals(List.of(0, 1, 2), a.deadlocked());
        assertEquals(List.of(0, 1, 0), a.cycle());
        assertEquals(List.of(1, 2), a.waits().get(0).on());
        List<String> text = new FaultBoxes(false).waitFor(a, WaitFor.Looks.ONE);
        assertTrue(text.contains("  rank 0  recv on MPI_COMM_WORLD peer any tag 7  waits for 1 2"), String.join("\n", text));
        // one worker outside MPI may still send to the master: nobody is stuck
        assertFalse(WaitFor.of(m, stuck.subList(0, 2), all(3)).any());
        // one worker sending to the master pairs with it
        assertFalse(WaitFor.of(m, List.of(stuck.get(0), stuck.get(1), p2p(2, "sSend", 1, 0, false, 7)), all(3)).any());
        // the master's own rank is no source for it: alone with a worker waiting for it, both are stuck
        assertEquals(List.of(0, 1), WaitFor.of(withRequests(2, Map.of()), stuck.subList(0, 2), all(2)).deadlocked());
    }

    /** A receive for tag 7 while the peer is in a synchronous send of tag 8: neither completes. */
    @Test
    void aSendAndAReceiveWithDifferentTagsDoNotPair() {
        JobModel m = withRequests(2, Map.of());
        WaitFor.Analysis a = WaitFor.of(m, List.of(p2p(0, "recv", 1, 1, false, 7), p2p(1, "sSend", 1, 0, false, 8)), all(2));
        assertEquals(List.of(0, 1), a.deadlocked());
        assertEquals(List.of(0, 1, 0), a.cycle());
        List<String> text = new FaultBoxes(false).waitFor(a, WaitFor.Looks.ONE);
        assertTrue(text.contains("  rank 0  recv on MPI_COMM_WORLD peer 1 tag 7  waits for 1"), String.join("\n", text));
        assertTrue(text.contains("  rank 1  sSend on MPI_COMM_WORLD peer 0 tag 8  waits for 0"), String.join("\n", text));
        // the same tag, any tag, or a tag not known: they pair
        assertFalse(WaitFor.of(m, List.of(p2p(0, "recv", 1, 1, false, 8), p2p(1, "sSend", 1, 0, false, 8)), all(2)).any());
        assertFalse(WaitFor.of(m, List.of(p2p(0, "recv", 1, 1, false, InFlightCall.ANY_TAG),
                p2p(1, "sSend", 1, 0, false, 8)), all(2)).any());
        assertFalse(WaitFor.of(m, List.of(p2p(0, "recv", 1, 1, false, HandleInfo.UNKNOWN),
                p2p(1, "sSend", 1, 0, false, 8)), all(2)).any());
    }

    @Test
    void aSendAndAReceiveOnDifferentCommunicatorsDoNotPair() {
        JobModel m = twoCommunicators(2, Map.of());
        assertEquals(List.of(0, 1), WaitFor.of(m, List.of(p2p(0, "recv", 1, 1, false, 7), p2p(1, "sSend", 2, 0, false, 7)),
                all(2)).deadlocked());
        assertFalse(WaitFor.of(m, List.of(p2p(0, "recv", 2, 1, false, 7), p2p(1, "sSend", 2, 0, false, 7)), all(2)).any());
        // a communicator the model does not place (id 0) pairs with anything
        assertFalse(WaitFor.of(m, List.of(p2p(0, "recv", 1, 1, false, 7), p2p(1, "sSend", 0, 0, false, 7)), all(2)).any());
    }

    /** Pending requests pair by peer, communicator and tag too; an any-source receive request takes any member's send. */
    @Test
    void pendingRequestsPairByTagAndAnySource() {
        // rank 0 waits in recv from 1 (tag 3); rank 1 in a synchronous send to 0 (tag 7)
        List<InFlightCall> calls = List.of(p2p(0, "recv", 1, 1, false, 3), p2p(1, "sSend", 1, 0, false, 7));
        HandleInfo anyTag7 = HandleInfo.builder(40, HandleKind.REQUEST).ownerRank(0).creatingCall("iRecv").peer(-1).tag(7)
                .communicator(1).build();
        HandleInfo anyTag9 = HandleInfo.builder(40, HandleKind.REQUEST).ownerRank(0).creatingCall("iRecv").peer(-1).tag(9)
                .communicator(1).build();
        HandleInfo onDup = HandleInfo.builder(40, HandleKind.REQUEST).ownerRank(0).creatingCall("iRecv").peer(-1).tag(7)
                .communicator(2).build();
        // rank 0's pending receive from any source takes rank 1's send: both can go on
        assertFalse(WaitFor.of(withRequests(2, Map.of(0, List.of(anyTag7))), calls, all(2)).any());
        assertEquals(List.of(0, 1), WaitFor.of(withRequests(2, Map.of(0, List.of(anyTag9))), calls, all(2)).deadlocked());
        assertEquals(List.of(0, 1), WaitFor.of(twoCommunicators(2, Map.of(0, List.of(onDup))), calls, all(2)).deadlocked());
    }

    private static InFlightCall sendRecv(int rank, int to, int sendTag, int from, int tag) {
        return new InFlightCall(rank, "main", "mpi.Comm.sendRecv", "MPI_COMM_WORLD", 1, from, List.of(), false, null,
                false, tag, to, sendTag);
    }

    /** A send-receive waits for its receive half and offers its send half. */
    @Test
    void aSendReceiveWaitsForItsReceiveAndOffersItsSend() {
        JobModel two = withRequests(2, Map.of());
        // both send tag 7 and receive tag 8: neither receive is ever matched
        WaitFor.Analysis a = WaitFor.of(two, List.of(sendRecv(0, 1, 7, 1, 8), sendRecv(1, 0, 7, 0, 8)), all(2));
        assertEquals(List.of(0, 1), a.deadlocked());
        assertEquals(List.of(0, 1, 0), a.cycle());
        List<String> text = new FaultBoxes(false).waitFor(a, WaitFor.Looks.ONE);
        assertTrue(text.contains("  rank 0  sendRecv on MPI_COMM_WORLD to 1 tag 7 from 1 tag 8  waits for 1"),
                String.join("\n", text));
        // an exchange with matching tags completes, and so does a ring shift
        assertFalse(WaitFor.of(two, List.of(sendRecv(0, 1, 7, 1, 7), sendRecv(1, 0, 7, 0, 7)), all(2)).any());
        JobModel three = withRequests(3, Map.of());
        assertFalse(WaitFor.of(three, List.of(sendRecv(0, 1, 7, 2, 7), sendRecv(1, 2, 7, 0, 7), sendRecv(2, 0, 7, 1, 7)),
                all(3)).any());
        // its send half pairs with a plain receive: rank 0 gets its message, then rank 2 can send to 1
        assertFalse(WaitFor.of(three, List.of(recv(0, 1), sendRecv(1, 0, HandleInfo.UNKNOWN, 2, HandleInfo.UNKNOWN),
                recv(2, 0)), all(3)).any());
        // its send half is never waited for: to a rank stuck elsewhere, it is taken as buffered
        WaitFor.Analysis sendToStuck = WaitFor.of(withRequests(4, Map.of()), List.of(sendRecv(0, 1, 7, 2, 7), recv(1, 3),
                recv(3, 1), send(2, 0)), all(4));
        assertEquals(List.of(1, 3), sendToStuck.stuck());
        // a receive half from a rank stuck elsewhere: stuck behind it
        WaitFor.Analysis behind = WaitFor.of(three, List.of(recv(0, 2), sendRecv(1, 0, 7, 0, 7), recv(2, 0)), all(3));
        assertEquals(List.of(0, 1, 2), behind.deadlocked());
        assertEquals(List.of(0, 2), behind.onCycles());
    }

    /**
     * A rank stuck only at the second look moved in between: "not deadlocked", not "cannot confirm"
     * (its counter is in no first look to compare with; that is no missing counter).
     */
    @Test
    void aRankStuckOnlyAtTheSecondLookMovedAndIsCounted() {
        Map<Integer, Long> counts = Map.of(0, 5L, 1, 5L, 2, 9L, 3, 40L, 4, 41L);
        WaitFor.Analysis first = WaitFor.of(job(5, Map.of(), counts),
                List.of(recv(0, 1), recv(1, 0), collective(2, "barrier"), send(3, 4), recv(4, 3)), all(5));
        WaitFor.Analysis second = WaitFor.of(job(5, Map.of(), counts),
                List.of(recv(0, 1), recv(1, 0), collective(2, "barrier"), send(3, 4), send(4, 3)), all(5));
        WaitFor.Looks looks = WaitFor.compare(first, second, 1.5);
        assertEquals(List.of(0, 1), looks.confirmed());
        assertEquals(List.of(3, 4), looks.moved());
        assertTrue(looks.counted());
        List<String> text = new FaultBoxes(false).waitFor(second, looks);
        assertTrue(text.contains("not deadlocked: ranks 3 4 looked stuck, but there was progress within 1.5 s"),
                String.join("\n", text));
    }

    /** A receive from any source on an intercommunicator waits for its remote group. */
    @Test
    void aReceiveFromAnySourceOnAnIntercommunicatorWaitsForTheRemoteGroup() {
        HandleInfo inter = HandleInfo.builder(3, HandleKind.COMMUNICATOR).ownerRank(0).inter(true).members(new int[] {0})
                .remoteMembers(new int[] {2}).build();
        JobModel m = withRequests(3, Map.of(0, List.of(inter)));
        InFlightCall anyOnInter = new InFlightCall(0, "main", "mpi.Comm.recv", "#3", 3, -1, List.of(), false, null, true, 7);
        WaitFor.Analysis a = WaitFor.of(m, List.of(anyOnInter, recv(2, 0), recv(1, 2)), all(3));
        assertEquals(List.of(2), a.waits().get(0).on(), "rank 1 is no source on it");
        assertEquals(List.of(0, 2, 0), a.cycle());
    }
}
