package io.mpilens.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RatioIntervalTest {

    @Test
    void launchesThatDoNotVaryGiveTheRatioItself() {
        RatioInterval.Interval i = RatioInterval.ofMedians(List.of(200.0, 200.0, 200.0), List.of(190.0, 190.0, 190.0));
        assertEquals(0.95, i.low(), 1e-12);
        assertEquals(0.95, i.high(), 1e-12);
        assertEquals(RatioInterval.Verdict.NOT_MET, i.atLeast(0.97));
        assertEquals(RatioInterval.Verdict.MET, i.atLeast(0.95));
    }

    @Test
    void theSameLaunchesOnBothSidesSpanOneAndDecideNoGoalNearIt() {
        List<Double> launches = List.of(90.0, 100.0, 110.0, 95.0, 105.0, 120.0, 80.0);
        RatioInterval.Interval i = RatioInterval.ofMedians(launches, launches);
        assertTrue(i.low() < 0.97 && i.high() > 1.03, i.render());
        assertEquals(RatioInterval.Verdict.NOT_DECIDED, i.atLeast(0.97));
        // a goal far below the spread is decided
        assertEquals(RatioInterval.Verdict.MET, i.atLeast(0.5));
    }

    @Test
    void sameLaunchesSameInterval() {
        List<Double> a = List.of(3.0, 4.0, 5.0, 4.5, 3.5);
        List<Double> b = List.of(2.9, 4.2, 4.8, 4.4, 3.1);
        assertEquals(RatioInterval.ofMedians(a, b), RatioInterval.ofMedians(a, b));
    }

    @Test
    void geometricMeanOfConstantTimers() {
        RatioInterval.Interval i = RatioInterval.ofGeometricMean(
                List.of(List.of(10.0, 10.0), List.of(4.0, 4.0)), List.of(List.of(9.0, 9.0), List.of(4.0, 4.0)));
        assertEquals(Math.sqrt(0.9), i.low(), 1e-12);
        assertEquals(Math.sqrt(0.9), i.high(), 1e-12);
    }

    /**
     * The interval covers the true ratio about as often as it says: launches drawn from two normal
     * distributions whose medians are 1.00 and 0.96, 11 launches per side, 300 runs (fixed seed).
     */
    @Test
    void coversTheTrueRatioAsOftenAsItSays() {
        Random r = new Random(42);
        int covered = 0;
        int runs = 300;
        for (int run = 0; run < runs; run++) {
            List<Double> without = new ArrayList<>();
            List<Double> with = new ArrayList<>();
            for (int i = 0; i < 11; i++) {
                without.add(1.00 + 0.05 * r.nextGaussian());
                with.add(0.96 + 0.05 * r.nextGaussian());
            }
            RatioInterval.Interval i = RatioInterval.ofMedians(without, with);
            if (i.low() <= 0.96 && 0.96 <= i.high()) covered++;
        }
        double share = covered / (double) runs;
        // 90 % nominal; a bootstrap of medians of 11 is a little off either way, not far
        assertTrue(share >= 0.80 && share <= 0.98, "covered in " + covered + " of " + runs);
    }

    @Test
    void launchesToDecideGrowAsTheSquareOfTheSpreadOverTheDistance() {
        RatioInterval.Interval i = new RatioInterval.Interval(0.94, 1.06);
        // half-width 0.06 toward the goal, 0.03 from it: four times the launches
        assertEquals(28, RatioInterval.launchesToDecide(1.00, i, 7, 0.97));
        // decided already: the launches of the run
        assertEquals(7, RatioInterval.launchesToDecide(1.00, i, 7, 0.90));
        // on the goal: no number of launches
        assertEquals(RatioInterval.MOST_LAUNCHES + 1, RatioInterval.launchesToDecide(0.97, new RatioInterval.Interval(0.9, 1.0), 7, 0.97));
        assertEquals("more than 1000 launches per side", RatioInterval.launchesText(RatioInterval.MOST_LAUNCHES + 1));
    }

    @Test
    void judgedNamesTheIntervalAndWhatWouldDecideIt() {
        String s = RatioInterval.judged(1.00, new RatioInterval.Interval(0.94, 1.06), 7, 0.97);
        assertEquals("90 % interval 0.940 .. 1.060: NOT DECIDED by this run (about 28 launches per side would decide it at"
                + " this run's spread)", s);
        assertEquals("90 % interval 0.980 .. 1.010: MET", RatioInterval.judged(0.99, new RatioInterval.Interval(0.98, 1.01), 7, 0.97));
    }

    @Test
    void readingsAtOrBelowZeroAndMissingSidesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> RatioInterval.ofMedians(List.of(1.0, 0.0), List.of(1.0, 1.0)));
        assertThrows(IllegalArgumentException.class, () -> RatioInterval.ofMedians(List.of(), List.of(1.0)));
        assertThrows(IllegalArgumentException.class, () -> RatioInterval.ofGeometricMean(List.of(List.of(1.0)), List.of()));
    }
}
