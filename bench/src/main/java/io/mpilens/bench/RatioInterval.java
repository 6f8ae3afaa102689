package io.mpilens.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How far one run of a with/without benchmark can be trusted: a percentile bootstrap over its
 * launches. The launches of each side are drawn again with replacement ({@link #RESAMPLES} times),
 * the statistic (a ratio of medians, or the geometric mean of several) is computed on each draw,
 * and the central {@link #LEVEL} of those values is the interval. A goal is decided by a run only
 * when the interval lies on one side of it: a ratio whose interval spans the goal is what a run of
 * this size on this machine cannot tell from it (an agent of no cost at all reads below a 0.97
 * goal in a good share of such runs). The draws are seeded: the same launches give the same interval.
 */
final class RatioInterval {
    static final double LEVEL = 0.90;
    static final int RESAMPLES = 4000;
    private static final long SEED = 0x6d70696c656e73L;
    /** Launches per side beyond which {@link #launchesToDecide} says "more than this". */
    static final int MOST_LAUNCHES = 1000;

    /** The interval of a statistic; {@code low <= high}. */
    record Interval(double low, double high) {
        /** The goal "at least {@code goal}" judged by this interval. */
        Verdict atLeast(double goal) {
            if (low >= goal) return Verdict.MET;
            if (high < goal) return Verdict.NOT_MET;
            return Verdict.NOT_DECIDED;
        }

        String render() {
            return String.format(Locale.ROOT, "%.3f .. %.3f", low, high);
        }
    }

    enum Verdict {
        MET("MET"), NOT_MET("NOT MET"), NOT_DECIDED("NOT DECIDED by this run");

        final String text;

        Verdict(String text) {
            this.text = text;
        }
    }

    private RatioInterval() {
    }

    /** The interval of median(with) / median(without) (performance with / without: higher is better on both). */
    static Interval ofMedians(List<Double> without, List<Double> with) {
        return ofGeometricMean(List.of(without), List.of(with));
    }

    /**
     * The interval of the geometric mean, over timers, of median(with) / median(without): each draw
     * draws every timer's launches again, both sides apart (the launches of one side are not paired
     * with the other's).
     */
    static Interval ofGeometricMean(List<List<Double>> withouts, List<List<Double>> withs) {
        if (withouts.size() != withs.size() || withouts.isEmpty()) {
            throw new IllegalArgumentException("timers: " + withouts.size() + " without, " + withs.size() + " with");
        }
        int timers = withouts.size();
        double[][] a = new double[timers][];
        double[][] b = new double[timers][];
        for (int t = 0; t < timers; t++) {
            a[t] = values(withouts.get(t));
            b[t] = values(withs.get(t));
        }
        SplittableRandom random = new SplittableRandom(SEED);
        double[] stats = new double[RESAMPLES];
        double[] scratchA = new double[Arrays.stream(a).mapToInt(x -> x.length).max().orElse(0)];
        double[] scratchB = new double[Arrays.stream(b).mapToInt(x -> x.length).max().orElse(0)];
        for (int r = 0; r < RESAMPLES; r++) {
            double logSum = 0;
            for (int t = 0; t < timers; t++) {
                logSum += Math.log(drawnMedian(b[t], scratchB, random) / drawnMedian(a[t], scratchA, random));
            }
            stats[r] = Math.exp(logSum / timers);
        }
        Arrays.sort(stats);
        double tail = (1 - LEVEL) / 2;
        return new Interval(stats[(int) Math.floor(tail * (RESAMPLES - 1))], stats[(int) Math.ceil((1 - tail) * (RESAMPLES - 1))]);
    }

    /**
     * Launches per side a run would need for its interval to leave {@code goal} on one side, if the
     * launches spread as in this run (the interval narrows as one over the square root of the
     * launches); {@link #MOST_LAUNCHES} + 1 when the ratio sits on the goal or further than that.
     */
    static int launchesToDecide(double ratio, Interval interval, int launches, double goal) {
        double distance = Math.abs(ratio - goal);
        double halfWidth = ratio >= goal ? ratio - interval.low() : interval.high() - ratio;
        if (halfWidth <= distance) return launches; // decided already
        if (distance == 0) return MOST_LAUNCHES + 1;
        double n = Math.ceil(launches * (halfWidth / distance) * (halfWidth / distance));
        return n > MOST_LAUNCHES ? MOST_LAUNCHES + 1 : (int) n;
    }

    /** {@link #launchesToDecide} in words. */
    static String launchesText(int n) {
        return n > MOST_LAUNCHES ? "more than " + MOST_LAUNCHES + " launches per side" : "about " + n + " launches per side";
    }

    /** A goal "ratio >= goal" judged by the run's interval of the ratio, and what would decide it. */
    static String judged(double ratio, Interval interval, int launches, double goal) {
        Verdict v = interval.atLeast(goal);
        String s = String.format(Locale.ROOT, "%.0f %% interval %s: %s", 100 * LEVEL, interval.render(), v.text);
        if (v != Verdict.NOT_DECIDED) return s;
        return s + " (" + launchesText(launchesToDecide(ratio, interval, launches, goal))
                + " would decide it at this run's spread)";
    }

    private static double[] values(List<Double> side) {
        if (side.isEmpty()) throw new IllegalArgumentException("a side without launches");
        double[] v = new double[side.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = side.get(i);
            if (!(v[i] > 0)) throw new IllegalArgumentException("a reading at or below zero: " + v[i]);
        }
        return v;
    }

    private static double drawnMedian(double[] from, double[] scratch, SplittableRandom random) {
        int n = from.length;
        for (int i = 0; i < n; i++) scratch[i] = from[random.nextInt(n)];
        Arrays.sort(scratch, 0, n);
        return n % 2 == 1 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
    }
}
