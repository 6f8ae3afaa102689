package io.mpilens.headless.ft;

import io.mpilens.api.model.RankRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How a job ended, from its ranks' records alone (so {@code jobs} can tell it long after):
 * still running, finished (every rank passed {@code MPI_Finalize}), or <b>aborted</b> — FT-MPI's
 * ABORT, Open MPI's default when a rank dies: which rank failed first and which ones the launcher
 * ended after it. The evidence is each record's exit time, written by the agent's exit hook: a
 * rank killed by SIGKILL or crashed has none; the ranks a launcher ends (SIGTERM) have one, a
 * moment after the failure; a rank that exited without {@code MPI_Finalize} by itself has the
 * earliest. Pure: whether a process still runs is passed in.
 */
public final class JobEnd {
    public enum State { RUNNING, FINISHED, ABORTED }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private final State state;
    private final List<Integer> firstFailed;
    private final Instant firstAt;
    private final List<Integer> endedAfter;
    private final Instant endedAt;
    private final boolean ambiguous;

    private JobEnd(State state, List<Integer> firstFailed, Instant firstAt, List<Integer> endedAfter, Instant endedAt,
                   boolean ambiguous) {
        this.state = state;
        this.firstFailed = List.copyOf(firstFailed);
        this.firstAt = firstAt;
        this.endedAfter = List.copyOf(endedAfter);
        this.endedAt = endedAt;
        this.ambiguous = ambiguous;
    }

    /**
     * @param running whether a record's process still runs: true, false, or null when this machine
     *                cannot tell (another host): such a job counts as running
     */
    public static <R extends RankRecord> JobEnd of(List<R> records, Function<? super R, Boolean> running) {
        if (records.isEmpty()) return new JobEnd(State.RUNNING, List.of(), null, List.of(), null, false);
        List<R> unfinished = new ArrayList<>();
        for (R r : records) {
            if (!Boolean.FALSE.equals(running.apply(r))) return new JobEnd(State.RUNNING, List.of(), null, List.of(), null, false);
            if (!r.finalized() && !r.spawned()) unfinished.add(r); // a spawned process is numbered by its own COMM_WORLD
        }
        if (unfinished.isEmpty()) return new JobEnd(State.FINISHED, List.of(), null, List.of(), null, false);
        List<Integer> died = new ArrayList<>(); // ended without exiting: SIGKILL, a crash
        Instant earliest = null;
        for (R r : unfinished) {
            if (r.exited() == null) died.add(r.rank());
            else if (earliest == null || r.exited().isBefore(earliest)) earliest = r.exited();
        }
        List<Integer> first = new ArrayList<>();
        List<Integer> after = new ArrayList<>();
        Instant firstAt = null;
        Instant endedAt = null;
        if (!died.isEmpty()) {
            first.addAll(died);
            for (R r : unfinished) {
                if (r.exited() == null) continue;
                after.add(r.rank());
                if (endedAt == null || r.exited().isAfter(endedAt)) endedAt = r.exited();
            }
        } else {
            firstAt = earliest;
            for (R r : unfinished) {
                if (r.exited().equals(earliest)) {
                    first.add(r.rank());
                } else {
                    after.add(r.rank());
                    if (endedAt == null || r.exited().isAfter(endedAt)) endedAt = r.exited();
                }
            }
        }
        first.sort(null);
        after.sort(null);
        // no exit time on any rank (agents before the exit hook, or every rank killed): which was first is not known
        boolean ambiguous = first.size() > 1 && after.isEmpty();
        return new JobEnd(State.ABORTED, first, firstAt, after, endedAt, ambiguous);
    }

    public State state() { return state; }
    /** The rank(s) that failed first; empty unless aborted. */
    public List<Integer> firstFailed() { return firstFailed; }
    /** When the first failure exited without finalizing; null when it died without exiting (its time is not recorded). */
    public Instant firstAt() { return firstAt; }
    /** The ranks that exited after the first failure without finalizing: ended by the launcher's abort. */
    public List<Integer> endedAfter() { return endedAfter; }
    /** When the last of them exited. */
    public Instant endedAt() { return endedAt; }
    /** Whether the records cannot tell which rank failed first. */
    public boolean ambiguous() { return ambiguous; }

    /** One line for a person: {@code aborted: rank 2 died first (killed or crashed: no exit recorded); the launcher then ended ranks 0 1 3 (by 12:01:02.155)}. */
    public String summary(ZoneId zone) {
        switch (state) {
            case RUNNING: return "running";
            case FINISHED: return "finished: every rank passed MPI_Finalize";
            default: break;
        }
        if (ambiguous) {
            return "aborted: " + ranks(firstFailed) + " ended without MPI_Finalize and without exiting (killed or crashed);"
                    + " which failed first is not recorded";
        }
        StringBuilder s = new StringBuilder("aborted: ").append(ranks(firstFailed));
        if (firstAt == null) s.append(" died first (killed or crashed: no exit recorded)");
        else s.append(" exited first without MPI_Finalize at ").append(time(firstAt, zone));
        if (!endedAfter.isEmpty()) {
            s.append("; the launcher then ended ").append(ranks(endedAfter));
            if (firstAt != null && endedAt != null) {
                s.append(' ').append(Duration.between(firstAt, endedAt).toMillis()).append(" ms later");
            } else if (endedAt != null) {
                s.append(" (by ").append(time(endedAt, zone)).append(')');
            }
        }
        return s.toString();
    }

    private static String ranks(List<Integer> rs) {
        StringBuilder s = new StringBuilder(rs.size() == 1 ? "rank" : "ranks");
        for (int r : rs) s.append(' ').append(r);
        return s.toString();
    }

    private static String time(Instant t, ZoneId zone) {
        return LocalTime.ofInstant(t, zone).format(TIME);
    }
}
