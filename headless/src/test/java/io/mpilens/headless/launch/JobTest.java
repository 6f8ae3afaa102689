package io.mpilens.headless.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Launches the real HandleTour examples on each binding with 4 ranks, as the CLI, the
 * integration tests and the benchmarks do.
 */
class JobTest {
    private static final int NP = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Pattern OWNER = Pattern.compile("\\bowner=(\\d+)\\b");

    private final List<Job> jobs = new ArrayList<>();

    @AfterEach
    void closeJobs() {
        jobs.forEach(Job::close);
    }

    @ParameterizedTest
    @EnumSource(Binding.class)
    void handleTourGivesOneJdwpAddressPerRankJvmPrintsExpectationsOfAllRanksAndExitsZero(Binding binding)
            throws Exception {
        Job job = launch(tour(binding).jdwp(true));

        List<String> addresses = job.awaitJdwpAddresses(WAIT);
        int jvms = binding == Binding.MPJ_MULTICORE ? 1 : NP;
        assertEquals(jvms, addresses.size(), () -> "addresses " + addresses + "\n" + job.tail());
        assertEquals(jvms, new HashSet<>(addresses).size(), () -> "distinct addresses " + addresses);
        addresses.forEach(a -> assertTrue(a.matches("127\\.0\\.0\\.1:\\d+"), a));

        assertEquals(0, job.waitFor(WAIT), job::tail);
        assertEquals(Set.of(0, 1, 2, 3), owners(job.linesStartingWith("MPILENS-EXPECT")), job::tail);
        assertEquals(Set.of(0, 1, 2, 3), owners(job.linesStartingWith("MPILENS-PAUSE owner=")
                .stream().filter(l -> l.endsWith("point=finalized")).toList()), job::tail);
    }

    @ParameterizedTest
    @EnumSource(Binding.class)
    void closeEndsAPausedJobWithAllItsProcessesAndPorts(Binding binding, @TempDir Path control) throws Exception {
        Job job = launch(tour(binding).jdwp(true).controlDir(control));
        List<String> addresses = job.awaitJdwpAddresses(WAIT);
        job.awaitLines(l -> l.startsWith("MPILENS-PAUSE") && l.endsWith("point=created"), NP, WAIT);
        List<ProcessHandle> processes = job.processes();
        int jvms = binding == Binding.MPJ_MULTICORE ? 1 : NP;
        assertTrue(processes.size() >= 1 + jvms, () -> "processes of the job: " + describe(processes));
        Set<Integer> ports = new TreeSet<>(job.runtimePorts());
        for (String a : addresses) ports.add(Integer.parseInt(a.substring(a.lastIndexOf(':') + 1)));
        assertTrue(MpjJobHome.listeningPorts().containsAll(ports), "listening before close: " + ports);

        job.close();

        assertEquals(List.of(), processes.stream().filter(ProcessHandle::isAlive).toList(),
                () -> "alive after close: " + describe(processes));
        Set<Integer> stillListening = new TreeSet<>(MpjJobHome.listeningPorts());
        stillListening.retainAll(ports);
        assertEquals(Set.of(), stillListening, "ports still listening after close");
        assertFalse(job.isAlive());
        job.close(); // idempotent
    }

    @Test
    void releaseLetsPausedRanksGoOn(@TempDir Path control) throws Exception {
        Job job = launch(tour(Binding.MPJ_MULTICORE).controlDir(control));
        for (String point : List.of("created", "orphans", "released", "finalized")) {
            job.awaitLines(l -> l.startsWith("MPILENS-PAUSE") && l.endsWith("point=" + point), NP, WAIT);
            assertTrue(job.isAlive(), point);
            job.release(point);
        }
        assertEquals(0, job.waitFor(WAIT), job::tail);
    }

    @Test
    void niodevJobsRunSideBySide() throws Exception {
        Job first = launch(tour(Binding.MPJ_NIODEV));
        Job second = launch(tour(Binding.MPJ_NIODEV));
        assertEquals(0, first.waitFor(WAIT), first::tail);
        assertEquals(0, second.waitFor(WAIT), second::tail);
        assertEquals(Set.of(0, 1, 2, 3), owners(first.linesStartingWith("MPILENS-EXPECT")));
        assertEquals(Set.of(0, 1, 2, 3), owners(second.linesStartingWith("MPILENS-EXPECT")));
    }

    @Test
    void openMpiOutputKeepsTheRankOfEachLine() throws Exception {
        Job job = launch(tour(Binding.OPENMPI));
        assertEquals(0, job.waitFor(WAIT), job::tail);
        for (OutputLine l : job.outputLines()) {
            Matcher m = OWNER.matcher(l.text());
            if (l.text().startsWith("MPILENS-") && m.find()) {
                assertEquals(Integer.parseInt(m.group(1)), l.rank(), l::toString);
            }
        }
    }

    @Test
    void aMissingBindingSaysWhatIsMissingAndHowToGetIt() {
        for (Binding b : Binding.values()) {
            JobSpec spec = JobSpec.builder(b, NP, "Main").environment(MpiEnvironment.of(null, null)).build();
            IOException e = assertThrows(IOException.class, () -> Job.launch(spec));
            assertTrue(e.getMessage().contains(b == Binding.OPENMPI ? "mpi.jar" : "MPJ_HOME"), e.getMessage());
            assertTrue(e.getMessage().contains("scripts/setup-env"), e.getMessage());
        }
    }

    @Test
    void bindingsParseFromTheNamesUsersType() {
        assertEquals(Binding.OPENMPI, Binding.parse("openmpi"));
        assertEquals(Binding.MPJ_MULTICORE, Binding.parse("mpj-multicore"));
        assertEquals(Binding.MPJ_NIODEV, Binding.parse("MPJ_NIODEV"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Binding.parse("mpich"));
        assertTrue(e.getMessage().contains("openmpi, mpj-multicore, mpj-niodev"), e.getMessage());
    }

    // ------------------------------------------------------------------ helpers

    private Job launch(JobSpec.Builder spec) throws IOException {
        Job job = Job.launch(spec.build());
        jobs.add(job);
        return job;
    }

    private static JobSpec.Builder tour(Binding binding) {
        Path examples = reactorRoot().resolve("examples");
        String module = binding == Binding.OPENMPI ? "openmpi" : "mpj";
        Path classes = examples.resolve(module).resolve("target/classes");
        Path support = examples.resolve("support/target/classes");
        assertTrue(Files.isDirectory(classes), classes + " missing: build examples-" + module + " first");
        return JobSpec.builder(binding, NP, "io.mpilens.examples." + module + ".HandleTour")
                .classPath(classes, support);
    }

    /** Surefire sets {@code mpilens.deps} to {@code <root>/.deps}; from an IDE, look upwards. */
    private static Path reactorRoot() {
        String deps = System.getProperty(MpiEnvironment.DEPS_PROPERTY);
        if (deps != null) return Path.of(deps).toAbsolutePath().getParent();
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve("examples")) && Files.isRegularFile(d.resolve("mvnw"))) return d;
        }
        throw new IllegalStateException("reactor root not found: run from the build or set -Dmpilens.deps");
    }

    private static Set<Integer> owners(List<String> lines) {
        Set<Integer> out = new TreeSet<>();
        for (String l : lines) {
            Matcher m = OWNER.matcher(l);
            if (m.find()) out.add(Integer.parseInt(m.group(1)));
        }
        return out;
    }

    private static String describe(List<ProcessHandle> processes) {
        StringBuilder b = new StringBuilder();
        for (ProcessHandle p : processes) {
            b.append("\n  ").append(p.pid()).append(p.isAlive() ? " alive " : " gone ")
                    .append(p.info().commandLine().orElse("?"));
        }
        return b.toString();
    }
}
