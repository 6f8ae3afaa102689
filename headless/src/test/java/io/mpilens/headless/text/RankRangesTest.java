package io.mpilens.headless.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void aListIsParsedInTheOrderGivenAndABadPartIsNamed() {
        assertEquals(List.of(5, 0, 3, 4, 1), new ArrayList<>(RankRanges.parse(" 5,0 3-4,0,1")));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> RankRanges.parse("0,3-a"));
        assertEquals("'3-a' is not a rank or a range of ranks (e.g. 0,3-5)", e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> RankRanges.parse("5-3"));
        assertTrue(e.getMessage().contains("empty range"), e.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> RankRanges.parse(" , "));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> RankRanges.parse("-1"));
    }
}
