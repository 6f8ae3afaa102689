package io.mpilens.examples;

import java.util.Arrays;

/**
 * The output of the transparency corpus (both bindings): one deterministic line per result a rank
 * got from its binding, {@code rank R: what values…}, and the cases a binding cannot express,
 * said once by rank 0 as {@code corpus: not in this binding: …}.
 */
public final class CorpusLines {
    private final int rank;

    public CorpusLines(int rank) {
        this.rank = rank;
    }

    public void say(String what, Object... values) {
        StringBuilder b = new StringBuilder("rank ").append(rank).append(": ").append(what);
        for (Object v : values) {
            b.append(' ').append(v instanceof int[] ? Arrays.toString((int[]) v)
                    : v instanceof double[] ? Arrays.toString((double[]) v) : String.valueOf(v));
        }
        System.out.println(b);
    }

    public void notInBinding(String what) {
        if (rank == 0) System.out.println("corpus: not in this binding: " + what);
    }
}
