package io.mpilens.headless.ft;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.RankRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The job's status in one word, as Code_Aster's parallel driver keeps it: bits combined by OR,
 * each set by an observation on rank 0 (COMM_WORLD rank 0 of the job, any incarnation) or on
 * another rank, and the observations that set them ({@link #reasons()}). Pure: the rule reads
 * the job model only.
 *
 * <ul>
 * <li>errors: a rank {@code FAILED} (its process gone before {@code MPI_Finalize}: killed,
 *     crashed, an uncaught exception ended it); an MPI exception raised to the application (the
 *     agent's error records); a request of a live rank pending on a {@code FAILED} peer;</li>
 * <li>alarms: a rank {@code UNAVAILABLE} whose process was seen running (past its deadline, not
 *     dead: stopped, overloaded, or held by a debugger); the agent's health: events it could not
 *     record, or errors inside its interception; orphans or leaked handles of a rank that grew
 *     between two looks at the job ({@link #grown}: one look cannot tell, so only callers that
 *     hold two — {@code watch}, {@code status --interval}, {@code run --status-exit} — judge it);</li>
 * <li>undefined: a rank {@code UNAVAILABLE} of which nothing else is known (its host's collector
 *     did not answer, no process to check, no heap dump of it). Code_Aster has no bit for rank 0
 *     undefined (its rank 0 is the one who asks); mpilens asks from outside the job, so rank 0
 *     can be undefined too: it sets {@link #UN_OTH}, and its reason names rank 0.</li>
 * </ul>
 */
public record StatusWord(int bits, List<Reason> reasons) {
    public static final int OK = 0;
    public static final int AL_PR0 = 1;
    public static final int AL_OTH = 2;
    public static final int ER_PR0 = 4;
    public static final int ER_OTH = 8;
    public static final int UN_OTH = 16;
    /** The names of the bits, lowest first. */
    private static final String[] NAMES = {"AL_PR0", "AL_OTH", "ER_PR0", "ER_OTH", "UN_OTH"};

    /** Which kind of observation a reason is. */
    public enum Kind {
        ERROR, UNDEFINED, ALARM;

        int bit(int rank) {
            switch (this) {
                case ERROR: return rank == 0 ? ER_PR0 : ER_OTH;
                case ALARM: return rank == 0 ? AL_PR0 : AL_OTH;
                default: return UN_OTH;
            }
        }
    }

    /**
     * One observation behind the word.
     *
     * @param rank   COMM_WORLD rank, -1 when not known (an address given with {@code --attach})
     * @param epoch  the rank's incarnation (a REBUILD's replacement is 1 or more)
     * @param what   what was observed, short: {@code FAILED}, {@code MPI error in barrier}
     * @param detail the evidence, for a person reading all of it; may be empty
     */
    public record Reason(Kind kind, int bit, int rank, int epoch, String what, String detail) {
        /** {@code rank 2 FAILED}. */
        public String brief() {
            return who() + " " + what;
        }

        /** {@code rank 2 FAILED: process gone before MPI_Finalize}. */
        public String full() {
            return brief() + (detail == null || detail.isEmpty() ? "" : ": " + detail);
        }

        String who() {
            return (rank < 0 ? "rank ?" : "rank " + rank) + (epoch > 0 ? " epoch " + epoch : "");
        }
    }

    public StatusWord {
        reasons = List.copyOf(reasons);
    }

    /**
     * The word of the job as the model shows it, with the growth its observer saw since its look
     * before ({@link JobModel#grown()}, empty after one look).
     */
    public static StatusWord of(JobModel m) {
        return of(m.processes(), m.pendingOnFailed()).with(m.grown());
    }

    /** The rule, from the ranks' observations and the requests pending on failed peers. */
    public static StatusWord of(List<RankStatus> processes, List<PendingOnFailedPeer> pendingOnFailed) {
        List<Reason> out = new ArrayList<>();
        for (RankStatus r : processes) {
            switch (r.state()) {
                case FAILED:
                    out.add(reason(Kind.ERROR, r, "FAILED", r.evidence()));
                    break;
                case UNAVAILABLE:
                    if (Boolean.TRUE.equals(r.processAlive())) {
                        out.add(reason(Kind.ALARM, r, "UNAVAILABLE (alive)", r.evidence()));
                    } else {
                        out.add(reason(Kind.UNDEFINED, r, "UNAVAILABLE (undefined)", r.evidence()));
                    }
                    break;
                default:
                    break;
            }
            if (r.snapshot() == null) continue;
            List<MpiError> errors = r.snapshot().errors();
            if (!errors.isEmpty()) {
                MpiError first = errors.stream().min(Comparator.comparingLong(MpiError::nanoTime)).orElseThrow();
                String cls = first.errorClass() == HandleInfo.UNKNOWN ? "" : " (class " + first.errorClass() + ")";
                String what = errors.size() == 1 ? "MPI error in " + first.call() + cls
                        : "raised " + errors.size() + " MPI errors, first in " + first.call() + cls;
                out.add(reason(Kind.ERROR, r, what, first.causeClass() == null ? first.message()
                        : first.causeClass() + (first.message() == null ? "" : ": " + first.message())));
            }
            AgentHealth h = r.snapshot().agentHealth();
            if (h != null && h.untrackedEvents() > 0) {
                out.add(reason(Kind.ALARM, r, "agent could not record " + h.untrackedEvents() + " MPI event"
                        + (h.untrackedEvents() == 1 ? "" : "s"), "mpilens does not show them"));
            }
            if (h != null && h.internalErrors() > 0) {
                out.add(reason(Kind.ALARM, r, "agent had " + h.internalErrors() + " internal error"
                        + (h.internalErrors() == 1 ? "" : "s"), h.lastError() == null ? "" : h.lastError()));
            }
        }
        Map<Integer, TreeSet<Integer>> peers = new TreeMap<>();
        Map<Integer, Integer> count = new TreeMap<>();
        for (PendingOnFailedPeer p : pendingOnFailed) {
            peers.computeIfAbsent(p.rank(), k -> new TreeSet<>()).add(p.peer());
            count.merge(p.rank(), 1, Integer::sum);
        }
        for (Map.Entry<Integer, Integer> e : count.entrySet()) {
            int rank = e.getKey();
            int n = e.getValue();
            String on = peers.get(rank).stream().map(String::valueOf).reduce((a, b) -> a + " " + b).orElse("");
            out.add(new Reason(Kind.ERROR, Kind.ERROR.bit(rank), rank, 0, "has " + n + " request" + (n == 1 ? "" : "s")
                    + " pending on FAILED " + on, "can never complete"));
        }
        return combined(out);
    }

    /** The word of these reasons: errors first, then undefined, then alarms, each by rank; the bits OR-ed. */
    private static StatusWord combined(List<Reason> reasons) {
        List<Reason> out = new ArrayList<>(reasons);
        out.sort(Comparator.comparing(Reason::kind).thenComparingInt(Reason::rank).thenComparingInt(Reason::epoch));
        int bits = 0;
        for (Reason x : out) bits |= x.bit();
        return new StatusWord(bits, out);
    }

    /** This word with more reasons ({@link #grown}), their bits OR-ed in. */
    public StatusWord with(List<Reason> more) {
        if (more.isEmpty()) return this;
        List<Reason> all = new ArrayList<>(reasons);
        all.addAll(more);
        return combined(all);
    }

    /**
     * One rank's orphans (freed by the application, kept alive by MPI: {@link Lifecycle#FREED}) and
     * leaked handles (the wrapper garbage-collected without {@code free()}, the object still in MPI)
     * at one look: what {@link #grown} compares.
     */
    public record Held(int rank, int epoch, int orphans, int leaked, Instant at) {
        /** The rank's counts at {@code at}; null when it did not answer (nothing to count). */
        public static Held of(RankStatus r, Instant at) {
            return r.snapshot() == null ? null : of(r.rank(), r.epoch(), r.snapshot(), at);
        }

        public static Held of(int rank, int epoch, ProcessSnapshot s, Instant at) {
            int orphans = 0, leaked = 0;
            for (HandleInfo h : s.handles()) {
                if (h.predefined()) continue;
                if (h.state() == Lifecycle.FREED) orphans++;
                else if (h.leaked()) leaked++;
            }
            return new Held(rank, epoch, orphans, leaked, at);
        }
    }

    /**
     * The alarms of orphans or leaks that grow: a rank (the same incarnation) whose count of orphans or
     * of leaked handles is higher at the later look than at the earlier one. A rank seen at only one of
     * the looks is not judged. Alarm on rank 0: {@link #AL_PR0}; on another rank: {@link #AL_OTH}.
     */
    public static List<Reason> grown(Collection<Held> before, Collection<Held> after) {
        Map<List<Integer>, Held> earlier = new HashMap<>();
        for (Held h : before) earlier.put(List.of(h.rank(), h.epoch()), h);
        List<Reason> out = new ArrayList<>();
        for (Held now : after) {
            Held then = earlier.get(List.of(now.rank(), now.epoch()));
            if (then == null) continue;
            String apart = apart(then.at(), now.at());
            if (now.leaked() > then.leaked()) {
                out.add(new Reason(Kind.ALARM, Kind.ALARM.bit(now.rank()), now.rank(), now.epoch(), "leaked handles grow",
                        then.leaked() + " -> " + now.leaked() + apart + ": wrappers collected without free(),"
                                + " MPI still holds them"));
            }
            if (now.orphans() > then.orphans()) {
                out.add(new Reason(Kind.ALARM, Kind.ALARM.bit(now.rank()), now.rank(), now.epoch(), "orphans grow",
                        then.orphans() + " -> " + now.orphans() + apart + ": freed by the application, kept alive by MPI"));
            }
        }
        out.sort(Comparator.comparingInt(Reason::rank).thenComparingInt(Reason::epoch).thenComparing(Reason::what));
        return out;
    }

    /** {@code  in 2.0 s}, empty when a time is not known. */
    private static String apart(Instant then, Instant now) {
        if (then == null || now == null) return "";
        return String.format(Locale.ROOT, " in %.1f s", Duration.between(then, now).toMillis() / 1000.0);
    }

    /**
     * The word from the job's records alone, without reading any rank ({@code jobs}): a rank whose
     * process is gone before {@code MPI_Finalize} is an error, one whose process this machine cannot
     * see (another host) undefined; what only a read shows (MPI errors, requests, the agent's
     * health, a rank that does not answer) is not in it. Processes a running job spawned are left out
     * (they are numbered by their own COMM_WORLD).
     *
     * @param running whether a record's process still runs: true, false, or null when not known
     */
    public static <R extends RankRecord> StatusWord ofRecords(List<R> records, Function<? super R, Boolean> running) {
        return ofRecords(records, running, Map.of(), 0);
    }

    /**
     * The word of a job that has ended ({@code run --status-exit}): its records as above, what each
     * rank's last snapshot showed while it ran (its MPI errors, its agent's health), and the
     * launcher's exit code: one that is not 0 while no rank is in error is an error of a rank not
     * known (Open MPI's {@code mpirun} passes on a rank's exit code without saying whose).
     *
     * @param last         each rank's last snapshot (by COMM_WORLD rank), empty when none was read
     * @param launcherExit the launcher's exit code, 0 when it is not known or not wanted
     */
    public static <R extends RankRecord> StatusWord ofRecords(List<R> records, Function<? super R, Boolean> running,
                                                              Map<Integer, ProcessSnapshot> last, int launcherExit) {
        List<RankStatus> ranks = new ArrayList<>();
        for (R r : records) {
            if (r.spawned()) continue;
            Boolean alive = running.apply(r);
            ProcessState state;
            String evidence;
            if (r.finalized()) {
                state = ProcessState.FINALIZED;
                evidence = "MPI finalized";
            } else if (Boolean.TRUE.equals(alive)) {
                state = ProcessState.OK;
                evidence = "running";
            } else if (Boolean.FALSE.equals(alive)) {
                state = ProcessState.FAILED;
                evidence = "process gone before MPI_Finalize";
            } else {
                state = ProcessState.UNAVAILABLE;
                evidence = "runs on " + r.host() + ": not known here";
            }
            ProcessSnapshot seen = r.epoch() == 0 ? last.get(r.rank()) : null;
            ranks.add(new RankStatus(r.rank(), r.epoch(), r.pid(), r.parentPid(), r.host(), r.jdwp(), state, evidence,
                    -1, seen, alive));
        }
        StatusWord w = of(ranks, List.of());
        if (launcherExit == 0 || w.reasons().stream().anyMatch(x -> x.kind() == Kind.ERROR)) return w;
        List<Reason> more = new ArrayList<>(w.reasons());
        more.add(0, new Reason(Kind.ERROR, ER_OTH, -1, 0, "exit code " + launcherExit,
                "the launcher's; which rank's is not known"));
        return new StatusWord(w.bits() | ER_OTH, more);
    }

    private static Reason reason(Kind kind, RankStatus r, String what, String detail) {
        return new Reason(kind, kind.bit(r.rank()), r.rank(), r.epoch(), what, detail == null ? "" : detail);
    }

    /** {@code OK}, {@code ER_OTH}, {@code ER_PR0+ER_OTH}: the names of the bits set. */
    public String name() {
        return name(bits);
    }

    /** The names of the bits of {@code bits} joined by {@code +}, {@code OK} for 0. */
    public static String name(int bits) {
        if (bits == 0) return "OK";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < NAMES.length; i++) {
            if ((bits & (1 << i)) == 0) continue;
            if (s.length() > 0) s.append('+');
            s.append(NAMES[i]);
        }
        return s.toString();
    }

    public boolean ok() {
        return bits == OK;
    }

    /**
     * The reasons in one short line, ranks with the same observation together:
     * {@code rank 2 FAILED}, {@code ranks 0 1 3 MPI error in barrier (class 13); rank 2 FAILED}.
     */
    public String because() {
        Map<String, List<Reason>> byWhat = new LinkedHashMap<>();
        for (Reason r : reasons) byWhat.computeIfAbsent(r.kind() + "\u0000" + r.what(), k -> new ArrayList<>()).add(r);
        List<String> parts = new ArrayList<>();
        for (List<Reason> same : byWhat.values()) {
            if (same.size() == 1) {
                parts.add(same.get(0).brief());
            } else {
                List<String> who = new ArrayList<>();
                boolean plain = same.stream().allMatch(r -> r.epoch() == 0 && r.rank() >= 0);
                if (plain) who.add(ranges(same.stream().map(Reason::rank).distinct().toList()));
                else for (Reason r : same) who.add(r.who().substring(5));
                parts.add("ranks " + String.join(" ", who) + " " + same.get(0).what());
            }
        }
        return String.join("; ", parts);
    }

    /** {@code ER_OTH (8): rank 2 FAILED}, {@code OK (0)}. */
    public String line() {
        return name() + " (" + bits + ")" + (reasons.isEmpty() ? "" : ": " + because());
    }

    /** {@code 0 1 3-63}: runs of three or more as ranges. */
    private static String ranges(List<Integer> sorted) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < sorted.size(); ) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) j++;
            if (s.length() > 0) s.append(' ');
            if (j - i >= 2) {
                s.append(sorted.get(i)).append('-').append(sorted.get(j));
            } else {
                for (int k = i; k <= j; k++) s.append(k > i ? " " : "").append(sorted.get(k));
            }
            i = j + 1;
        }
        return s.toString();
    }
}
