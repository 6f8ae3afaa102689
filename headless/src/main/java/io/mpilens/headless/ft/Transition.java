package io.mpilens.headless.ft;

import java.time.Instant;

/**
 * One change in the timeline: {@code subject} ({@code rank 2}, {@code comm MPI_COMM_WORLD},
 * {@code host node1}) went from {@code from} (null when first seen) to {@code to}.
 */
public record Transition(Instant at, String subject, String from, String to, String why) {
    @Override
    public String toString() {
        return at + "  " + subject + ": " + (from == null ? "" : from + " -> ") + to + (why == null || why.isEmpty() ? "" : "  (" + why + ")");
    }
}
