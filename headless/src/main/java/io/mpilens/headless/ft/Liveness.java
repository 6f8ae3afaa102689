package io.mpilens.headless.ft;

import io.mpilens.api.model.MpiState;
import java.time.Duration;
import java.util.List;

/**
 * The rules that turn one observation of a rank into a {@link ProcessState}. A rank that does
 * not answer in time is {@code UNAVAILABLE}, never {@code FAILED}: {@code FAILED} needs
 * evidence (its VM disconnected, or its process is gone from this host).
 */
public final class Liveness {
    /** Latecomers get the observed skew plus this much (coordinated clean-stop protocols). */
    public static final double GRACE = 1.2;

    private Liveness() {
    }

    /** How an attempt to read a rank ended. */
    public enum Outcome {
        ANSWERED,
        /** No answer before the deadline: connected or not. */
        TIMED_OUT,
        /** Nothing listens at its JDWP address. */
        REFUSED,
        /** The JDWP connection broke while reading: the VM died or exited. */
        DISCONNECTED,
        /** No address to try (no JDWP listener in its record). */
        NO_ADDRESS,
        /** It answered, but without a readable mpilens registry. */
        NO_AGENT
    }

    /** A state and the evidence for it, in words a user reads. */
    public record Verdict(ProcessState state, String evidence) {
    }

    /**
     * @param mpiState     what the rank's registry said, when it answered
     * @param pidAlive     whether its process exists on this host: null when unknown (another host, no pid)
     * @param finalizedRecord its job record says it finalized MPI
     */
    public static Verdict judge(Outcome outcome, MpiState mpiState, Boolean pidAlive, boolean finalizedRecord) {
        if (outcome == Outcome.ANSWERED || outcome == Outcome.NO_AGENT) {
            if (outcome == Outcome.NO_AGENT) return new Verdict(ProcessState.JOINING, "JVM answers, no mpilens registry yet");
            switch (mpiState) {
                case NOT_INITIALIZED: return new Verdict(ProcessState.JOINING, "agent up, MPI not initialised");
                case FINALIZED: return new Verdict(ProcessState.FINALIZED, "MPI finalized");
                default: return new Verdict(ProcessState.OK, "answered");
            }
        }
        if (Boolean.FALSE.equals(pidAlive)) {
            return finalizedRecord ? new Verdict(ProcessState.FINALIZED, "finalized MPI, then exited")
                    : new Verdict(ProcessState.FAILED, "process gone before MPI_Finalize");
        }
        switch (outcome) {
            case DISCONNECTED:
                return Boolean.TRUE.equals(pidAlive)
                        ? new Verdict(ProcessState.UNAVAILABLE, "JDWP connection dropped, process still alive")
                        : new Verdict(ProcessState.FAILED, "VM disconnected while being read");
            case REFUSED:
                return new Verdict(ProcessState.UNAVAILABLE, Boolean.TRUE.equals(pidAlive)
                        ? "JDWP port refused, process alive (its listener may have moved)"
                        : "JDWP port refused (no way to check the process from here)");
            case NO_ADDRESS:
                return new Verdict(ProcessState.UNAVAILABLE, "no JDWP address registered");
            default:
                return new Verdict(ProcessState.UNAVAILABLE, "no answer within the deadline (stopped or overloaded?)");
        }
    }

    /**
     * When ranks that have not answered yet become {@code UNAVAILABLE}: the first answer plus
     * the observed skew (the larger of this round's spread of answers and {@code previousSkew})
     * plus 20%, at least {@code floor} after the first answer, never beyond {@code cap}.
     * Before anyone answered, {@code cap}.
     *
     * @param answers elapsed time of each rank that answered so far, from the start of the round
     */
    public static Duration latecomerDeadline(List<Duration> answers, Duration previousSkew, Duration floor, Duration cap) {
        if (answers.isEmpty()) return cap;
        Duration first = answers.stream().min(Duration::compareTo).orElseThrow();
        Duration last = answers.stream().max(Duration::compareTo).orElseThrow();
        Duration skew = last.minus(first);
        if (previousSkew != null && previousSkew.compareTo(skew) > 0) skew = previousSkew;
        Duration grant = Duration.ofNanos(Math.round(skew.toNanos() * GRACE));
        if (grant.compareTo(floor) < 0) grant = floor;
        Duration deadline = first.plus(grant);
        return deadline.compareTo(cap) > 0 ? cap : deadline;
    }
}
