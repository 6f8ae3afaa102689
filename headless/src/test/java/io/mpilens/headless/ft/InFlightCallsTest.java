package io.mpilens.headless.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.testing.Snapshots;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which call a thread is inside, mapped to the registry, and whether it can ever complete. */
class InFlightCallsTest {
    private static final long WORLD_HANDLE = 0x7f00L;
    private static final long HALF_HANDLE = 0x7f10L;
    private static final long REQUEST_HANDLE = 0x7f20L;

    /** Rank r of 4 (Open MPI): COMM_WORLD, a communicator of ranks {0, 1} and a receive from rank 1 of it. */
    private static ProcessSnapshot rank(int r) {
        List<HandleInfo> hs = new ArrayList<>();
        hs.add(HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(r).name("MPI_COMM_WORLD").predefined(true)
                .cHandle(WORLD_HANDLE).members(new int[] {0, 1, 2, 3}).build());
        hs.add(HandleInfo.builder(5, HandleKind.COMMUNICATOR).ownerRank(r).creatingCall("split")
                .cHandle(HALF_HANDLE).members(new int[] {2, 3}).build());
        hs.add(HandleInfo.builder(7, HandleKind.REQUEST).ownerRank(r).creatingCall("iRecv")
                .cHandle(REQUEST_HANDLE).peer(0).tag(1).communicator(5).build());
        return new ProcessSnapshot(r, 4, 100 + r, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                hs, List.of(), 0);
    }

    private static JobModel rank2Failed() {
        List<RankStatus> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            ProcessState s = r == 2 ? ProcessState.FAILED : ProcessState.OK;
            ranks.add(new RankStatus(r, 0, 100 + r, 99, "node1", null, s, "test", 5, r == 2 ? null : rank(r)));
        }
        return new JobModel("j", Instant.EPOCH, ranks, List.of(), List.of(), List.of());
    }

    private static BindingFrame frame(String cls, String method, Long handle, Integer... ints) {
        return new BindingFrame("main", cls, method, "mpi.Intracomm", handle, Arrays.asList(ints));
    }

    private static InFlightCall only(BindingFrame f) {
        List<InFlightCall> calls = InFlightCalls.of(rank2Failed(), Map.of(0, List.of(f)));
        assertEquals(1, calls.size());
        return calls.get(0);
    }

    @Test
    void anMpjReceiverWithoutNativeHandleIsMappedByThePredefinedHandleItIs() {
        // MPJ Express: no native handle; the frame names the mpi.MPI field that holds the receiver
        InFlightCall c = only(new BindingFrame("main", "mpi.Intracomm", "Allreduce", "mpi.Intracomm", null,
                Arrays.asList(null, null, null, null, null, null, null), "MPI_COMM_WORLD"));
        assertEquals("MPI_COMM_WORLD", c.receiver());
        assertEquals(1, c.handleId());
        assertEquals(List.of(2), c.failedPeers());
        assertTrue(c.neverCompletes());
        InFlightCall unknown = only(new BindingFrame("main", "mpi.Intracomm", "Allreduce", "mpi.Intracomm", null,
                List.of(), null));
        assertEquals("mpi.Intracomm", unknown.receiver(), "not predefined: only its class");
        assertFalse(unknown.neverCompletes());
    }

    @Test
    void anMpjCommunicatorIsMappedByItsGroupWhenNoOtherOfTheRankHasIt() {
        // the split communicator of ranks {2, 3} (id 5): unique group, so mapped; 2 failed
        InFlightCall c = only(new BindingFrame("main", "mpi.Intracomm", "Allreduce", "mpi.Intracomm", null,
                List.of(), null, List.of(2, 3)));
        assertEquals(5, c.handleId());
        assertEquals("#5", c.receiver());
        assertEquals(List.of(2), c.failedPeers());
        assertTrue(c.neverCompletes());
        // a group no communicator of the rank has: not mapped, but its members still decide the flag
        InFlightCall other = only(new BindingFrame("main", "mpi.Intracomm", "Barrier", "mpi.Intracomm", null,
                List.of(), null, List.of(1, 2)));
        assertEquals(0, other.handleId());
        assertEquals("mpi.Intracomm [1, 2]", other.receiver());
        assertTrue(other.neverCompletes());
    }

    @Test
    void aBarrierOnWorldWithAFailedMemberNeverCompletes() {
        InFlightCall c = only(frame("mpi.Comm", "barrier", WORLD_HANDLE));
        assertEquals("MPI_COMM_WORLD", c.receiver());
        assertEquals(1, c.handleId());
        assertEquals(List.of(2), c.failedPeers());
        assertTrue(c.neverCompletes());
    }

    @Test
    void aReceiveFromAFailedPeerNeverCompletesAndThePeerIsTranslatedToWorld() {
        // recv(buf, count, type, source 0, tag) on {2, 3}: local rank 0 is world rank 2
        InFlightCall c = only(frame("mpi.Comm", "recv", HALF_HANDLE, null, 1, null, 0, 9));
        assertEquals(2, c.peer());
        assertTrue(c.neverCompletes());
    }

    @Test
    void aSendToALiveRankIsNotFlagged() {
        InFlightCall c = only(frame("mpi.Comm", "send", WORLD_HANDLE, null, 1, null, 3, 9));
        assertEquals(3, c.peer());
        assertFalse(c.neverCompletes());
    }

    @Test
    void waitingOnARequestWhosePeerFailedNeverCompletes() {
        InFlightCall c = only(new BindingFrame("main", "mpi.Request", "waitFor", "mpi.Request", REQUEST_HANDLE, List.of()));
        assertEquals(7, c.handleId());
        assertEquals(2, c.peer());
        assertTrue(c.neverCompletes());
    }

    @Test
    void aReceiverWithoutANativeHandleIsShownByItsClassOnly() {
        InFlightCall c = only(new BindingFrame("main", "mpi.Comm", "Barrier", "mpi.Intracomm", null, List.of()));
        assertEquals("mpi.Intracomm", c.receiver());
        assertEquals(0, c.handleId());
        assertFalse(c.neverCompletes(), "not known to be on a communicator with a failed member");
    }

    @Test
    void anMpjRequestReceiverIsMappedByTheIdItsIdentityHasInTheWrapperIndex() {
        // MPJ Express: no native handle, no predefined name, no group; the wrapper index knows it as #7
        InFlightCall c = only(new BindingFrame("main", "mpi.Request", "Wait", "mpi.Request", null, List.of(), null,
                null, 7L));
        assertEquals(7, c.handleId());
        assertEquals(2, c.peer(), "the request's peer 0 of {2, 3}");
        assertTrue(c.neverCompletes());
    }

    @Test
    void aCommunicatorKnownByIdentityIsThatOneEvenWhenAnotherHasTheSameGroup() {
        // no native handle, no predefined name, no group read: identity alone names communicator #5
        InFlightCall c = only(new BindingFrame("main", "mpi.Intracomm", "Allreduce", "mpi.Intracomm", null, List.of(),
                null, null, 5L));
        assertEquals(5, c.handleId());
        assertEquals(List.of(2), c.failedPeers());
        assertTrue(c.neverCompletes());
    }

    /** The tag beside the peer argument, and each binding's own value of MPI.ANY_SOURCE / MPI.ANY_TAG. */
    @Test
    void aReceiveCarriesItsTagAndWhetherItIsFromAnySource() {
        // Open MPI recv(buf, count, type, source, tag): ANY_SOURCE and ANY_TAG are -1
        InFlightCall tagged = only(frame("mpi.Comm", "recv", WORLD_HANDLE, null, 2, null, 1, 7));
        assertEquals(1, tagged.peer());
        assertFalse(tagged.anySource());
        assertEquals(7, tagged.tag());
        InFlightCall any = only(frame("mpi.Comm", "recv", WORLD_HANDLE, null, 2, null, -1, -1));
        assertTrue(any.anySource());
        assertEquals(-1, any.peer());
        assertEquals(InFlightCall.ANY_TAG, any.tag());
        // Open MPI's PROC_NULL (-2) is neither
        InFlightCall procNull = only(frame("mpi.Comm", "recv", WORLD_HANDLE, null, 2, null, -2, 7));
        assertFalse(procNull.anySource());
        assertEquals(-1, procNull.peer());
        // MPJ Express Recv(buf, offset, count, type, source, tag): ANY_SOURCE and ANY_TAG are -2
        InFlightCall mpj = only(new BindingFrame("main", "mpi.Comm", "Recv", "mpi.Intracomm", null,
                Arrays.asList(null, 0, 2, null, -2, -2), "MPI_COMM_WORLD"));
        assertTrue(mpj.anySource());
        assertEquals(InFlightCall.ANY_TAG, mpj.tag());
        // a wait on a request: the request's own peer and tag
        InFlightCall waiting = only(new BindingFrame("main", "mpi.Request", "waitFor", "mpi.Request", REQUEST_HANDLE,
                List.of()));
        assertEquals(1, waiting.tag());
        assertEquals(2, waiting.peer(), "peer 0 of {2, 3}");
        assertFalse(waiting.anySource());
    }

    /** A send-receive: its receive half in peer/tag/anySource, its send half in sendTo/sendTag. */
    @Test
    void aSendReceiveCarriesBothHalves() {
        // Open MPI sendRecv(sendbuf, count, type, dest, sendtag, recvbuf, count, type, source, recvtag)
        InFlightCall c = only(frame("mpi.Comm", "sendRecv", WORLD_HANDLE, null, 2, null, 3, 5, null, 2, null, 1, 6));
        assertEquals(3, c.sendTo());
        assertEquals(5, c.sendTag());
        assertEquals(1, c.peer());
        assertEquals(6, c.tag());
        assertFalse(c.neverCompletes());
        // MPJ Sendrecv(sendbuf, offset, count, type, dest, sendtag, recvbuf, offset, count, type, source, recvtag),
        // receiving from ANY_SOURCE (-2) and the FAILED rank 2 as its destination
        InFlightCall mpj = only(new BindingFrame("main", "mpi.Comm", "Sendrecv", "mpi.Intracomm", null,
                Arrays.asList(null, 0, 2, null, 2, 5, null, 0, 2, null, -2, 6), "MPI_COMM_WORLD"));
        assertTrue(mpj.anySource());
        assertEquals(2, mpj.sendTo());
        assertEquals(List.of(2), mpj.failedPeers());
    }

    /** On an intercommunicator a point-to-point peer is a rank of the remote group. */
    @Test
    void aPeerOnAnIntercommunicatorIsOfTheRemoteGroup() {
        List<HandleInfo> hs = new ArrayList<>(rank(0).handles());
        hs.add(HandleInfo.builder(9, HandleKind.COMMUNICATOR).ownerRank(0).creatingCall("createIntercomm")
                .cHandle(0x7f30L).inter(true).members(new int[] {0, 1}).remoteMembers(new int[] {3, 2}).build());
        ProcessSnapshot p = new ProcessSnapshot(0, 4, 100, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                hs, List.of(), 0);
        InFlightCall c = InFlightCalls.classify(0, frame("mpi.Comm", "recv", 0x7f30L, null, 2, null, 1, 7), p, List.of(2),
                Map.of());
        assertEquals(2, c.peer(), "remote rank 1 of {3, 2}");
        assertTrue(c.neverCompletes(), "rank 2 FAILED");
    }

    /**
     * An unnamed communicator is called what cominfo calls it, not by its registry id: ids are
     * per JVM and differ between the ranks of one MPJ multicore JVM, so the same call on every rank
     * reads alike (and groups on one line).
     */
    @Test
    void anUnnamedCommunicatorIsCalledAsCominfoCallsIt() {
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new java.util.HashMap<>();
        for (int r = 0; r < 2; r++) {
            List<HandleInfo> hs = List.of(
                    HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(r).name("MPI_COMM_WORLD").predefined(true)
                            .cHandle(WORLD_HANDLE).members(new int[] {0, 1}).build(),
                    HandleInfo.builder(5 + r, HandleKind.COMMUNICATOR).ownerRank(r).creatingCall("split").derivedFrom(1)
                            .cHandle(HALF_HANDLE).members(new int[] {0, 1}).build());
            ProcessSnapshot p = new ProcessSnapshot(r, 2, 100, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                    hs, List.of(), 0);
            views.put(r, p);
            ranks.add(new RankStatus(r, 0, 100, 99, "node1", null, ProcessState.OK, "test", 5, p));
        }
        JobModel m = FaultModel.build("j", Instant.EPOCH, ranks, views, (h, pid) -> new HostView.Daemon(pid, "x", true), null);
        List<InFlightCall> calls = InFlightCalls.of(m, Map.of(0, List.of(frame("mpi.Intracomm", "barrier", HALF_HANDLE)),
                1, List.of(frame("mpi.Intracomm", "barrier", HALF_HANDLE))));
        assertEquals(List.of("split(MPI_COMM_WORLD)", "split(MPI_COMM_WORLD)"), calls.stream().map(InFlightCall::receiver).toList());
        assertEquals(List.of(5L, 6L), calls.stream().map(InFlightCall::handleId).toList(), "each rank's own handle");
    }
}
