package io.mpilens.headless.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The RANKS column of {@code mpilens leaks}: every rank of a 64-rank job in a few columns. */
class LeakReportRanksTest {
    private static TreeSet<Integer> ranks(int from, int to, Integer... more) {
        TreeSet<Integer> out = new TreeSet<>(List.of(more));
        for (int r = from; r <= to; r++) out.add(r);
        return out;
    }

    @Test
    void runsOfRanksAreShortenedAndAnUnknownRankIsAQuestionMark() {
        assertEquals("0-63", LeakReport.ranks(ranks(0, 63)));
        assertEquals("0,1,3-63", LeakReport.ranks(ranks(3, 63, 0, 1)));
        assertEquals("?,0-2", LeakReport.ranks(ranks(0, 2, -1)));
        assertEquals("?", LeakReport.ranks(ranks(0, -1, -1)));
        assertEquals("", LeakReport.ranks(new TreeSet<>()));
    }

    @Test
    void aListThatStillDoesNotFitIsCut() {
        TreeSet<Integer> every2nd = new TreeSet<>();
        for (int r = 0; r < 64; r += 2) every2nd.add(r);
        assertEquals("0,2,4,6,8,10,12,14,16,18,...", LeakReport.ranks(every2nd));
    }
}
