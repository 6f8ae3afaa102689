package io.mpilens.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The values of one measurement (milliseconds or messages per second), in the order taken. */
final class Samples {
    private final List<Double> values = new ArrayList<>();

    void add(double v) {
        values.add(v);
    }

    int count() {
        return values.size();
    }

    List<Double> inOrder() {
        return List.copyOf(values);
    }

    List<Double> sorted() {
        List<Double> s = new ArrayList<>(values);
        Collections.sort(s);
        return s;
    }

    double median() {
        List<Double> s = sorted();
        int n = s.size();
        if (n == 0) return Double.NaN;
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    double min() {
        return values.isEmpty() ? Double.NaN : Collections.min(values);
    }

    double max() {
        return values.isEmpty() ? Double.NaN : Collections.max(values);
    }

    /** (max - min) / median: how far apart the extremes are, relative to the typical value. */
    double spread() {
        return (max() - min()) / median();
    }
}
