package io.mpilens.bench;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * End to end: Open MPI's message rate for 8-byte non-blocking messages without and with the
 * mpilens agent, launches of the two alternating in one run so drift hits both sides alike.
 * {@code self} (one rank sending to itself) is stable to about 1% between launches; {@code pair}
 * (two ranks) falls into two speed groups between launches, so it gets more launches and its
 * spread is reported.
 */
public final class MessageRateBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run rate [--modes self,pair,pingpong] [--java JAVA] [--self-pairs N] [--pair-pairs N]",
            "                      [--self-messages N] [--pair-messages N] [--repetitions N] [--agent-options OPTS]",
            "                      [--binding openmpi|mpj] [--metric wall|cpu]",
            "  --modes          which workloads, in order (default self,pair); pingpong: blocking send/recv",
            "                   between ranks 0 and 1 (np 2, --pair-pairs and --pair-messages)",
            "  --java           the ranks' java (default: java, the application JDK)",
            "  --self-pairs     launches per side in self mode, np 1 (default 5)",
            "  --pair-pairs     launches per side in pair mode, np 2 (default 10)",
            "  --self-messages  messages per repetition in self mode (default 1000000)",
            "  --pair-messages  messages per repetition in pair mode (default 300000)",
            "  --repetitions    repetitions per launch; each launch reports its best (default 10)",
            "  --agent-options  more agent options for the launches with the agent, e.g. requests=false",
            "  --baseline-agent JAR  the other side runs with this agent jar (same options), not without one:",
            "                   one agent build against another",
            "  --binding        openmpi (default) or mpj (MPJ Express multicore: the ranks are threads of one JVM)",
            "  --metric         wall (default): messages per second of wall time; cpu: per second of rank 0's",
            "                   thread CPU time (what the loop costs, for a machine other work keeps busy)");
    static final String MAIN_CLASS = "io.mpilens.examples.openmpi.MessageRate";
    static final String MPJ_MAIN_CLASS = "io.mpilens.examples.mpj.MessageRate";
    /** --metric cpu: rates in rank 0's thread CPU time. */
    private static boolean cpuMetric;
    /** The binding measured (--binding). */
    private static Binding binding = Binding.OPENMPI;
    /** Verbose only adds the agent's start-up line, which proves it was active in that launch. */
    static final String AGENT_OPTIONS = "verbose=true";
    /** --baseline-agent: the jar the "without" side runs with, null for no agent. */
    private static java.nio.file.Path baselineAgent;

    /** AGENT_OPTIONS plus what --agent-options adds. */
    private static String agentOptions = AGENT_OPTIONS;
    private static final Pattern RATE = Pattern.compile("RATE mode=(\\S+) messages_per_second=(\\d+)(?:.* cpu_messages_per_second=(\\d+))?");
    /**
     * MessageRate prints its line with printf, which flushes each piece separately, and
     * {@code mpirun --tag-output} tags every piece: the launcher strips only the first tag.
     */
    private static final Pattern INNER_TAG = Pattern.compile("\\[\\d+,\\d+\\]<std(?:out|err)>:");
    private static final Duration LAUNCH_TIMEOUT = Duration.ofMinutes(3);
    /**
     * Issue 32 (it replaced issue 2's ≥ 0.98 for Open MPI): ≥ 0.97 of the rate without the agent, on
     * both bindings, and every launch with the agent within the launches without it.
     */
    private static double goalRatio() {
        return 0.97;
    }

    private MessageRateBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        List<String> modes = List.of(args.string("--modes", "self,pair").split(","));
        String java = args.string("--java", "java");
        int selfPairs = Math.max(1, args.integer("--self-pairs", 5));
        int pairPairs = Math.max(1, args.integer("--pair-pairs", 10));
        int selfMessages = args.integer("--self-messages", 1_000_000);
        int pairMessages = args.integer("--pair-messages", 300_000);
        int repetitions = Math.max(1, args.integer("--repetitions", 10));
        String more = args.string("--agent-options", "");
        String baseline = args.string("--baseline-agent", "");
        if (!baseline.isBlank()) {
            baselineAgent = Paths.get(baseline).toAbsolutePath();
            if (!Files.isRegularFile(baselineAgent)) {
                System.err.println("--baseline-agent: no such file " + baselineAgent + "\n" + USAGE);
                System.exit(2);
            }
        }
        if (!more.isBlank()) agentOptions = AGENT_OPTIONS + "," + more;
        String metric = args.string("--metric", "wall");
        if (!metric.equals("wall") && !metric.equals("cpu")) {
            System.err.println("unknown metric '" + metric + "'\n" + USAGE);
            System.exit(2);
        }
        cpuMetric = metric.equals("cpu");
        String b = args.string("--binding", "openmpi");
        if (b.equals("mpj")) {
            binding = Binding.MPJ_MULTICORE;
        } else if (!b.equals("openmpi")) {
            System.err.println("unknown binding '" + b + "'\n" + USAGE);
            System.exit(2);
        }
        args.done();
        for (String m : modes) {
            if (!m.equals("self") && !m.equals("pair") && !m.equals("pingpong")) {
                System.err.println("unknown mode '" + m + "'\n" + USAGE);
                System.exit(2);
            }
        }

        Workspace ws = Workspace.detect();
        String loadBefore = Machine.loadAverage();
        List<Result> results = new ArrayList<>();
        for (String mode : modes) {
            boolean self = mode.equals("self");
            Workload w = new Workload(mode, self ? 1 : 2, self ? selfMessages : pairMessages, repetitions);
            results.add(measure(ws, java, w, self ? selfPairs : pairPairs));
        }

        System.out.println();
        System.out.printf(Locale.ROOT, "MessageRateBench: %s, %s, 8-byte iRecv+iSend+waitAll per message"
                + " (pingpong: blocking send, recv); rate = best of %d repetitions per launch, median over launches,"
                + " in %s;%n", binding == Binding.OPENMPI ? "Open MPI" : "MPJ Express multicore", mainClass(), repetitions,
                cpuMetric ? "messages per second of rank 0's thread CPU time (--metric cpu)" : "messages per second of wall time");
        System.out.printf(Locale.ROOT, "ranks: %s (application JDK), agent %s with options '%s'; harness JDK %s;"
                + " launches alternate without/with agent%s%n", java, ws.agentJar().getFileName(), agentOptions,
                Runtime.version(),
                baselineAgent == null ? "" : "; the \"without agent\" side ran WITH the baseline agent " + baselineAgent);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after%n%n", Machine.cpus(),
                loadBefore, Machine.loadAverage());
        ResultTable t = new ResultTable(1, "mode", "np", "messages x reps", "launches/side", "without agent msg/s",
                "spread", "with agent msg/s", "spread", "ratio", "ns/msg added");
        for (Result r : results) {
            double ratio = r.with.median() / r.without.median();
            double addedNs = 1e9 / r.with.median() - 1e9 / r.without.median();
            t.row(r.workload.mode, r.workload.np, String.format(Locale.ROOT, "%,d x %d", r.workload.messages,
                    r.workload.repetitions), r.without.count(), ResultTable.rate(r.without.median()),
                    ResultTable.percent(r.without.spread()), ResultTable.rate(r.with.median()),
                    ResultTable.percent(r.with.spread()), ResultTable.ratio(ratio),
                    String.format(Locale.ROOT, "%.0f", addedNs));
        }
        System.out.print(t.render());
        System.out.println("(spread = (max - min) / median over the launches of one side)");
        System.out.println();
        for (Result r : results) {
            System.out.println(r.workload.mode + " without agent, sorted: " + sorted(r.without));
            System.out.println(r.workload.mode + " with agent,    sorted: " + sorted(r.with));
        }
        System.out.println();
        for (Result r : results) {
            double ratio = r.with.median() / r.without.median();
            // the verdict stands when the run's interval of the ratio (RatioInterval) is on one side of the goal
            double goal = goalRatio();
            RatioInterval.Interval interval = RatioInterval.ofMedians(r.without.inOrder(), r.with.inOrder());
            System.out.printf(Locale.ROOT, "%-4s goal with/without >= %.2f: %s (median ratio %.3f); %s%n", r.workload.mode, goal,
                    ratio >= goal ? "MET" : "NOT MET", ratio,
                    RatioInterval.judged(ratio, interval, Math.min(r.without.count(), r.with.count()), goal));
            // issue 32: no launch with the agent in a slower mode than every launch without it (the
            // bimodal self loop); with no cost at all, one run in two fails it by chance (equal sides)
            double slowestWith = r.with.min();
            double slowestWithout = r.without.min();
            System.out.printf(Locale.ROOT, "%-4s goal every launch with the agent within the launches without it: %s (slowest with"
                    + " %,.0f, slowest without %,.0f: %.3f; of launches that cost the same the slowest is one with the agent in"
                    + " one run of two)%n", r.workload.mode, slowestWith >= slowestWithout ? "MET" : "NOT MET",
                    slowestWith, slowestWithout, slowestWith / slowestWithout);
        }
    }

    private static String mainClass() {
        return binding == Binding.OPENMPI ? MAIN_CLASS : MPJ_MAIN_CLASS;
    }

    private record Workload(String mode, int np, int messages, int repetitions) {
    }

    private record Result(Workload workload, Samples without, Samples with) {
    }

    private static Result measure(Workspace ws, String java, Workload w, int pairs) throws Exception {
        Samples without = new Samples();
        Samples with = new Samples();
        for (int i = 0; i < pairs; i++) {
            boolean agentFirst = i % 2 == 1;
            for (boolean agent : new boolean[] {agentFirst, !agentFirst}) {
                double rate = launch(ws, java, w, agent);
                (agent ? with : without).add(rate);
                System.out.printf(Locale.ROOT, "%s np=%d launch %d/%d %-13s %,12.0f msg/s%n", w.mode, w.np, i + 1,
                        pairs, agent ? "with agent" : "without agent", rate);
            }
        }
        return new Result(w, without, with);
    }

    /** One job through the project's launcher; returns rank 0's messages per second. */
    private static double launch(Workspace ws, String java, Workload w, boolean agent) throws Exception {
        JobSpec.Builder spec = JobSpec.builder(binding, w.np, mainClass())
                .classPath(binding == Binding.OPENMPI ? ws.openMpiExampleClassPath() : ws.mpjExampleClassPath())
                .appArgs(w.mode, Integer.toString(w.messages), Integer.toString(w.repetitions))
                .javaExecutable(java);
        if (agent) spec.agentJar(ws.agentJar()).agentOptions(agentOptions);
        else if (baselineAgent != null) spec.agentJar(baselineAgent).agentOptions(agentOptions);
        try (Job job = Job.launch(spec.build())) {
            String line = untagged(job.awaitLine(l -> RATE.matcher(untagged(l)).find(), LAUNCH_TIMEOUT));
            int exit = job.waitFor(LAUNCH_TIMEOUT);
            if (exit != 0) throw new IllegalStateException("the job exited with " + exit + ":\n" + job.tail());
            boolean agentActive = job.output().stream().anyMatch(l -> l.startsWith("mpilens: agent ")
                    && l.contains(" watching "));
            if ((agent || baselineAgent != null) != agentActive) {
                throw new IllegalStateException("the agent was " + (agentActive ? "" : "not ") + "active in a launch "
                        + (agent ? "with" : "without") + " it:\n" + job.tail());
            }
            Matcher m = RATE.matcher(line);
            if (!m.find() || !m.group(1).equals(w.mode) || (cpuMetric && m.group(3) == null)) {
                throw new IllegalStateException("unexpected line: " + line);
            }
            return Double.parseDouble(m.group(cpuMetric ? 3 : 2));
        }
    }

    private static String untagged(String line) {
        return INNER_TAG.matcher(line).replaceAll("");
    }

    private static String sorted(Samples s) {
        return s.sorted().stream().map(v -> String.format(Locale.ROOT, "%,.0f", v)).collect(Collectors.joining("  "));
    }
}
