package io.mpilens.headless.observe;

import io.mpilens.api.model.ProcessSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What was read from a set of JDWP addresses: the MPI processes found, sorted by rank (one
 * address can hold several ranks under MPJ Express multicore), and one failure per address
 * that could not be read.
 */
public record JobSnapshot(List<Rank> ranks, List<Failure> failures) {
    /** One MPI process and the address it was read from. */
    public record Rank(String address, ProcessSnapshot process) {
    }

    /** An address that could not be read, with a message that names the cause and the next step. */
    public record Failure(String address, String message) {
    }

    private static final Comparator<Rank> BY_RANK = Comparator
            .comparingInt((Rank r) -> r.process().rank() < 0 ? Integer.MAX_VALUE : r.process().rank())
            .thenComparing(Rank::address);

    public JobSnapshot {
        List<Rank> sorted = new ArrayList<>(ranks);
        sorted.sort(BY_RANK);
        ranks = List.copyOf(sorted);
        failures = List.copyOf(failures);
    }

    /** Every address was read. */
    public boolean complete() {
        return failures.isEmpty();
    }

    public List<ProcessSnapshot> processes() {
        List<ProcessSnapshot> out = new ArrayList<>();
        for (Rank r : ranks) out.add(r.process());
        return out;
    }
}
