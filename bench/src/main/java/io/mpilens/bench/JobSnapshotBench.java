package io.mpilens.bench;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.observe.JobSnapshotter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whole-job snapshot of a real Open MPI job (default 16 ranks, small heaps, the agent and JDWP on
 * every rank, each paused in {@code RecoverAfterFailure} with a receive pending from every other
 * rank): the job model ({@link JobObserver#observe}: every rank attached, decoded and judged in
 * parallel) against the baseline of reading the same ranks one after another, alternating, in one
 * run. Goal: the job model of 16 ranks in at most 1 s.
 */
public final class JobSnapshotBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run job [--np N] [--rounds N] [--heap SIZE] [--java JAVA]",
            "  --np      ranks (default 16)",
            "  --rounds  measured rounds per side, alternating (default 10)",
            "  --heap    -Xmx of each rank (default 48m)",
            "  --java    the ranks' java (default: java, the application JDK)");
    private static final String MAIN_CLASS = "io.mpilens.examples.openmpi.RecoverAfterFailure";
    private static final String JOB = "bench-job";
    private static final Duration READ = Duration.ofSeconds(10);
    private static final Duration START = Duration.ofMinutes(5);
    /** A JVM re-listens on a new port after a debugger detaches; its agent rewrites the record every 250 ms. */
    private static final long SETTLE_MILLIS = 700;
    private static final double GOAL_MILLIS = 1000;

    private JobSnapshotBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        int np = Math.max(2, args.integer("--np", 16));
        int rounds = Math.max(1, args.integer("--rounds", 10));
        String heap = args.string("--heap", "48m");
        String java = args.string("--java", "java");
        args.done();

        Workspace ws = Workspace.detect();
        Path tmp = Files.createTempDirectory("mpilens-jobbench-");
        Path jobs = tmp.resolve("jobs");
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, np, MAIN_CLASS).classPath(ws.openMpiExampleClassPath())
                .javaExecutable(java).agentJar(ws.agentJar()).jdwp(true).controlDir(tmp.resolve("control"))
                .jvmOptions("-Xmx" + heap, "-Xms16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).startTimeout(START).build();
        String loadBefore = Machine.loadAverage();
        Samples model = new Samples();
        Samples sequential = new Samples();
        int handles = 0;
        try (Job job = Job.launch(spec)) {
            System.out.println("starting " + np + " ranks of " + MAIN_CLASS + " (-Xmx" + heap + ") ...");
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), np, START);
            JobDirectory dir = new JobDirectory(jobs);
            JobObserver observer = JobObserver.forJob(dir, JOB, READ);
            JobModel warm = observer.observe(); // first touch of every JVM's classes
            check(warm, np);
            for (int i = 0; i < rounds; i++) {
                boolean modelFirst = i % 2 == 0;
                for (boolean parallel : new boolean[] {modelFirst, !modelFirst}) {
                    Thread.sleep(SETTLE_MILLIS);
                    long t0 = System.nanoTime();
                    if (parallel) {
                        JobModel m = observer.observe();
                        double ms = (System.nanoTime() - t0) / 1e6;
                        check(m, np);
                        handles = m.processes().stream().mapToInt(r -> r.snapshot().handles().size()).sum();
                        model.add(ms);
                        System.out.printf(Locale.ROOT, "round %2d  job model (parallel)   %8.1f ms%n", i + 1, ms);
                    } else {
                        List<JdwpAddress> addresses = new ArrayList<>();
                        for (JobRecord r : dir.job(JOB).records()) addresses.add(r.jdwpAddress());
                        JobSnapshotter one = new JobSnapshotter(READ, false);
                        int read = 0;
                        for (JdwpAddress a : addresses) read += one.read(a).size();
                        double ms = (System.nanoTime() - t0) / 1e6;
                        if (read != np) throw new IllegalStateException("sequential read saw " + read + " of " + np + " ranks");
                        sequential.add(ms);
                        System.out.printf(Locale.ROOT, "round %2d  one rank after another %8.1f ms%n", i + 1, ms);
                    }
                }
            }
        } finally {
            deleteQuietly(tmp);
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "JobSnapshotBench: Open MPI, %d ranks of %s paused at 'ready' (-Xmx%s, serial GC,"
                + " C1 only), %d handles in all; each round attaches, decodes and detaches every rank JVM%n",
                np, MAIN_CLASS, heap, handles);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after; harness JDK %s%n%n",
                Machine.cpus(), loadBefore, Machine.loadAverage(), Runtime.version());
        ResultTable t = new ResultTable(1, "reading", "rounds", "median ms", "min ms", "max ms");
        t.row("job model, all ranks in parallel", model.count(), ResultTable.ms(model.median()), ResultTable.ms(model.min()),
                ResultTable.ms(model.max()));
        t.row("baseline: one rank after another", sequential.count(), ResultTable.ms(sequential.median()),
                ResultTable.ms(sequential.min()), ResultTable.ms(sequential.max()));
        System.out.print(t.render());
        System.out.printf(Locale.ROOT, "ratio parallel/sequential (medians) %s%n", ResultTable.ratio(model.median() / sequential.median()));
        System.out.printf(Locale.ROOT, "goal: job model of %d ranks <= %.0f ms: %s (median %.1f ms, max %.1f ms)%n", np, GOAL_MILLIS,
                model.median() <= GOAL_MILLIS ? "MET" : "NOT MET", model.median(), model.max());
    }

    private static void check(JobModel m, int np) {
        long ok = m.processes().stream().filter(r -> r.state() == ProcessState.OK && r.snapshot() != null).count();
        if (ok != np) throw new IllegalStateException("expected " + np + " ranks OK, got " + m.processes());
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (java.io.IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
