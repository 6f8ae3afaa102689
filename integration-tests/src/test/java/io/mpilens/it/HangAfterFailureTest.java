package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.InFlightCalls;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.JobObserver;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Open MPI job ({@code orte_abort_on_non_zero_status 0}, 4 ranks) where rank 2 is killed
 * and the survivors then enter {@code barrier} on COMM_WORLD: mpilens shows each survivor inside
 * that barrier, mapped to the registry's COMM_WORLD, flagged as never completing.
 */
class HangAfterFailureTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final String JOB = "it-hang";

    @TempDir
    Path tmp;

    @Test
    void survivorsInABarrierWithADeadMemberAreFlaggedAsNeverCompleting() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi.HangAfterFailure")
                .classPath(Tours.classPath(Binding.OPENMPI)).agentJar(Tours.AGENT).jdwp(true).controlDir(control)
                .mpirunArgs("--mca orte_abort_on_non_zero_status 0")
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).build();
        try (Job job = Job.launch(spec)) {
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
            List<JobRecord> records = new JobDirectory(jobs).job(JOB).records();
            long pid = records.stream().filter(r -> r.rank() == 2).findFirst().orElseThrow().pid();
            new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
            Files.createFile(control.resolve("ready.go"));
            job.awaitLines(l -> l.startsWith("MPILENS-BARRIER ") || l.contains("MPILENS-BARRIER "), 3, Tours.START);

            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), JOB, TIMEOUT).withFrames(false);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            List<InFlightCall> flagged;
            JobModel m;
            do {
                Thread.sleep(300);
                m = o.observe();
                flagged = InFlightCalls.of(m, o.frames()).stream()
                        .filter(c -> c.call().endsWith(".barrier")).collect(Collectors.toList());
            } while ((flagged.size() < 3 || !flagged.stream().allMatch(InFlightCall::neverCompletes))
                    && System.nanoTime() < deadline);

            assertEquals(ProcessState.FAILED, m.rank(2).orElseThrow().state());
            assertEquals(List.of(0, 1, 3), flagged.stream().map(InFlightCall::rank).collect(Collectors.toList()),
                    InFlightCalls.of(m, o.frames()).toString());
            for (InFlightCall c : flagged) {
                assertEquals("MPI_COMM_WORLD", c.receiver(), c.toString());
                assertTrue(c.handleId() != 0, c.toString());
                assertEquals(List.of(2), c.failedPeers(), c.toString());
                assertTrue(c.neverCompletes(), c.toString());
            }
        }
    }
}
