package io.mpilens.headless.cli;

import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.InFlightCalls;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.Transition;
import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.HandleTable;
import io.mpilens.headless.text.RankRanges;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code mpilens watch}: observes the job round after round and prints each transition as it is
 * seen (and the cominfo/hostinfo boxes after a round with transitions, when asked). Each round is
 * bounded by the deadline rule, so a dead or stopped rank never holds it up. Ends when the job is
 * gone (every rank failed or finalized and its process ended, or its records were removed), or on Ctrl-C.
 */
@Command(name = "watch", mixinStandardHelpOptions = true,
        description = {"Follow a job: print each transition of its ranks, communicators and hosts as it is seen.",
            "Ends by itself when every rank has failed or finalized and exited, or the job's records are removed;"
                + " or on Ctrl-C. --json: the model (schema " + FaultJson.SCHEMA + ") on one line after every round"
                + " that changed something; with --deadlocks also a calls --json line when the deadlock changed."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the job ended (or Ctrl-C)", "1:internal failure", "2:usage error, or no such job"})
final class WatchCommand extends FaultCommand {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "1",
            description = "Pause between rounds (default: ${DEFAULT-VALUE}).")
    double intervalSeconds;

    @Option(names = "--cominfo", description = "After a round with transitions, also print the communicator boxes.")
    boolean cominfo;

    @Option(names = "--hostinfo", description = "After a round with transitions, also print the host boxes.")
    boolean hostinfo;

    @Option(names = "--deadlocks", description = "Also read the MPI call of every thread each round (each thread"
            + " is suspended while read) and say when ranks are deadlocked: stuck in the same calls two rounds in"
            + " a row, and no blocking call returned in between (as calls --confirm), and when no longer.")
    boolean deadlocks;

    /** Transitions already printed. */
    private int printed;
    /** --deadlocks: the previous round's analysis, when it was taken, and the deadlock last reported. */
    private WaitFor.Analysis lastAnalysis;
    private long lastAnalysisNanos;
    private List<Integer> reportedDeadlock = List.of();

    @Override
    JobObserver configure(JobObserver o) {
        return o.withFrames(false).judgingGrowth(); // the calls: RECOVERING, and --deadlocks; round against round
    }

    /**
     * --deadlocks: compares this round with the previous one; the lines (or the {@code calls --json}
     * line) to print when the deadlocked ranks changed, else none.
     */
    private List<String> deadlockChange(JobModel m) {
        List<InFlightCall> calls = InFlightCalls.of(m, observer.frames());
        WaitFor.Analysis a = WaitFor.of(m, calls, observer.frames().keySet());
        long now = System.nanoTime();
        WaitFor.Looks looks = lastAnalysis == null ? WaitFor.Looks.ONE
                : WaitFor.compare(lastAnalysis, a, (now - lastAnalysisNanos) / 1e9);
        lastAnalysis = a;
        lastAnalysisNanos = now;
        List<Integer> confirmed = looks.confirmed();
        if (confirmed.equals(reportedDeadlock)) return List.of();
        List<Integer> before = reportedDeadlock;
        reportedDeadlock = confirmed;
        if (json) return List.of(FaultJson.calls(m, calls, a, looks));
        List<String> out = new ArrayList<>();
        List<Integer> ended = new ArrayList<>(before);
        ended.removeAll(confirmed);
        if (!ended.isEmpty()) out.add(FaultBoxes.cut(stamp(m.at()) + "  " + RankRanges.who(ended) + ": no longer deadlocked"));
        if (!confirmed.isEmpty()) {
            List<Integer> cycle = WaitFor.cycle(a, confirmed);
            out.add(FaultBoxes.cut(stamp(m.at()) + "  DEADLOCK: " + FaultBoxes.waitEachOther(confirmed)
                    + (cycle.size() > 1 ? "  (cycle " + FaultBoxes.cycleText(cycle) + ")" : "")));
            out.addAll(RankRanges.listedApart(confirmed, HandleTable.WIDTH));
            if (!looks.behind().isEmpty()) {
                out.add(FaultBoxes.cut(stamp(m.at()) + "  stuck behind them: " + RankRanges.who(looks.behind())));
                out.addAll(RankRanges.listedApart(looks.behind(), HandleTable.WIDTH));
            }
        }
        return out;
    }


    @Override
    List<String> text(FaultBoxes boxes, JobModel m) {
        List<String> out = new ArrayList<>();
        List<Transition> all = m.timeline();
        out.addAll(lines(all.subList(Math.min(printed, all.size()), all.size())));
        if (cominfo) out.addAll(boxes.cominfo(m));
        if (hostinfo) out.addAll(boxes.hostinfo(m));
        return out;
    }

    @Override
    String json(JobModel m) {
        return FaultJson.model(m, true, true);
    }

    @Override
    public Integer call() throws InterruptedException {
        if (!(intervalSeconds >= 0) || intervalSeconds > 3600) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--interval must be between 0 and 3600 seconds, not " + intervalSeconds);
        }
        openObserver();
        // one collector per other host for the whole watch, not one JVM there per round
        HostCollectors kept = collectors();
        if (kept != null) kept.keepRunning();
        try {
            return watch();
        } finally {
            if (kept != null) kept.close();
        }
    }

    private int watch() throws InterruptedException {
        if (!jobExists(spec.commandLine().getErr())) return MpiLensCli.EXIT_USAGE;
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = target.job != null ? "job " + target.job : target.addresses.size() + " address(es)";
        AtomicBoolean finished = new AtomicBoolean();
        Thread onCtrlC = new Thread(() -> {
            if (finished.get()) return;
            err.println("mpilens watch: stopped watching " + name);
            err.flush();
        }, "mpilens-watch-stop");
        Runtime.getRuntime().addShutdownHook(onCtrlC);
        try {
            FaultBoxes boxes = new FaultBoxes(color());
            err.println("mpilens watch: following " + name + " (Ctrl-C to stop)");
            err.flush();
            boolean reported = false;
            while (true) {
                JobModel m;
                try {
                    m = observer.observe();
                    if (!reported) {
                        for (String r : observer.refused()) err.println("mpilens: " + r);
                        reportUnanswered(m, err); // the whole cause once; the transition lines are cut at 80
                    }
                    reported = true;
                } catch (IOException e) {
                    if (target.job != null && recordsRemoved()) {
                        if (!json) out.println(stamp(Instant.now()) + "  " + name + " is gone (its records were removed)");
                        out.flush();
                        return MpiLensCli.EXIT_OK;
                    }
                    err.println("mpilens: " + e.getMessage());
                    return MpiLensCli.EXIT_INTERNAL;
                }
                if (m.timeline().size() > printed) {
                    if (json) out.println(json(m));
                    else for (String l : text(boxes, m)) out.println(l);
                    printed = m.timeline().size();
                }
                if (deadlocks) for (String l : deadlockChange(m)) out.println(l);
                String gone = gone(m);
                if (gone != null && !json) {
                    out.println(stamp(m.at()) + "  " + name + " " + gone);
                    String aborted = abortLine();
                    if (aborted != null) out.println(stamp(m.at()) + "  " + name + " " + aborted);
                }
                out.flush();
                if (gone != null) return MpiLensCli.EXIT_OK;
                Thread.sleep(Math.round(intervalSeconds * 1000));
            }
        } finally {
            finished.set(true);
            try {
                Runtime.getRuntime().removeShutdownHook(onCtrlC);
            } catch (IllegalStateException e) {
                // the JVM is shutting down (Ctrl-C): the hook runs
            }
        }
    }

    private boolean recordsRemoved() {
        Path dir = JobDirectory.forCurrentUser(parent.env).root().resolve(target.job);
        return !Files.isDirectory(dir);
    }

    /** Why the job is over, or null while any rank may still run. */
    static String gone(JobModel m) {
        if (m.processes().isEmpty()) return null;
        int failed = 0;
        int finalized = 0;
        for (RankStatus r : m.processes()) {
            if (r.state() == ProcessState.FAILED) failed++;
            else if (r.state() == ProcessState.FINALIZED && r.snapshot() == null) finalized++; // finalized and not answering
            else return null;
        }
        return "has ended: " + (failed > 0 ? failed + " rank" + (failed == 1 ? "" : "s") + " failed" : "")
                + (failed > 0 && finalized > 0 ? ", " : "")
                + (finalized > 0 ? finalized + " rank" + (finalized == 1 ? "" : "s") + " finalized" : "");
    }

    private static final java.util.regex.Pattern RANK = java.util.regex.Pattern.compile("rank (\\d+)");

    /**
     * One line per transition, except that ranks making the same transition in the same round
     * share one ({@code ranks 0 1 3-63: OK -> FINALIZED}; a long list follows on lines of its
     * own): a 64-rank job starting or ending is a line, not 64.
     */
    static List<String> lines(List<Transition> ts) {
        // key: the change (time, from, to, why) for a rank's transition, the transition itself for any other
        Map<Object, List<Transition>> groups = new LinkedHashMap<>();
        for (Transition t : ts) {
            Object key = RANK.matcher(t.subject()).matches() ? List.of(t.at(), String.valueOf(t.from()), t.to(),
                    String.valueOf(t.why())) : t;
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(t);
        }
        List<String> out = new ArrayList<>();
        for (Map.Entry<Object, List<Transition>> g : groups.entrySet()) {
            Transition t = g.getValue().get(0);
            if (g.getKey() == t) {
                out.add(line(t));
                continue;
            }
            List<Integer> ranks = g.getValue().stream().map(x -> Integer.parseInt(x.subject().substring(5)))
                    .distinct().sorted().toList();
            out.add(line(new Transition(t.at(), RankRanges.who(ranks), t.from(), t.to(), t.why())));
            out.addAll(RankRanges.listedApart(ranks, HandleTable.WIDTH));
        }
        return out;
    }

    /** {@code 12:00:01.250  rank 2: OK -> FAILED  (process gone before MPI_Finalize)}, at most 80 columns. */
    static String line(Transition t) {
        String subject = t.subject().equals("rank -1") ? "rank ?" : t.subject(); // --attach: rank not known
        String s = stamp(t.at()) + "  " + subject + ": " + (t.from() == null ? "" : t.from() + " -> ") + t.to()
                + (t.why() == null || t.why().isEmpty() ? "" : "  (" + t.why() + ")");
        return s.length() <= HandleTable.WIDTH ? s : s.substring(0, HandleTable.WIDTH - 4) + "...)";
    }

    static String stamp(Instant at) {
        return TIME.format(at);
    }
}
