package io.mpilens.headless.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RankRangesTest {
    private static List<Integer> range(int from, int to) {
        List<Integer> out = new ArrayList<>();
        for (int r = from; r <= to; r++) out.add(r);
        return out;
    }

    @Test
    void runsOfThreeOrMoreAreShortenedAndShorterOnesAreNot() {
        List<Integer> ranks = new ArrayList<>(List.of(0, 1));
        ranks.addAll(range(3, 63));
        assertEquals("0,1,3-63", RankRanges.format(ranks, ","));
        assertEquals("0 1x 2", RankRanges.format(List.of(0, 1, 2), r -> r == 1 ? "x" : "", " "));
        assertEquals("", RankRanges.format(List.of(), ","));
        assertEquals("7", RankRanges.format(List.of(7), ","));
    }

    @Test
    void aRunEndsWhereTheMarkChangesAndMarkedRunsKeepTheirMark() {
        List<Integer> ranks = range(0, 11);
        assertEquals("0 1 2x 3 4-6x 7-11", RankRanges.format(ranks, r -> r == 2 || (r >= 4 && r <= 6) ? "x" : "", " "));
    }

    @Test
    void theOrderIsKeptAndOnlyAscendingNeighboursMakeARun() {
        assertEquals("5,4,3,8-10,1", RankRanges.format(List.of(5, 4, 3, 8, 9, 10, 1), ","));
    }
}
