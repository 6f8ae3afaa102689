package io.mpilens.plugin.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.text.WaitForPicture;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The MPI Calls view's table: a row per rank and thread, its call taken apart, since when it is there, its verdict. */
class CallRowsTest {
    private static final Instant FIRST = Instant.parse("2026-11-28T12:00:00Z");
    private static final Instant LATER = Instant.parse("2026-11-28T12:00:07Z");

    private static JobModel job(Instant at, List<PendingOnFailedPeer> pending) {
        return new JobModel("j", at, List.of(), List.of(), List.of(), List.of(), pending);
    }

    private static WaitFor.Analysis none() {
        return new WaitFor.Analysis(List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), Map.of());
    }

    @Test
    void aCallIsTakenApartIntoItsColumns() {
        InFlightCall sendRecv = new InFlightCall(1, "main", "mpi.Comm.sendRecv", "MPI_COMM_WORLD", 1, 0, List.of(), false,
                null, false, 8, 0, 7);
        InFlightCall anyRecv = new InFlightCall(0, "io", "mpi.Comm.recv", "pair", 5, -1, List.of(), false, null, true,
                InFlightCall.ANY_TAG);
        InFlightCall barrier = new InFlightCall(2, "main", "mpi.Intracomm.barrier", "MPI_COMM_WORLD", 1, -1, List.of(3), true);
        List<CallRows.Row> rows = CallRows.of(job(FIRST, List.of()), List.of(sendRecv, barrier, anyRecv), none(),
                WaitFor.Looks.ONE, Map.of());
        assertEquals(List.of(0, 1, 2), rows.stream().map(CallRows.Row::rank).toList(), "by rank");
        assertEquals(List.of("0", "io", "recv", "pair", "any", "any"), rows.get(0).cells().subList(0, 6));
        assertEquals(List.of("1", "main", "sendRecv", "MPI_COMM_WORLD", "to 0, from 0", "7, 8"), rows.get(1).cells().subList(0, 6));
        assertEquals("NEVER COMPLETES: FAILED [3]", rows.get(2).cell(CallRows.Column.VERDICT));
        assertEquals(WaitForPicture.colour(WaitFor.Verdict.NEVER_COMPLETES), rows.get(2).colour());
        assertNull(rows.get(0).colour(), "not stuck: no colour");
        assertEquals("", rows.get(0).cell(CallRows.Column.VERDICT));
    }

    @Test
    void aThreadInTheSameCallKeepsTheTimeItWasFirstSeenThereUntilItLeaves() {
        InFlightCall recv = new InFlightCall(0, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, 1, List.of(), false);
        InFlightCall other = new InFlightCall(0, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, 2, List.of(), false);
        Map<String, Instant> seen = new HashMap<>();
        CallRows.remember(seen, List.of(recv), FIRST);
        CallRows.remember(seen, List.of(recv), LATER);
        assertEquals(FIRST, seen.get(CallRows.stay(recv)));
        String since = CallRows.of(job(LATER, List.of()), List.of(recv), none(), WaitFor.Looks.ONE, seen).get(0)
                .cell(CallRows.Column.SINCE);
        assertEquals(java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss").withZone(java.time.ZoneId.systemDefault())
                .format(FIRST), since);
        // another peer is another call: its time starts again, and the first is forgotten
        CallRows.remember(seen, List.of(other), LATER);
        assertEquals(Map.of(CallRows.stay(other), LATER), seen);
    }

    @Test
    void requestsPendingOnAFailedPeerFollowTheCallsWithTheirShortIds() {
        JobModel m = job(FIRST, List.of(new PendingOnFailedPeer(3, 1099511627778L, "iRecv", 2, 11, "MPI_COMM_WORLD",
                "MPI_COMM_WORLD")));
        CallRows.Row row = CallRows.of(m, List.of(), none(), WaitFor.Looks.ONE, Map.of()).get(0);
        assertEquals(List.of("3", "(pending request)", "iRecv #r2", "MPI_COMM_WORLD", "2", "11", "",
                "NEVER COMPLETES: FAILED [2]"), row.cells());
    }
}
