package io.mpilens.bench;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * End to end: what the agent adds to a job's start. A job that does almost nothing (the {@code
 * MessageRate} example with one message: MPI_Init, one exchange, MPI_Finalize) is launched
 * without and with the agent, alternating, and measured two ways: the CPU time (user + system)
 * of every rank JVM, which the goal names (≤ +0.1 s per JVM with a warm woven-class cache) and
 * which a loaded machine distorts little, and the wall time from launch to the job's exit. Each
 * rank JVM runs under a small wrapper that records its CPU time with bash's {@code time}.
 *
 * <p>Cases: {@code warm} (the woven classes all in the cache, the default: the first launch with
 * the agent fills it and is not counted), {@code cold} (the cache turned off: every JVM weaves
 * the binding's classes), and {@code first-weave} (Open MPI: the corpus program {@code
 * Topologies}, whose {@code CartComm} and {@code GraphComm} load only after MPI_Init, with those
 * two taken out of a warm cache before every launch: each rank weaves them when they load).
 */
public final class StartupBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run startup [--binding openmpi|mpj] [--np N] [--pairs N] [--case warm|cold|first-weave]",
            "                         [--java JAVA] [--agent-options OPTS]",
            "  --binding  openmpi (default: mpirun, one JVM per rank) or mpj (MPJ Express multicore: one JVM)",
            "  --np       ranks (default 4)",
            "  --pairs    launches per side, alternating without/with the agent (default 7)",
            "  --case     warm (default), cold (no woven-class cache), first-weave (the classes a job uses",
            "             only after start-up are not cached yet)",
            "  --java     the ranks' java (default: java, the application JDK)",
            "  --agent-options  more agent options",
            "  --baseline-agent JAR  the other side runs with this agent jar (same options, its own cache), not",
            "                   without one: one agent build against another (before/after a change)",
            "  --floor yes  a third side: an agent that does nothing (what any -javaagent costs the JVM: the",
            "               java.instrument module, a module graph not taken from the CDS archive)");
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    static final double GOAL_CPU_SECONDS = 0.100;
    /** Open MPI binding classes that a job loads only after MPI_Init (Topologies creates its first topology then). */
    private static final String[] LATE_CLASSES = {"mpi.CartComm-", "mpi.GraphComm-"};
    private static final String LATE_PROGRAM = "io.mpilens.examples.openmpi.corpus.Topologies";

    private StartupBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        String b = args.string("--binding", "openmpi");
        int np = Math.max(1, args.integer("--np", 4));
        int pairs = Math.max(1, args.integer("--pairs", 7));
        String kase = args.string("--case", "warm");
        String java = args.string("--java", "java");
        String more = args.string("--agent-options", "");
        String baselineJar = args.string("--baseline-agent", "");
        String floorArg = args.string("--floor", "no");
        boolean floor = floorArg.equals("yes");
        if (!floor && !floorArg.equals("no")) {
            System.err.println("--floor takes yes or no, got '" + floorArg + "'\n" + USAGE);
            System.exit(2);
        }
        args.done();
        Path baseline = baselineJar.isBlank() ? null : Path.of(baselineJar).toAbsolutePath();
        if (baseline != null && !Files.isRegularFile(baseline)) {
            System.err.println("no agent jar at " + baseline + "\n" + USAGE);
            System.exit(2);
        }
        if (!b.equals("mpj") && !b.equals("openmpi")) {
            System.err.println("unknown binding '" + b + "'\n" + USAGE);
            System.exit(2);
        }
        if (!kase.equals("warm") && !kase.equals("cold") && !kase.equals("first-weave")
                || kase.equals("first-weave") && b.equals("mpj")) {
            System.err.println("unknown case '" + kase + "' (first-weave: Open MPI only)\n" + USAGE);
            System.exit(2);
        }
        Binding binding = b.equals("mpj") ? Binding.MPJ_MULTICORE : Binding.OPENMPI;
        Workspace ws = Workspace.detect();
        Path work = Files.createTempDirectory("mpilens-startup-");
        Path cache = work.resolve("woven");
        String options = MessageRateBench.AGENT_OPTIONS + ",wovenCacheDir=" + cache
                + (kase.equals("cold") ? ",wovenCache=false" : "") + (more.isBlank() ? "" : "," + more);
        Path wrapper = cpuWrapper(work, java);
        Path emptyAgent = floor ? EmptyAgent.jar(work) : null;
        // the baseline agent keeps its woven classes apart (its jar names its own cache entries anyway)
        String baselineOptions = options.replace("wovenCacheDir=" + cache, "wovenCacheDir=" + work.resolve("woven-baseline"));
        String loadBefore = Machine.loadAverage();
        if (!kase.equals("cold")) {
            launch(ws, binding, np, wrapper, work, ws.agentJar(), options, kase, true); // fills the cache: not counted
            if (baseline != null) launch(ws, binding, np, wrapper, work, baseline, baselineOptions, kase, true);
        }
        Samples wallWithout = new Samples(), wallWith = new Samples(), cpuWithout = new Samples(), cpuWith = new Samples();
        Samples wallFloor = new Samples(), cpuFloor = new Samples();
        for (int i = 0; i < pairs; i++) {
            boolean agentFirst = i % 2 == 1;
            if (emptyAgent != null) { // between the two others, one round before, one after
                double[] m = launch(ws, binding, np, wrapper, work, emptyAgent, "", kase, false);
                wallFloor.add(m[0]);
                cpuFloor.add(m[1]);
                System.out.printf(Locale.ROOT, "launch %d/%d %-14s %,8.0f ms wall  %6.3f s CPU per JVM%n", i + 1, pairs,
                        "empty agent", m[0], m[1]);
            }
            for (boolean agent : new boolean[] {agentFirst, !agentFirst}) {
                if (kase.equals("first-weave")) {
                    if (agent) forgetLateClasses(cache);
                    else if (baseline != null) forgetLateClasses(work.resolve("woven-baseline"));
                }
                double[] m = agent ? launch(ws, binding, np, wrapper, work, ws.agentJar(), options, kase, true)
                        : launch(ws, binding, np, wrapper, work, baseline, baselineOptions, kase, true);
                (agent ? wallWith : wallWithout).add(m[0]);
                (agent ? cpuWith : cpuWithout).add(m[1]);
                System.out.printf(Locale.ROOT, "launch %d/%d %-14s %,8.0f ms wall  %6.3f s CPU per JVM%n", i + 1, pairs,
                        agent ? "with agent" : baseline != null ? "baseline agent" : "without agent", m[0], m[1]);
            }
        }
        deleteTree(work);
        int jvms = binding.rankJvms(np);
        System.out.println();
        System.out.printf(Locale.ROOT, "StartupBench: %s, %d rank%s in %d JVM%s, %s, case %s;"
                        + " median over %d launches per side, alternating%n",
                binding == Binding.OPENMPI ? "Open MPI (mpirun)" : "MPJ Express multicore", np, np == 1 ? "" : "s",
                jvms, jvms == 1 ? "" : "s", kase.equals("first-weave") ? "corpus Topologies"
                        : "MessageRate " + (np == 1 ? "self" : "pair") + " 1 message", kase, pairs);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after; agent %s with options '%s'%s%n%n",
                Machine.cpus(), loadBefore, Machine.loadAverage(), ws.agentJar().getFileName(), options,
                baseline == null ? "" : "; the other side: baseline agent " + baseline);
        ResultTable t = new ResultTable(1, "measure", baseline == null ? "without agent" : "baseline agent", "spread",
                "with agent", "spread", "ratio", "added");
        double addedCpu = cpuWith.median() - cpuWithout.median();
        t.row("CPU per JVM (s)", String.format(Locale.ROOT, "%.3f", cpuWithout.median()),
                ResultTable.percent(cpuWithout.spread()), String.format(Locale.ROOT, "%.3f", cpuWith.median()),
                ResultTable.percent(cpuWith.spread()), ResultTable.ratio(cpuWith.median() / cpuWithout.median()),
                String.format(Locale.ROOT, "%+.3f s", addedCpu));
        t.row("wall per launch (ms)", String.format(Locale.ROOT, "%,.0f", wallWithout.median()),
                ResultTable.percent(wallWithout.spread()), String.format(Locale.ROOT, "%,.0f", wallWith.median()),
                ResultTable.percent(wallWith.spread()), ResultTable.ratio(wallWith.median() / wallWithout.median()),
                String.format(Locale.ROOT, "%+,.0f ms", wallWith.median() - wallWithout.median()));
        if (emptyAgent != null) {
            t.row("an empty agent: CPU per JVM (s)", String.format(Locale.ROOT, "%.3f", cpuWithout.median()),
                    ResultTable.percent(cpuWithout.spread()), String.format(Locale.ROOT, "%.3f", cpuFloor.median()),
                    ResultTable.percent(cpuFloor.spread()), ResultTable.ratio(cpuFloor.median() / cpuWithout.median()),
                    String.format(Locale.ROOT, "%+.3f s", cpuFloor.median() - cpuWithout.median()));
            t.row("the agent above it: CPU per JVM (s)", String.format(Locale.ROOT, "%.3f", cpuFloor.median()),
                    "", String.format(Locale.ROOT, "%.3f", cpuWith.median()), "",
                    ResultTable.ratio(cpuWith.median() / cpuFloor.median()),
                    String.format(Locale.ROOT, "%+.3f s", cpuWith.median() - cpuFloor.median()));
        }
        System.out.print(t.render());
        if (baseline != null) {
            System.out.println("(agent against agent: the goal line needs a run without --baseline-agent)");
            return;
        }
        System.out.printf(Locale.ROOT, "goal: <= +%.3f s CPU per JVM with a warm woven-class cache; this case (%s): %+.3f s -> %s%n",
                GOAL_CPU_SECONDS, kase, addedCpu, !kase.equals("warm") ? "(the goal is for the warm case)"
                        : addedCpu <= GOAL_CPU_SECONDS ? "MET" : "NOT MET");
        if (jvms > Machine.cpus()) {
            // said, not folded into the verdict: the reader decides what the oversubscribed case means
            System.out.printf(Locale.ROOT, "note: %d rank JVMs share %d CPUs: each JVM's CPU time here includes time-sharing with"
                            + " the others, and what any -javaagent costs grows with it (--floor yes shows it); --np %d"
                            + " gives each rank JVM a CPU of its own%n", jvms, Machine.cpus(), Machine.cpus());
        }
    }

    /**
     * {wall ms, CPU seconds per rank JVM} of one launch; {@code agentJar} null for a launch without
     * an agent; {@code speaks}: it is mpilens's agent, which must say it watches in every rank JVM.
     */
    private static double[] launch(Workspace ws, Binding binding, int np, Path wrapper, Path work, Path agentJar,
                                   String options, String kase, boolean speaks) throws Exception {
        boolean agent = agentJar != null && speaks;
        Path cpu = Files.createDirectories(work.resolve("cpu"));
        try (Stream<Path> old = Files.list(cpu)) {
            for (Path p : (Iterable<Path>) old::iterator) Files.delete(p);
        }
        boolean late = kase.equals("first-weave");
        JobSpec.Builder spec = JobSpec.builder(binding, np, late ? LATE_PROGRAM : binding == Binding.OPENMPI
                        ? MessageRateBench.MAIN_CLASS : MessageRateBench.MPJ_MAIN_CLASS)
                .classPath(binding == Binding.OPENMPI ? ws.openMpiExampleClassPath() : ws.mpjExampleClassPath())
                .javaExecutable(wrapper.toString());
        if (!late) spec.appArgs(np == 1 ? "self" : "pair", "1", "1");
        if (agentJar != null) spec.agentJar(agentJar).agentOptions(options);
        long t0 = System.nanoTime();
        try (Job job = Job.launch(spec.build())) {
            int exit = job.waitFor(TIMEOUT);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (exit != 0) throw new IllegalStateException("the job exited with " + exit + ":\n" + job.tail());
            long active = job.output().stream().filter(l -> l.contains("mpilens: agent ") && l.contains(" watching ")).count();
            if (active != (agent ? binding.rankJvms(np) : 0)) {
                throw new IllegalStateException("the agent was active in " + active + " JVMs of a launch "
                        + (agent ? "with" : "without") + " it:\n" + job.tail());
            }
            List<Double> perJvm = new ArrayList<>();
            try (Stream<Path> files = Files.list(cpu)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String[] us = Files.readString(f, StandardCharsets.US_ASCII).trim().split("\\s+");
                    perJvm.add(Double.parseDouble(us[us.length - 2]) + Double.parseDouble(us[us.length - 1]));
                }
            }
            if (perJvm.isEmpty()) throw new IllegalStateException("no CPU time recorded by " + wrapper);
            // MPJ Express multicore: the starter JVM and the JVM of the ranks; the ranks' one is the busier
            double cpuPerJvm = binding == Binding.OPENMPI
                    ? perJvm.stream().mapToDouble(Double::doubleValue).sum() / perJvm.size()
                    : perJvm.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
            return new double[] {ms, cpuPerJvm};
        }
    }

    /** A java that records its own CPU time (user, system: seconds) in {@code work/cpu/cpu-PID}. */
    private static Path cpuWrapper(Path work, String java) throws IOException {
        Path w = work.resolve("java-with-cpu-time");
        Files.writeString(w, String.join("\n", "#!/bin/bash",
                "exec 3>&2",
                "TIMEFORMAT='%3U %3S'",
                "{ time " + java + " \"$@\" 2>&3 ; } 2> " + work.resolve("cpu") + "/cpu-$$",
                ""), StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(w, PosixFilePermissions.fromString("rwx------"));
        return w;
    }

    /** Takes the classes a job uses only after start-up out of the cache: the next JVM weaves them. */
    private static void forgetLateClasses(Path cache) throws IOException {
        if (!Files.isDirectory(cache)) return;
        try (Stream<Path> all = Files.walk(cache)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                for (String c : LATE_CLASSES) if (p.getFileName().toString().startsWith(c)) Files.delete(p);
            }
        }
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            List<Path> paths = new ArrayList<>();
            all.forEach(paths::add);
            for (int i = paths.size() - 1; i >= 0; i--) Files.deleteIfExists(paths.get(i));
        }
    }
}
