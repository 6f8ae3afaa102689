package io.mpilens.headless.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code mpilens calls} as text: one line per call (ranks in the same one share it), never wider than 80 columns. */
class FaultBoxesCallsTest {
    private static final JobModel JOB = new JobModel("j", Instant.EPOCH, List.of(), List.of(), List.of(), List.of());

    @Test
    void aCallWaitingForAFailedRankIsFlaggedOnItsLine() {
        List<String> lines = new FaultBoxes(false).calls(JOB, List.of(
                new InFlightCall(0, "main", "mpi.Comm.barrier", "MPI_COMM_WORLD", 1, -1, List.of(2), true),
                new InFlightCall(1, "worker", "mpi.Comm.send", "MPI_COMM_WORLD", 1, 3, List.of(), false)));
        assertEquals("rank 0  barrier on MPI_COMM_WORLD  [main]  NEVER COMPLETES: FAILED [2]", lines.get(1));
        assertEquals("rank 1  send on MPI_COMM_WORLD peer 3  [worker]", lines.get(2));
    }

    @Test
    void longNamesGiveWayToTheFlag() {
        List<Integer> failed = new ArrayList<>();
        for (int r = 100; r < 120; r++) failed.add(r);
        List<String> lines = new FaultBoxes(false).calls(JOB, List.of(new InFlightCall(12, "a-thread-with-a-long-name",
                "mpi.Intracomm.allReduce", "a_communicator_with_a_very_long_name", 9, -1, failed, true)));
        for (String l : lines) assertTrue(l.length() <= 80, l.length() + ": " + l);
        assertTrue(lines.get(1).contains("NEVER COMPLETES"), lines.get(1));
    }

    @Test
    void requestsPendingOnAFailedPeerAreListedAfterTheCalls() {
        JobModel m = new JobModel("j", Instant.EPOCH, List.of(), List.of(), List.of(), List.of(),
                List.of(new PendingOnFailedPeer(3, 53, "iRecv", 2, 11, "MPI_COMM_WORLD", "MPI_COMM_WORLD")));
        List<String> lines = new FaultBoxes(false).calls(m, List.of());
        assertEquals("requests pending on a FAILED peer (they can never complete):", lines.get(2));
        assertEquals("rank 3  iRecv #53 on MPI_COMM_WORLD  peer 2 tag 11", lines.get(3));
        // a request of the agent's ring: its short id
        JobModel ring = new JobModel("j", Instant.EPOCH, List.of(), List.of(), List.of(), List.of(),
                List.of(new PendingOnFailedPeer(3, 1099511627778L, "iRecv", 2, 11, "MPI_COMM_WORLD", "MPI_COMM_WORLD")));
        assertEquals("rank 3  iRecv #r2 on MPI_COMM_WORLD  peer 2 tag 11", new FaultBoxes(false).calls(ring, List.of()).get(3));
    }

    /** 64 ranks, rank 2 dead, the rest in one barrier: one line for 62 ranks, not 62 lines. */
    @Test
    void ranksInsideTheSameCallShareOneLine() {
        List<InFlightCall> calls = new ArrayList<>();
        calls.add(new InFlightCall(0, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, 2, List.of(2), true));
        for (int r = 1; r < 64; r++) {
            if (r != 2) calls.add(new InFlightCall(r, "main", "mpi.Comm.barrier", "MPI_COMM_WORLD", 1, -1, List.of(2), true));
        }
        calls.add(new InFlightCall(5, "io", "mpi.Comm.barrier", "MPI_COMM_WORLD", 1, -1, List.of(2), true));
        List<String> lines = new FaultBoxes(false).calls(JOB, calls);
        assertEquals(List.of("rank 0  recv on MPI_COMM_WORLD peer 2  [main]  NEVER COMPLETES: FAILED [2]",
                "ranks 1 3-63  barrier on MPI_COMM_WORLD  [main]  NEVER COMPLETES: FAILED [2]",
                "rank 5  barrier on MPI_COMM_WORLD  [io]  NEVER COMPLETES: FAILED [2]"), lines.subList(1, lines.size()));
    }

    /** A rank list that would crowd out the call goes under it, wrapped, every rank still there. */
    @Test
    void aLongRankListGoesOnLinesOfItsOwn() {
        List<InFlightCall> calls = new ArrayList<>();
        List<Integer> failed = new ArrayList<>();
        for (int r = 0; r < 256; r++) {
            if (r % 2 == 0) calls.add(new InFlightCall(r, "main", "mpi.Comm.allReduce", "MPI_COMM_WORLD", 1, -1, List.of(), false));
            else failed.add(r);
        }
        List<String> lines = new FaultBoxes(false).calls(JOB, calls);
        assertEquals("128 ranks  allReduce on MPI_COMM_WORLD  [main]", lines.get(1));
        StringBuilder listed = new StringBuilder();
        for (String l : lines.subList(2, lines.size())) {
            assertTrue(l.startsWith("    ") && l.length() <= 80, l.length() + ": " + l);
            listed.append(l.strip()).append(' ');
        }
        StringBuilder expected = new StringBuilder("ranks");
        for (int r = 0; r < 256; r += 2) expected.append(' ').append(r);
        assertEquals(expected.toString(), listed.toString().strip());
        List<String> flagged = new FaultBoxes(false).calls(JOB, List.of(
                new InFlightCall(0, "main", "mpi.Comm.barrier", "MPI_COMM_WORLD", 1, -1, failed.subList(0, 3), true)));
        assertTrue(flagged.get(1).endsWith("NEVER COMPLETES: FAILED [1, 3, 5]"), flagged.get(1));
    }

    @Test
    void saysSoWhenNoThreadIsInsideACall() {
        assertEquals("(no thread of a readable rank is inside an MPI call)", new FaultBoxes(false).calls(JOB, List.of()).get(1));
    }
}
