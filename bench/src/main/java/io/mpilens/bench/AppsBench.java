package io.mpilens.bench;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the agent costs real applications: the Java Grande Forum MPJ benchmarks (EPCC; section 1:
 * collectives and ping-pong, section 2: SOR, SparseMatmult, LUFact, Crypt, Series) on MPJ Express
 * multicore and niodev, an {@code Allreduce} loop of 4 doubles on MPJ Express, and SOR and
 * SparseMatmult written for Open MPI's API — each launched without and with the agent,
 * alternating, on 2 ranks. Per timer the median of each side and their ratio (performance with the
 * agent / without: 1.00 is free, below 1 is slower) with its interval over the launches
 * ({@link RatioInterval}); per binding the geometric mean and the worst, each goal judged by the
 * point value as the issue wrote it and by the interval (met, not met, or not decided by the run).
 *
 * <p>The JGF sources come from MPJ Express's source package ({@code scripts/setup-env} puts them in
 * {@code .deps/mpj-tests/jgf_mpj_benchmarks}); they are compiled here as published but for two
 * changes: the import the package layout needs, and section 1's target time and message sizes.
 *
 * <p>Why this file is over 500 lines (about 565): the programs, the JGF sources' compilation with
 * its two generated drivers (section 1 by name, section 2 repeated), the launches and the report
 * are one harness whose parts share the timer names; the profiler's share is apart
 * ({@code AgentShare}).
 */
public final class AppsBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run apps [--bindings LIST] [--launches N] [--size A|B] [--target-time S] [--java JAVA]",
            "                      [--baseline-agent JAR] [--only LIST] [--profile N] [--repeat N]",
            "  --bindings     comma-separated: mpj-multicore, mpj-niodev, openmpi (default all three)",
            "  --launches     launches per side, alternating without/with the agent (default 3)",
            "  --size         JGF section 2 size and the Open MPI kernels' (default A; B as the JGF sizes)",
            "  --target-time  seconds each section 1 measurement aims at (JGF: 10; default 1)",
            "  --only         comma-separated programs: section1, section2, allreduce, sor, sparsematmult (default all)",
            "  --java         the ranks' java (default: java, the application JDK)",
            "  --baseline-agent JAR  the other side runs with this agent jar, not without one (before/after a change)",
            "  --profile N    after the timed launches, N more launches with the agent under async-profiler (CPU time, 1 ms):",
            "                 the share of the application threads' samples with an agent frame on the stack (default 0: none)",
            "  --repeat N     JGF section 2: each kernel N times in a row per launch (default 1, as JGF ships it); the first run",
            "                 is shown, not judged (it carries the JVM's and the agent's warm-up: bench/run startup's goal); the",
            "                 goals are judged on the mean of runs 2..N");
    static final int NP = 2;
    static final double SHORTEST_TIMER_S = 0.050;
    static final double GOAL_GEOMEAN = 0.99;
    static final double GOAL_WORST = 0.97;
    static final double GOAL_ALLREDUCE = 1.05;
    private static final Duration TIMEOUT = Duration.ofMinutes(15);
    private static final String[] SECTION1 = {"Alltoall", "Barrier", "Bcast", "Gather", "PingPong", "Reduce", "Scatter"};
    private static final Pattern SECTION1_TIMER =
            Pattern.compile("^((?:Section1|Loop):\\S+)\\s+([0-9.Ee+-]+)\\s+\\(([^)]*)\\)\\s+Array Size = (\\d+)");
    /** The section 2 driver's line before a kernel's second and later runs ({@code --repeat}). */
    private static final Pattern RUN_MARK = Pattern.compile("^JGF run (\\d+)$");
    private static final String LATER_RUNS = " (runs 2..)";
    private static final Pattern SECTION2_TIMER =
            Pattern.compile("^(Section2:\\S+)\\s+([0-9.Ee+-]+) \\(s\\)\\s+([0-9.Ee+-]+)\\s+\\(([^)]*)\\)");

    private AppsBench() {
    }

    /** A program of the bench: a main class and its arguments on one binding. */
    record Program(String name, Binding binding, String mainClass, List<Path> classPath, List<String> args) {
    }

    /** One timer's values of one side. */
    static final class Timer {
        final Samples perf = new Samples();
        final Samples seconds = new Samples();
        String unit = "";
    }

    /** What a launch printed for one timer: its performance (higher is better), seconds (NaN if not printed), unit. */
    record Reading(double perf, double seconds, String unit) {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        List<Binding> bindings = new ArrayList<>();
        for (String b : args.string("--bindings", "mpj-multicore,mpj-niodev,openmpi").split(",")) {
            try {
                bindings.add(Binding.parse(b));
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage() + "\n" + USAGE);
                System.exit(2);
            }
        }
        int launches = Math.max(1, args.integer("--launches", 3));
        String size = args.string("--size", "A");
        String targetTime = args.string("--target-time", "1");
        String only = args.string("--only", "section1,section2,allreduce,sor,sparsematmult");
        String java = args.string("--java", "java");
        String baselineJar = args.string("--baseline-agent", "");
        int profiled = Math.max(0, args.integer("--profile", 0));
        int repeat = Math.max(1, args.integer("--repeat", 1));
        args.done();
        if (!size.equals("A") && !size.equals("B")) fail("--size takes A or B, got '" + size + "'");
        try {
            if (!(Double.parseDouble(targetTime) > 0)) throw new NumberFormatException();
        } catch (NumberFormatException e) {
            fail("--target-time takes seconds above 0, got '" + targetTime + "'");
        }
        Path baseline = baselineJar.isBlank() ? null : Path.of(baselineJar).toAbsolutePath();
        if (baseline != null && !Files.isRegularFile(baseline)) fail("no agent jar at " + baseline);
        Workspace ws = Workspace.detect();
        Path work = Files.createTempDirectory("mpilens-apps-");
        try {
            List<Program> programs = programs(ws, work, bindings, size, targetTime, java, List.of(only.split(",")), repeat);
            run(ws, work, programs, launches, java, baseline, profiled);
        } finally {
            StartupBench.deleteTree(work);
        }
    }

    private static void fail(String why) {
        System.err.println(why + "\n" + USAGE);
        System.exit(2);
    }

    private static List<Program> programs(Workspace ws, Path work, List<Binding> bindings, String size, String targetTime,
                                          String java, List<String> only, int repeat) throws Exception {
        List<Program> out = new ArrayList<>();
        boolean mpj = bindings.stream().anyMatch(Binding::isMpj);
        Path jgf = mpj && (only.contains("section1") || only.contains("section2")) ? compileJgf(work, targetTime, java) : null;
        for (Binding b : bindings) {
            if (b.isMpj()) {
                if (only.contains("section1")) {
                    List<String> benches = List.of(SECTION1);
                    out.add(new Program("JGF section 1", b, "jgf_mpj_benchmarks.JGFSection1Driver", List.of(jgf), benches));
                }
                if (only.contains("section2") && repeat == 1) {
                    out.add(new Program("JGF section 2 size " + size, b, "jgf_mpj_benchmarks.section2.JGFAllSize" + size,
                            List.of(jgf), List.of()));
                } else if (only.contains("section2")) {
                    out.add(new Program("JGF section 2 size " + size + " x" + repeat, b, "jgf_mpj_benchmarks.section2.JGFSection2Driver",
                            List.of(jgf), List.of(size.equals("A") ? "0" : "1", Integer.toString(repeat))));
                }
                if (only.contains("allreduce")) {
                    out.add(new Program("Allreduce of 4 doubles", b, "io.mpilens.examples.mpj.AllreduceRate",
                            ws.mpjExampleClassPath(), List.of("5")));
                }
            } else {
                if (only.contains("sor")) {
                    out.add(new Program("SOR size " + size, b, "io.mpilens.examples.openmpi.apps.Sor",
                            ws.openMpiExampleClassPath(), List.of(size)));
                }
                if (only.contains("sparsematmult")) {
                    out.add(new Program("SparseMatmult size " + size, b, "io.mpilens.examples.openmpi.apps.SparseMatmult",
                            ws.openMpiExampleClassPath(), List.of(size)));
                }
            }
        }
        if (out.isEmpty()) fail("no program of --only runs on the bindings chosen");
        return out;
    }

    /**
     * The JGF sources compiled against MPJ Express: the import of their utilities fixed (the files
     * say {@code jgf_mpj_benchmarks.*}, the classes are in {@code .jgfutil}), section 1's target
     * time set and its message sizes cut to two (4 elements and 4,472, as JGF's first two), and a
     * driver that runs the section 1 benchmarks named on its command line.
     */
    static Path compileJgf(Path work, String targetTime, String java) throws Exception {
        Path src = jgfSources();
        Path out = Files.createDirectories(work.resolve("jgf-src"));
        List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.walk(src)) {
            for (Path f : (Iterable<Path>) all::iterator) {
                Path rel = src.relativize(f);
                String top = rel.getNameCount() > 0 ? rel.getName(0).toString() : "";
                if (!f.toString().endsWith(".java") || !(top.equals("jgfutil") || top.equals("section1") || top.equals("section2"))) {
                    continue;
                }
                String text = Files.readString(f, StandardCharsets.ISO_8859_1)
                        .replace("import jgf_mpj_benchmarks.*;", "import jgf_mpj_benchmarks.jgfutil.*;")
                        .replaceAll("TARGETTIME\\s*=\\s*[0-9.]+", "TARGETTIME = " + targetTime)
                        .replaceAll("MLOOPSIZE\\s*=\\s*[0-9]+", "MLOOPSIZE = 2");
                Path to = out.resolve(rel.toString());
                Files.createDirectories(to.getParent());
                Files.writeString(to, text, StandardCharsets.ISO_8859_1);
                files.add(to);
            }
        }
        Path driver = out.resolve("JGFSection1Driver.java");
        Files.writeString(driver, String.join("\n",
                "package jgf_mpj_benchmarks;",
                "/** Runs the JGF section 1 benchmarks named in its arguments, in that order (written for bench/run apps). */",
                "public final class JGFSection1Driver {",
                "  public static void main(String[] argv) throws Exception {",
                "    String[] names = mpi.MPI.Init(argv);",
                "    int rank = mpi.MPI.COMM_WORLD.Rank(), size = mpi.MPI.COMM_WORLD.Size();",
                "    if (rank == 0) jgf_mpj_benchmarks.jgfutil.JGFInstrumentor.printHeader(1, 0, size);",
                "    for (String name : names) {",
                "      Class<?> c = Class.forName(\"jgf_mpj_benchmarks.section1.JGF\" + name + \"Bench\");",
                "      Object bench = c.getConstructor(int.class, int.class).newInstance(rank, size);",
                "      c.getMethod(\"JGFrun\").invoke(bench);",
                "    }",
                "    mpi.MPI.Finalize();",
                "  }",
                "}", ""), StandardCharsets.US_ASCII);
        files.add(driver);
        Path driver2 = Files.createDirectories(out.resolve("section2")).resolve("JGFSection2Driver.java");
        Files.writeString(driver2, String.join("\n",
                "package jgf_mpj_benchmarks.section2;",
                "/** JGF section 2's kernels in JGFAll's order, each run N times in a row (written for bench/run apps --repeat). */",
                "public final class JGFSection2Driver {",
                "  public static void main(String[] argv) throws Exception {",
                "    String[] a = mpi.MPI.Init(argv);",
                "    int size = Integer.parseInt(a[0]), runs = Integer.parseInt(a[1]);",
                "    int rank = mpi.MPI.COMM_WORLD.Rank(), n = mpi.MPI.COMM_WORLD.Size();",
                "    if (rank == 0) jgf_mpj_benchmarks.jgfutil.JGFInstrumentor.printHeader(2, size, n);",
                "    for (int k = 0; k < 5; k++) {",
                "      for (int r = 1; r <= runs; r++) {",
                "        if (rank == 0 && r > 1) System.out.println(\"JGF run \" + r);",
                "        if (k == 0) new jgf_mpj_benchmarks.section2.series.JGFSeriesBench(n, rank).JGFrun(size);",
                "        if (k == 1) new jgf_mpj_benchmarks.section2.lufact.JGFLUFactBench(n, rank).JGFrun(size);",
                "        if (k == 2) new jgf_mpj_benchmarks.section2.crypt.JGFCryptBench(n, rank).JGFrun(size);",
                "        if (k == 3) new jgf_mpj_benchmarks.section2.sor.JGFSORBench(n, rank).JGFrun(size);",
                "        if (k == 4) new jgf_mpj_benchmarks.section2.sparsematmult.JGFSparseMatmultBench(n, rank).JGFrun(size);",
                "      }",
                "    }",
                "    mpi.MPI.Finalize();",
                "  }",
                "}", ""), StandardCharsets.US_ASCII);
        files.add(driver2);
        Path classes = Files.createDirectories(work.resolve("jgf-classes"));
        Path mpjJar = Path.of(System.getenv().getOrDefault("MPJ_HOME", ""), "lib", "mpj.jar");
        if (!Files.isRegularFile(mpjJar)) {
            throw new IllegalStateException("no MPJ Express at " + mpjJar + ": run scripts/setup-env, then . .deps/env.sh");
        }
        Path javac = javacBeside(java);
        List<String> cmd = new ArrayList<>(List.of(javac.toString(), "-nowarn", "-encoding", "ISO-8859-1", "-d", classes.toString(),
                "-cp", mpjJar.toString()));
        for (Path f : files) cmd.add(f.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new IllegalStateException("compiling the JGF benchmarks failed:\n" + log);
        return classes;
    }

    /** Where setup-env put the JGF MPJ benchmarks. */
    private static Path jgfSources() {
        String tests = System.getenv("MPILENS_MPJ_TESTS");
        Path src = tests == null ? null : Path.of(tests, "jgf_mpj_benchmarks");
        if (src == null || !Files.isDirectory(src.resolve("section2"))) {
            throw new IllegalStateException("no JGF MPJ benchmarks at " + src + ": run scripts/setup-env (it extracts them"
                    + " from MPJ Express's source package), then . .deps/env.sh");
        }
        return src;
    }

    /** The javac of the JDK whose java runs the ranks (the classes must load there). */
    private static Path javacBeside(String java) throws IOException {
        Path j = Path.of(java);
        if (!j.isAbsolute()) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
                Path c = Path.of(dir, java);
                if (Files.isExecutable(c)) {
                    j = c;
                    break;
                }
            }
        }
        Path javac = j.toRealPath().resolveSibling("javac");
        if (!Files.isExecutable(javac)) throw new IllegalStateException("no javac beside " + j.toRealPath());
        return javac;
    }

    private static void run(Workspace ws, Path work, List<Program> programs, int launches, String java, Path baseline,
                            int profiled) throws Exception {
        String loadBefore = Machine.loadAverage();
        Path cache = work.resolve("woven");
        String options = "verbose=true,wovenCacheDir=" + cache;
        String baselineOptions = "verbose=true,wovenCacheDir=" + work.resolve("woven-baseline");
        // per binding, per timer: values without (or with the baseline agent) and with the agent
        Map<Binding, Map<String, Timer[]>> timers = new LinkedHashMap<>();
        // lines a program prints beside its timers (AllreduceRate: bytes allocated per call), the last of each side
        Map<String, String> remarks = new LinkedHashMap<>();
        Map<Program, AgentShare> shares = new LinkedHashMap<>();
        Path profiler = profiled > 0 ? AgentShare.library(work) : null;
        for (Program p : programs) {
            // a first launch with the agent fills the woven-class cache, as a user's second run finds it: not counted
            launch(p, ws, java, ws.agentJar(), options);
            if (baseline != null) launch(p, ws, java, baseline, baselineOptions);
            for (int i = 0; i < launches; i++) {
                boolean agentFirst = i % 2 == 1;
                for (boolean agent : new boolean[] {agentFirst, !agentFirst}) {
                    long t0 = System.nanoTime();
                    List<String> out = agent ? launch(p, ws, java, ws.agentJar(), options)
                            : launch(p, ws, java, baseline, baselineOptions);
                    Map<String, Reading> found = timers(out);
                    String label = agent ? "with agent" : baseline != null ? "baseline agent" : "without agent";
                    out.stream().filter(l -> l.startsWith("Allreduce of 4 doubles:")).forEach(l ->
                            remarks.put(p.binding() + " " + label, l));
                    if (found.isEmpty()) throw new IllegalStateException(p.name() + " printed no timer:\n" + String.join("\n", out));
                    Map<String, Timer[]> byName = timers.computeIfAbsent(p.binding(), k -> new LinkedHashMap<>());
                    found.forEach((name, v) -> {
                        Timer[] t = byName.computeIfAbsent(name, k -> new Timer[] {new Timer(), new Timer()});
                        Timer side = t[agent ? 1 : 0];
                        side.perf.add(v.perf());
                        side.seconds.add(v.seconds());
                        side.unit = v.unit();
                    });
                    System.out.printf(Locale.ROOT, "%-14s %-26s launch %d/%d %-14s %3d timers  %6.1f s%n", p.binding(), p.name(),
                            i + 1, launches, label,
                            found.size(), (System.nanoTime() - t0) / 1e9);
                }
            }
            for (int i = 0; i < profiled; i++) {
                Path dir = Files.createDirectories(work.resolve("jfr-" + shares.size() + "-" + i));
                launch(p, ws, java, ws.agentJar(), options, List.of(AgentShare.profilingOption(profiler, dir)));
                shares.computeIfAbsent(p, k -> new AgentShare(programPackage(p))).add(dir);
                StartupBench.deleteTree(dir);
                System.out.printf(Locale.ROOT, "%-14s %-26s profiled launch %d/%d with agent%n", p.binding(), p.name(), i + 1,
                        profiled);
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "AppsBench: %d ranks, medians of %d launches per side, alternating; performance with the"
                        + " agent / %s (1.00: free; below 1: slower); timers shorter than %.0f ms left out%n",
                NP, launches, baseline != null ? "with the baseline agent" : "without", SHORTEST_TIMER_S * 1000);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after; agent %s%s%n%n", Machine.cpus(), loadBefore,
                Machine.loadAverage(), ws.agentJar(), baseline == null ? "" : "; baseline " + baseline);
        List<String> verdicts = new ArrayList<>();
        for (Map.Entry<Binding, Map<String, Timer[]>> e : timers.entrySet()) {
            verdicts.addAll(report(e.getKey(), e.getValue(), baseline != null));
        }
        if (!remarks.isEmpty()) {
            System.out.println("last launch of each side:");
            remarks.forEach((who, line) -> System.out.println("  " + who + ": " + line));
        }
        if (!shares.isEmpty()) {
            System.out.println();
            System.out.printf(Locale.ROOT, "the agent's share of the application threads' CPU (async-profiler, CPU time sampled every"
                    + " 1 ms, %d launch(es) per program with the agent; samples with an %s frame on the stack: its direct cost, not what"
                    + " it makes the compiler or the collector do):%n", profiled, AgentShare.AGENT_PACKAGE);
            ResultTable t = new ResultTable(2, "binding", "program", "all samples", "application's", "agent's", "at start-up",
                    "share", "share after start-up");
            shares.forEach((p, a) -> t.row(p.binding().toString(), p.name(), String.format(Locale.ROOT, "%,d", a.samples()),
                    String.format(Locale.ROOT, "%,d", a.programSamples()), String.format(Locale.ROOT, "%,d", a.agentSamples()),
                    String.format(Locale.ROOT, "%,d", a.agentStartSamples()), String.format(Locale.ROOT, "%.2f %%", 100 * a.share()),
                    String.format(Locale.ROOT, "%.2f %%", 100 * a.runningShare())));
            System.out.print(t.render());
            System.out.println("  (at start-up: the agent's samples in the binding's Init or in weaving a class as it loads; the start-up"
                    + " goal is bench/run startup's)");
            ResultTable parts = new ResultTable(3, "binding", "program", "part", "application's", "agent's after start-up", "share");
            double worst = 0;
            String worstPart = "";
            for (Map.Entry<Program, AgentShare> e : shares.entrySet()) {
                for (Map.Entry<String, long[]> part : e.getValue().parts().entrySet()) {
                    long[] n = part.getValue();
                    if (n[0] < 100) continue; // fewer than 100 ms of the application's CPU: too few samples to say a share
                    double share = n[1] / (double) n[0];
                    parts.row(e.getKey().binding().toString(), e.getKey().name(), part.getKey(), String.format(Locale.ROOT, "%,d", n[0]),
                            String.format(Locale.ROOT, "%,d", n[1]), String.format(Locale.ROOT, "%.2f %%", 100 * share));
                    if (share > worst) {
                        worst = share;
                        worstPart = e.getKey().binding() + " " + part.getKey();
                    }
                }
            }
            System.out.println();
            System.out.println("by part of the program (the innermost frame of the program: a JGF kernel's package, a benchmark's class;"
                    + " parts with fewer than 100 samples left out):");
            System.out.print(parts.render());
            System.out.printf(Locale.ROOT, "  largest share after start-up: %.2f %% (%s)%n", 100 * worst, worstPart);
        }
        System.out.println();
        for (String v : verdicts) System.out.println(v);
    }

    /** The package of a program's own classes: a frame of it marks one of the application's threads. */
    static String programPackage(Program p) {
        return p.mainClass().substring(0, p.mainClass().lastIndexOf('.') + 1);
    }

    /** The binding's table and its goal lines. */
    private static List<String> report(Binding b, Map<String, Timer[]> timers, boolean againstBaseline) {
        ResultTable t = new ResultTable(1, b + ": timer", "without", "with", "unit", "ratio",
                String.format(Locale.ROOT, "%.0f %% interval", 100 * RatioInterval.LEVEL), "spread w/o", "spread with");
        List<List<Double>> judgedWithout = new ArrayList<>();
        List<List<Double>> judgedWith = new ArrayList<>();
        List<String> undecided = new ArrayList<>();
        List<String> below = new ArrayList<>();
        RatioInterval.Interval allreduceInterval = null;
        double logSum = 0;
        int counted = 0;
        String worstName = null;
        double worst = Double.POSITIVE_INFINITY;
        Double allreduce = null;
        double firstWorst = Double.POSITIVE_INFINITY;
        String firstWorstName = null;
        List<String> left = new ArrayList<>();
        for (Map.Entry<String, Timer[]> e : timers.entrySet()) {
            Timer without = e.getValue()[0];
            Timer with = e.getValue()[1];
            double sec = Math.min(median(without.seconds), median(with.seconds));
            if (!Double.isNaN(sec) && sec < SHORTEST_TIMER_S) {
                left.add(String.format(Locale.ROOT, "%s (%.0f ms)", e.getKey(), sec * 1000));
                continue;
            }
            if (without.perf.count() == 0 || with.perf.count() == 0) {
                // a timer only one side printed has no ratio (and no interval: RatioInterval refuses an empty side)
                left.add(e.getKey() + " (printed " + (with.perf.count() == 0 ? "without" : "with") + " the agent only)");
                continue;
            }
            if (Math.min(without.perf.min(), with.perf.min()) <= 0) {
                // JGF section 1 subtracts the time of an empty loop it measured apart: a reading can come out negative
                left.add(e.getKey() + " (a reading at or below zero)");
                continue;
            }
            double ratio = with.perf.median() / without.perf.median();
            RatioInterval.Interval interval = RatioInterval.ofMedians(without.perf.inOrder(), with.perf.inOrder());
            boolean firstOfRepeated = timers.containsKey(e.getKey() + LATER_RUNS);
            t.row(e.getKey() + (firstOfRepeated ? " (run 1, not judged)" : ""), number(without.perf.median()),
                    number(with.perf.median()), with.unit, ResultTable.ratio(ratio), interval.render(),
                    ResultTable.percent(without.perf.spread()), ResultTable.percent(with.perf.spread()));
            if (firstOfRepeated) {
                if (ratio < firstWorst) {
                    firstWorst = ratio;
                    firstWorstName = e.getKey();
                }
                continue;
            }
            logSum += Math.log(ratio);
            counted++;
            judgedWithout.add(without.perf.inOrder());
            judgedWith.add(with.perf.inOrder());
            switch (interval.atLeast(GOAL_WORST)) {
                case NOT_MET -> below.add(e.getKey() + " " + interval.render());
                case NOT_DECIDED -> undecided.add(e.getKey() + " " + interval.render());
                default -> { }
            }
            if (ratio < worst) {
                worst = ratio;
                worstName = e.getKey();
            }
            if (e.getKey().startsWith("Loop:Allreduce:Double")) {
                allreduce = ratio;
                allreduceInterval = interval;
            }
        }
        System.out.print(t.render());
        if (!left.isEmpty()) System.out.println("  left out: " + String.join(", ", left));
        double geomean = Math.exp(logSum / Math.max(1, counted));
        System.out.printf(Locale.ROOT, "  %s: geometric mean %.3f over %d timers, worst %.3f (%s)%n", b, geomean, counted, worst,
                worstName);
        if (firstWorstName != null) {
            System.out.printf(Locale.ROOT, "  first runs of the repeated kernels (with the warm-up), not judged: worst %.3f (%s)%n",
                    firstWorst, firstWorstName);
        }
        System.out.println();
        List<String> out = new ArrayList<>();
        if (counted == 0) {
            out.add(b + ": no timer to judge");
            return out;
        }
        RatioInterval.Interval geomeanInterval = RatioInterval.ofGeometricMean(judgedWithout, judgedWith);
        int launches = judgedWithout.stream().mapToInt(List::size).min().orElse(0);
        if (againstBaseline) {
            out.add(String.format(Locale.ROOT, "%s: agent against baseline agent: geometric mean %.3f (%s), worst %.3f (goal lines"
                    + " need a run without --baseline-agent; with the same jar on both sides this is the run's own noise)", b,
                    geomean, geomeanInterval.render(), worst));
            return out;
        }
        out.add(String.format(Locale.ROOT, "goal %s: geometric mean >= %.2f: %.3f -> %s; %s", b, GOAL_GEOMEAN, geomean,
                geomean >= GOAL_GEOMEAN ? "MET" : "NOT MET",
                RatioInterval.judged(geomean, geomeanInterval, launches, GOAL_GEOMEAN)));
        String byIntervals;
        if (!below.isEmpty()) {
            byIntervals = "NOT MET by this run's intervals: " + String.join(", ", below);
        } else if (!undecided.isEmpty()) {
            byIntervals = RatioInterval.Verdict.NOT_DECIDED.text + ": the intervals of " + String.join(", ", undecided)
                    + " hold the goal";
        } else {
            byIntervals = "MET by this run's intervals";
        }
        out.add(String.format(Locale.ROOT, "goal %s: worst timer >= %.2f: %.3f (%s) -> %s; %s", b, GOAL_WORST, worst, worstName,
                worst >= GOAL_WORST ? "MET" : "NOT MET", byIntervals));
        if (allreduce != null && b == Binding.MPJ_MULTICORE) {
            double slower = 1 / allreduce;
            // the interval is of the performance ratio (calls per second): the goal's time ratio turned over
            out.add(String.format(Locale.ROOT, "goal %s: Allreduce of 4 doubles with the agent <= %.2fx the time without: %.3fx -> %s;"
                    + " as performance %.3f against >= %.3f: %s", b, GOAL_ALLREDUCE, slower, slower <= GOAL_ALLREDUCE ? "MET" : "NOT MET",
                    allreduce, 1 / GOAL_ALLREDUCE, RatioInterval.judged(allreduce, allreduceInterval, launches, 1 / GOAL_ALLREDUCE)));
        }
        return out;
    }


    private static double median(Samples s) {
        return s.count() == 0 ? Double.NaN : s.median();
    }

    private static String number(double v) {
        return v >= 1e6 ? String.format(Locale.ROOT, "%.4g", v) : String.format(Locale.ROOT, "%,.2f", v);
    }

    /** The timers a launch printed, by name (section 1's with the message size). */
    static Map<String, Reading> timers(List<String> output) {
        Map<String, Reading> out = new LinkedHashMap<>();
        Map<String, List<Reading>> later = new LinkedHashMap<>(); // --repeat: runs 2.. of a kernel
        int run = 1;
        for (String line : output) {
            String l = line.strip();
            Matcher r = RUN_MARK.matcher(l);
            if (r.find()) {
                run = Integer.parseInt(r.group(1));
                continue;
            }
            Matcher m = SECTION2_TIMER.matcher(l);
            if (m.find()) {
                Reading v = new Reading(Double.parseDouble(m.group(3)), Double.parseDouble(m.group(2)), m.group(4));
                if (run == 1) out.put(m.group(1), v);
                else later.computeIfAbsent(m.group(1) + LATER_RUNS, k -> new ArrayList<>()).add(v);
                run = 1;
                continue;
            }
            m = SECTION1_TIMER.matcher(l);
            if (m.find()) {
                // section 1 timers run for the target time at least: no seconds printed
                out.put(m.group(1) + " n=" + m.group(4), new Reading(Double.parseDouble(m.group(2)), Double.NaN, m.group(3)));
            }
        }
        // runs 2.. of one kernel in one launch: their mean, one timer
        later.forEach((name, vs) -> out.put(name, new Reading(vs.stream().mapToDouble(Reading::perf).average().orElseThrow(),
                vs.stream().mapToDouble(Reading::seconds).average().orElseThrow(), vs.get(0).unit())));
        return out;
    }

    /** One launch's output; the agent must say it watches in every rank JVM (or in none without it). */
    private static List<String> launch(Program p, Workspace ws, String java, Path agentJar, String options)
            throws Exception {
        return launch(p, ws, java, agentJar, options, List.of());
    }

    private static List<String> launch(Program p, Workspace ws, String java, Path agentJar, String options, List<String> jvmOptions)
            throws Exception {
        JobSpec.Builder spec = JobSpec.builder(p.binding(), NP, p.mainClass()).classPath(p.classPath()).appArgs(p.args())
                .javaExecutable(java).jvmOptions(jvmOptions);
        if (agentJar != null) spec.agentJar(agentJar).agentOptions(options);
        try (Job job = Job.launch(spec.build())) {
            int exit = job.waitFor(TIMEOUT);
            List<String> out = job.output();
            if (exit != 0) throw new IllegalStateException(p.name() + " on " + p.binding() + " exited with " + exit + ":\n" + job.tail());
            long watching = out.stream().filter(l -> l.contains("mpilens: agent ") && l.contains(" watching ")).count();
            long expected = agentJar == null ? 0 : p.binding().rankJvms(NP);
            if (watching != expected) {
                throw new IllegalStateException("the agent watched in " + watching + " JVMs of a launch " + (agentJar == null
                        ? "without it" : "with it") + " (expected " + expected + "):\n" + job.tail());
            }
            List<String> errors = out.stream().filter(l -> l.contains("Exception") && !l.contains("IOMessagesThread"))
                    .collect(Collectors.toList());
            if (!errors.isEmpty()) throw new IllegalStateException(p.name() + " on " + p.binding() + " threw:\n" + job.tail());
            return out;
        }
    }
}
