package io.mpilens.bench;

import com.sun.jdi.ThreadReference;
import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.share.JobShare;
import io.mpilens.headless.share.RankShare;
import io.mpilens.headless.testing.TargetJvm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the share ({@code mpilens share}) costs a debugger and mpilens, in one run:
 * <ol>
 * <li>JDWP round trips: {@code ThreadReference.name} N times (default 10,000) through a share
 *     vs directly, on two identical plain JVMs (a JVM takes one debugger: the shared one is held
 *     by its share), rounds alternating (21 per side: a round is half a second, and a loaded
 *     machine's noise needs many). Goal: through the share at most 1.3x direct. A third side, the
 *     same share with its readers' polling off ({@code SharedVm.pollMicros(0)}: each reader
 *     sleeps in its read), shows what the polling is worth.</li>
 * <li>{@code mpilens handles --job} of a 4-rank Open MPI job paused in {@code RecoverAfterFailure}:
 *     the command as a user runs it, with no share (each read attaches and detaches, the JVMs
 *     re-listen) vs while a share of the job runs (the same command then attaches through it),
 *     and the share with its polling off; six phases. Goal: at most 1.2x.</li>
 * </ol>
 */
public final class ShareBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run share [--calls N] [--rounds N] [--handles-rounds N] [--parts both|roundtrip|handles] [--poll US] [--java JAVA]",
            "  --calls           ThreadReference.name round trips per round (default 10000)",
            "  --rounds          rounds per side of the round-trip part, alternating (default 21)",
            "  --handles-rounds  'handles --job' reads per phase; two phases per side, three sides (default 5)",
            "  --parts           which part(s) to run (default both; roundtrip alone for profiling)",
            "  --poll            the share's poll budget in microseconds on its polling side (default: the share's own, 50)",
            "  --java            the targets' java (default: java, the application JDK)");
    private static final String JOB = "bench-share";
    /** The share's poll budget in microseconds (its BoundedPoll.PROPERTY). */
    private static final String POLL_PROPERTY = "mpilens.share.pollMicros";
    private static final Duration START = Duration.ofMinutes(5);
    /** A JVM re-listens on a new port after a debugger detaches; its agent rewrites the record every 250 ms. */
    private static final long SETTLE_MILLIS = 700;

    private ShareBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        int calls = Math.max(1, args.integer("--calls", 10_000));
        int rounds = Math.max(1, args.integer("--rounds", 21));
        int handlesRounds = Math.max(1, args.integer("--handles-rounds", 5));
        String java = args.string("--java", "java");
        String parts = args.string("--parts", "both");
        long poll = args.integer("--poll", -1);
        args.done();
        if (!List.of("both", "roundtrip", "handles").contains(parts)) {
            System.err.println("--parts takes both, roundtrip or handles, got '" + parts + "'");
            System.err.println(USAGE);
            System.exit(2);
        }
        boolean roundTrip = !parts.equals("handles"), handlesPart = !parts.equals("roundtrip");
        Workspace ws = Workspace.detect();
        String loadBefore = Machine.loadAverage();

        Samples direct = new Samples();
        Samples shared = new Samples();
        Samples sharedAsleep = new Samples();
        long[] polls = new long[2];
        if (roundTrip) polls = roundTrips(ws, java, calls, rounds, poll, direct, shared, sharedAsleep);
        Samples handlesDirect = new Samples();
        Samples handlesShared = new Samples();
        Samples handlesAsleep = new Samples();
        if (handlesPart) handlesReads(ws, java, handlesRounds, handlesDirect, handlesShared, handlesAsleep);

        System.out.println();
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after; harness JDK %s%n%n",
                Machine.cpus(), loadBefore, Machine.loadAverage(), Runtime.version());
        ResultTable t = new ResultTable(1, "measure", "rounds", "median ms", "min ms", "max ms");
        if (roundTrip) {
            t.row(calls + " x ThreadReference.name, direct", direct.count(), ResultTable.ms(direct.median()),
                    ResultTable.ms(direct.min()), ResultTable.ms(direct.max()));
            t.row(calls + " x ThreadReference.name, through the share", shared.count(), ResultTable.ms(shared.median()),
                    ResultTable.ms(shared.min()), ResultTable.ms(shared.max()));
            t.row(calls + " x ThreadReference.name, the share not polling", sharedAsleep.count(),
                    ResultTable.ms(sharedAsleep.median()), ResultTable.ms(sharedAsleep.min()), ResultTable.ms(sharedAsleep.max()));
        }
        if (handlesPart) {
            t.row("handles --job, 4 Open MPI ranks, direct", handlesDirect.count(), ResultTable.ms(handlesDirect.median()),
                    ResultTable.ms(handlesDirect.min()), ResultTable.ms(handlesDirect.max()));
            t.row("handles --job, 4 Open MPI ranks, through the share", handlesShared.count(), ResultTable.ms(handlesShared.median()),
                    ResultTable.ms(handlesShared.min()), ResultTable.ms(handlesShared.max()));
            t.row("handles --job, 4 Open MPI ranks, share not polling", handlesAsleep.count(), ResultTable.ms(handlesAsleep.median()),
                    ResultTable.ms(handlesAsleep.min()), ResultTable.ms(handlesAsleep.max()));
        }
        System.out.print(t.render());
        if (roundTrip) {
            double rt = shared.median() / direct.median();
            System.out.printf(Locale.ROOT, "round trip through the share / direct (medians) %.2fx (%.1f vs %.1f us per call): goal <= 1.3x %s%n",
                    rt, shared.median() * 1000 / calls, direct.median() * 1000 / calls, rt <= 1.3 ? "MET" : "NOT MET");
            // each round's two sides ran back to back: their ratio sees the same load, the medians above may not
            Samples paired = new Samples();
            for (int i = 0; i < shared.count(); i++) paired.add(shared.inOrder().get(i) / direct.inOrder().get(i));
            System.out.printf(Locale.ROOT, "  the same per round (share / direct of each round, back to back): median %.2fx, min %.2fx, max %.2fx%n",
                    paired.median(), paired.min(), paired.sorted().get(paired.count() - 1));
            Samples asleep = new Samples();
            for (int i = 0; i < sharedAsleep.count(); i++) asleep.add(sharedAsleep.inOrder().get(i) / direct.inOrder().get(i));
            System.out.printf(Locale.ROOT, "  the share not polling / direct: medians %.2fx, per round median %.2fx (%.1f us per call)%n",
                    sharedAsleep.median() / direct.median(), asleep.median(), sharedAsleep.median() * 1000 / calls);
            System.out.printf(Locale.ROOT, "  the share's polls: %d caught their packet, %d came to nothing%n", polls[0], polls[1]);
        }
        if (handlesPart) {
            double hr = handlesShared.median() / handlesDirect.median();
            System.out.printf(Locale.ROOT, "handles --job through the share / direct (medians) %.2fx: goal <= 1.2x %s%n",
                    hr, hr <= 1.2 ? "MET" : "NOT MET");
            System.out.printf(Locale.ROOT, "  the share not polling / direct (medians) %.2fx%n", handlesAsleep.median() / handlesDirect.median());
        }
    }

    /** The three sides, each round in another order; returns the polling side's polls (caught, missed). */
    private static long[] roundTrips(Workspace ws, String java, int calls, int rounds, long poll, Samples direct, Samples shared,
                                     Samples sharedAsleep) throws Exception {
        System.out.println("starting two plain JVMs (" + java + "), one read directly, one through a share ...");
        try (TargetJvm a = target(ws, java); TargetJvm b = target(ws, java);
             RankShare share = RankShare.open(JdwpAddress.parse(b.address()), 0, Duration.ofSeconds(30), "bench");
             JdiTargetReader viaDirect = JdiTargetReader.attach(JdwpAddress.parse(a.address()), Duration.ofSeconds(30));
             JdiTargetReader viaShare = JdiTargetReader.attach(share.address(), Duration.ofSeconds(30))) {
            ThreadReference td = mainThread(viaDirect), ts = mainThread(viaShare);
            long polling = poll >= 0 ? poll : share.vm().pollMicros();
            names(td, calls); // warm-up: both paths' classes loaded and compiled
            share.vm().pollMicros(0);
            names(ts, calls);
            share.vm().pollMicros(polling);
            names(ts, calls);
            String[] labels = {"direct", "through the share", "share not polling"};
            Samples[] into = {direct, shared, sharedAsleep};
            long[] polls = new long[2];
            for (int i = 0; i < rounds; i++) {
                for (int k = 0; k < 3; k++) {
                    int side = (i + k) % 3;
                    share.vm().pollMicros(side == 2 ? 0 : polling);
                    long[] before = share.vm().polls();
                    double ms = names(side == 0 ? td : ts, calls);
                    long[] after = share.vm().polls();
                    if (side == 1) {
                        polls[0] += after[0] - before[0];
                        polls[1] += after[1] - before[1];
                    }
                    into[side].add(ms);
                    System.out.printf(Locale.ROOT, "round %2d  %-18s %8.1f ms%n", i + 1, labels[side], ms);
                }
            }
            return polls;
        }
    }

    private static TargetJvm target(Workspace ws, String java) throws Exception {
        return TargetJvm.start(java, List.of("-Xmx32m"), ws.targetClassPath(), ShareBenchTarget.class.getName(), List.of(),
                ShareBenchTarget.READY, Duration.ofSeconds(60));
    }

    private static ThreadReference mainThread(JdiTargetReader r) {
        for (ThreadReference t : r.virtualMachine().allThreads()) if (t.name().equals("main")) return t;
        throw new IllegalStateException("no main thread in " + r.describe());
    }

    /** {@code calls} round trips; JDI caches nothing of a thread's name, so each is one command and its reply. */
    private static double names(ThreadReference t, int calls) {
        long t0 = System.nanoTime();
        int length = 0;
        for (int i = 0; i < calls; i++) length += t.name().length();
        if (length != 4 * calls) throw new IllegalStateException("thread name is not 'main'");
        return (System.nanoTime() - t0) / 1e6;
    }

    /** Six phases: direct, share, share not polling, direct, share not polling, share. */
    private static void handlesReads(Workspace ws, String java, int rounds, Samples direct, Samples shared, Samples asleep)
            throws Exception {
        Path tmp = Files.createTempDirectory("mpilens-sharebench-");
        Path jobs = tmp.resolve("jobs");
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi.RecoverAfterFailure")
                .classPath(ws.openMpiExampleClassPath()).javaExecutable(java).agentJar(ws.agentJar()).jdwp(true)
                .controlDir(tmp.resolve("control")).jvmOptions("-Xmx48m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).startTimeout(START).build();
        Map<String, String> env = Map.of("MPILENS_JOBS", jobs.toString(), "NO_COLOR", "1");
        try (Job job = Job.launch(spec)) {
            System.out.println("starting 4 Open MPI ranks of RecoverAfterFailure ...");
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, START);
            handles(env); // warm-up
            int[] sides = {0, 1, 2, 0, 2, 1};
            String[] labels = {"direct", "through the share", "share not polling"};
            Samples[] into = {direct, shared, asleep};
            for (int phase = 0; phase < sides.length; phase++) {
                int side = sides[phase];
                // a share's readers take their poll budget from this property when it connects
                if (side == 2) System.setProperty(POLL_PROPERTY, "0");
                JobShare share = side > 0 ? startShare(jobs) : null;
                System.clearProperty(POLL_PROPERTY);
                try {
                    handles(env); // a first read of the phase, not measured
                    for (int i = 0; i < rounds; i++) {
                        Thread.sleep(SETTLE_MILLIS);
                        double ms = handles(env);
                        into[side].add(ms);
                        System.out.printf(Locale.ROOT, "phase %d  handles --job %-18s %8.1f ms%n", phase + 1, labels[side], ms);
                    }
                } finally {
                    if (share != null) share.close();
                }
                Thread.sleep(SETTLE_MILLIS); // the JVMs listen again once the share lets them go
            }
        } finally {
            try (var files = Files.walk(tmp)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static JobShare startShare(Path jobs) throws Exception {
        JobShare share = new JobShare(new JobDirectory(jobs), JOB, 0, Duration.ofSeconds(10), line -> System.out.println("share: " + line));
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            share.round();
            List<JobRecord> records = new JobDirectory(jobs).job(JOB).records();
            if (records.size() == 4 && records.stream().allMatch(r -> r.share() != null)) return share;
            Thread.sleep(100);
        }
        share.close();
        throw new IllegalStateException("the share did not serve all 4 ranks");
    }

    /** One {@code mpilens handles --job} in this JVM; its time in ms. */
    private static double handles(Map<String, String> env) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        int code = MpiLensCli.run(new String[] {"handles", "--job", JOB, "--timeout", "30", "--hosts", "none"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env);
        double ms = (System.nanoTime() - t0) / 1e6;
        if (code != 0) throw new IllegalStateException("handles --job exited " + code + ": " + err.toString(StandardCharsets.UTF_8));
        return ms;
    }
}
