package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code mpilens watch} text: ranks that change the same way in one round share a line. */
class WatchLinesTest {
    private static final Instant T1 = Instant.parse("2026-11-22T11:00:00.250Z");
    private static final Instant T2 = Instant.parse("2026-11-22T11:00:02.500Z");

    @Test
    void aSixtyFourRankJobEndingIsOneLineAndTheOddRankOutIsItsOwn() {
        List<Transition> ts = new ArrayList<>();
        for (int r = 0; r < 64; r++) {
            if (r != 2) ts.add(new Transition(T1, "rank " + r, "OK", "FINALIZED", "MPI_Finalize returned"));
        }
        ts.add(new Transition(T1, "comm MPI_COMM_WORLD", "OK", "DETECTED", "failed members [2]"));
        ts.add(new Transition(T1, "rank 2", "OK", "FAILED", "process gone before MPI_Finalize"));
        ts.add(new Transition(T2, "rank 5", "FINALIZED", "FAILED", "process gone before MPI_Finalize"));
        List<String> lines = WatchCommand.lines(ts);
        String s1 = WatchCommand.stamp(T1);
        assertEquals(List.of(s1 + "  ranks 0 1 3-63: OK -> FINALIZED  (MPI_Finalize returned)",
                s1 + "  comm MPI_COMM_WORLD: OK -> DETECTED  (failed members [2])",
                s1 + "  rank 2: OK -> FAILED  (process gone before MPI_Finalize)",
                WatchCommand.stamp(T2) + "  rank 5: FINALIZED -> FAILED  (process gone before MPI_Finalize)"), lines);
    }

    @Test
    void scatteredRanksAreCountedOnTheLineAndListedUnderIt() {
        List<Transition> ts = new ArrayList<>();
        for (int r = 0; r < 100; r += 3) ts.add(new Transition(T1, "rank " + r, null, "OK", "answered"));
        List<String> lines = WatchCommand.lines(ts);
        assertEquals(WatchCommand.stamp(T1) + "  34 ranks: OK  (answered)", lines.get(0));
        StringBuilder listed = new StringBuilder();
        for (String l : lines.subList(1, lines.size())) {
            assertTrue(l.startsWith("    ") && l.length() <= 80, l);
            listed.append(l.strip()).append(' ');
        }
        StringBuilder expected = new StringBuilder("ranks");
        for (int r = 0; r < 100; r += 3) expected.append(' ').append(r);
        assertEquals(expected.toString(), listed.toString().strip());
    }
}
