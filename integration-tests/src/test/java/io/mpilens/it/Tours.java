package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Launches the HandleTour examples with the agent and checks mpilens against them. */
final class Tours {
    static final Path ROOT = Paths.get(System.getProperty("mpilens.deps", ".deps")).toAbsolutePath().getParent();
    static final Path AGENT = ROOT.resolve("runtime-agent/target/mpilens-agent.jar");
    static final Duration START = Duration.ofSeconds(90);
    static final Duration READ = Duration.ofSeconds(20);
    static final String[] POINTS = {"created", "orphans", "released"};

    private Tours() {
    }

    static String mainClass(Binding b) {
        return b == Binding.OPENMPI ? "io.mpilens.examples.openmpi.HandleTour" : "io.mpilens.examples.mpj.HandleTour";
    }

    static List<Path> classPath(Binding b) {
        return List.of(ROOT.resolve("examples/support/target/classes"),
                ROOT.resolve(b == Binding.OPENMPI ? "examples/openmpi/target/classes" : "examples/mpj/target/classes"));
    }

    static JobSpec.Builder tour(Binding b, Path control) {
        return JobSpec.builder(b, 4, mainClass(b)).classPath(classPath(b)).agentJar(AGENT).agentOptions("requestStacks=true,requestHistory=true").jdwp(true)
                .controlDir(control).env("MPILENS_JOBS", control.resolve("jobs").toString());
    }

    /**
     * 4 ranks of an {@code examples/openmpi} program with the agent and JDWP, whose survivors keep
     * running after a rank dies ({@code orte_abort_on_non_zero_status 0}), registering in {@code jobs}.
     */
    static JobSpec.Builder survivingJob(String example, Path control, Path jobs) {
        return JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi." + example)
                .classPath(classPath(Binding.OPENMPI)).agentJar(AGENT).jdwp(true).controlDir(control)
                .mpirunArgs("--mca orte_abort_on_non_zero_status 0").env("MPILENS_JOBS", jobs.toString());
    }

    static List<JdwpAddress> addresses(Job job, Binding b) throws Exception {
        List<JdwpAddress> out = new ArrayList<>();
        for (String a : job.awaitJdwpAddresses(START)) out.add(JdwpAddress.parse(a));
        assertEquals(b.rankJvms(4), out.size(), "one JDWP address per rank JVM");
        return out;
    }

    /** The JVMs that run the application: its main class on their command line, not the launcher. */
    static List<Long> rankJvmPids(Job job) {
        String main = job.spec().mainClass();
        return job.processes().stream()
                .filter(p -> p.pid() != job.pid())
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .filter(p -> p.info().commandLine().map(c -> c.contains(main)).orElse(false))
                .map(ProcessHandle::pid).sorted().collect(java.util.stream.Collectors.toList());
    }

    /** Waits until all 4 ranks sit at the pause point. */
    static void awaitPause(Job job, String point) throws Exception {
        job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=" + point), 4, START);
    }

    /**
     * Every rank waiting at the tour's pause {@code from}: releases it and each pause after it, and
     * waits for the job to exit 0.
     */
    static void toEnd(Job job, String from) throws Exception {
        toFinalized(job, from);
        finish(job);
    }

    /**
     * Every rank waiting at the tour's pause {@code from}: releases it and each pause after it until
     * all 4 ranks wait at "finalized".
     */
    static void toFinalized(Job job, String from) throws Exception {
        int at = List.of(POINTS).indexOf(from);
        if (at < 0) throw new IllegalArgumentException(from + " is not one of the tour's pauses before finalized");
        for (int i = at; i < POINTS.length; i++) {
            job.release(POINTS[i]);
            awaitPause(job, i + 1 < POINTS.length ? POINTS[i + 1] : "finalized");
        }
    }

    /** Every rank waiting at "finalized": releases them and asserts that the job exits 0. */
    static void finish(Job job) throws Exception {
        job.release("finalized");
        assertEquals(0, job.waitFor(START), "job exit code; output:\n" + job.tail());
    }

    /**
     * Reads every rank through connections that stay open for the whole job, the way a debugger
     * does (a JVM listening on port 0 re-listens on a new port after a debugger detaches).
     */
    static List<ProcessSnapshot> snapshot(List<JdiTargetReader> readers, boolean suspend) {
        List<ProcessSnapshot> out = new ArrayList<>();
        for (JdiTargetReader r : readers) {
            RegistryDecoder decoder = new RegistryDecoder(r);
            out.addAll(suspend ? r.whileSuspended(decoder::decode) : decoder.decode());
        }
        return out;
    }

    /** What a test does at the "orphans" pause, with a debugger connection to every rank JVM. */
    interface AtOrphans {
        void run(Job job, List<JdiTargetReader> readers) throws Exception;
    }

    /**
     * The tour up to "orphans", {@code check} there, then on to the end: for reads at that pause,
     * heap dumps included ({@code jcmd} reaches a JVM whose threads a debugger suspended only
     * through an attach listener started beforehand).
     */
    static void atOrphans(Binding b, Path control, AtOrphans check) throws Exception {
        atOrphans(b, control, tour(b, control), check);
    }

    /** {@link #atOrphans(Binding, Path, AtOrphans)} for a tour launched as {@code spec} says. */
    static void atOrphans(Binding b, Path control, JobSpec.Builder spec, AtOrphans check) throws Exception {
        atOrphans(b, control, spec, check, (job, readers) -> { });
    }

    /** The same, and {@code atReleased} at the "released" pause. */
    static void atOrphans(Binding b, Path control, JobSpec.Builder spec, AtOrphans check, AtOrphans atReleased)
            throws Exception {
        Files.createDirectories(control);
        try (Job job = Job.launch(spec.jvmOptions("-XX:+StartAttachListener").build())) {
            List<JdiTargetReader> readers = connect(addresses(job, b));
            try {
                awaitPause(job, "created");
                job.release("created");
                awaitPause(job, "orphans");
                check.run(job, readers);
                job.release("orphans");
                awaitPause(job, "released");
                atReleased.run(job, readers);
                job.release("released");
                awaitPause(job, "finalized");
            } finally {
                disconnect(readers);
            }
            finish(job);
        }
    }

    static List<JdiTargetReader> connect(List<JdwpAddress> addresses) {
        List<JdiTargetReader> readers = new ArrayList<>();
        for (JdwpAddress a : addresses) readers.add(JdiTargetReader.attach(a, READ));
        return readers;
    }

    static void disconnect(List<JdiTargetReader> readers) {
        for (JdiTargetReader r : readers) r.close();
    }

    /**
     * The whole tour: at each pause every expectation of every rank must hold. Reads at the
     * first pause with the target VMs suspended by us (not at an event), the others running.
     */
    static void runTour(Binding b, Path control) throws Exception {
        Files.createDirectories(control);
        try (Job job = Job.launch(tour(b, control).build())) {
            List<JdiTargetReader> readers = connect(addresses(job, b));
            try {
                if (b != Binding.OPENMPI) {
                    awaitPause(job, "created");
                    for (JdiTargetReader r : readers) assertFinalizeLeftEmpty(r);
                }
                tourPoints(job, readers);
            } finally {
                disconnect(readers);
            }
            finish(job);
        }
    }

    /**
     * MPJ Express's {@code Request.finalize()} is empty, so HotSpot does not register requests for
     * finalization; advice woven into it would send every request through the finalizer thread
     * (it once cost MPJ Express a quarter of its message rate). The agent must leave it as it is.
     */
    static void assertFinalizeLeftEmpty(JdiTargetReader r) {
        List<com.sun.jdi.ReferenceType> types = r.virtualMachine().classesByName("mpi.Request");
        assertTrue(!types.isEmpty(), r.describe() + ": mpi.Request is loaded");
        for (com.sun.jdi.ReferenceType t : types) {
            List<com.sun.jdi.Method> fin = t.methodsByName("finalize", "()V");
            assertEquals(1, fin.size(), "mpi.Request declares finalize()");
            byte[] code = fin.get(0).bytecodes();
            assertEquals("[-79]", java.util.Arrays.toString(code),
                    r.describe() + ": mpi.Request.finalize() is still just 'return' (0xb1) with the agent");
        }
    }

    private static void tourPoints(Job job, List<JdiTargetReader> readers) throws Exception {
            for (String point : POINTS) {
                awaitPause(job, point);
                List<ProcessSnapshot> ranks = snapshot(readers, point.equals("created"));
                assertEquals(4, ranks.size(), "4 MPI processes decoded");
                List<String> problems = new ArrayList<>();
                int checked = 0;
                for (String line : job.linesStartingWith("MPILENS-EXPECT")) {
                    Expectation e = Expectation.parse(line);
                    if (!e.point().equals(point)) continue;
                    ProcessSnapshot p = ranks.stream().filter(r -> r.rank() == e.owner()).findFirst().orElseThrow();
                    ExpectationChecker c = new ExpectationChecker(p, "HandleTour.java");
                    c.check(e);
                    problems.addAll(c.problems());
                    checked++;
                }
                for (ProcessSnapshot p : ranks) {
                    assertEquals(MpiState.INITIALIZED, p.mpiState());
                    assertEquals(0, p.agentHealth().internalErrors(), "agent errors: " + p.agentHealth().lastError());
                    assertEquals(0, p.tornRows());
                }
                assertTrue(checked >= 4, "expectations printed at " + point + ": " + checked);
                if (!problems.isEmpty()) fail(problems.size() + " differences at '" + point + "':\n" + String.join("\n", problems));
                job.release(point);
            }
            awaitPause(job, "finalized");
            for (ProcessSnapshot p : snapshot(readers, false)) assertEquals(MpiState.FINALIZED, p.mpiState());
    }
}
