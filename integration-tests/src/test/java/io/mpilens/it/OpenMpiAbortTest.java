package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.JobEnd;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.Transition;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.observe.LocalProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Open MPI with its default policy: when one rank is killed, mpirun kills all the others about
 * a second later and exits with an error. mpilens's timeline shows the killed rank FAILED first,
 * then the others; every round of observation returns (a dead rank never holds it up); and
 * afterwards the records alone tell the job aborted, which rank failed first and which ones
 * mpirun ended ({@code mpilens jobs}).
 */
class OpenMpiAbortTest {
    private static final String JOB = "it-abort";

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theKilledRankFailsFirstThenTheRestAsMpirunAbortsTheJob() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        try (Job job = Job.launch(Tours.tour(Binding.OPENMPI, control)
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).build())) {
            Tours.awaitPause(job, "created");
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), JOB, Duration.ofSeconds(5));
            JobModel m = o.observe();
            for (RankStatus r : m.processes()) assertEquals(ProcessState.OK, r.state(), r.toString());

            long pid = new JobDirectory(jobs).job(JOB).records().get(2).pid();
            new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
            m = o.observeUntil(x -> x.processes().stream().allMatch(r -> r.state() == ProcessState.FAILED),
                    Duration.ofMillis(100), Duration.ofSeconds(60));
            for (RankStatus r : m.processes()) assertEquals(ProcessState.FAILED, r.state(), r.toString());
            assertEquals(CommState.FAILED, m.communicator("MPI_COMM_WORLD").orElseThrow().state());

            Map<Integer, Instant> failedAt = new HashMap<>();
            for (Transition t : o.timeline()) {
                if ("FAILED".equals(t.to()) && t.subject().startsWith("rank ")) {
                    failedAt.putIfAbsent(Integer.parseInt(t.subject().substring(5)), t.at());
                }
            }
            assertEquals(4, failedAt.size(), o.timeline().toString());
            for (int r : new int[] {0, 1, 3}) {
                assertFalse(failedAt.get(r).isBefore(failedAt.get(2)), "rank " + r + " failed after rank 2: " + o.timeline());
            }
            int exit = job.waitFor(Duration.ofSeconds(30));
            assertNotEquals(0, exit, "mpirun reports the aborted job");
            assertTrue(job.processes().stream().noneMatch(p -> p.pid() != job.pid() && p.isAlive()),
                    "mpirun took every rank down");

            // afterwards, from the records alone: rank 2 failed first (SIGKILL: its agent recorded no
            // exit), mpirun ended the others (SIGTERM: their agents' exit hook recorded when)
            JobDirectory.JobEntry entry = new JobDirectory(jobs).job(JOB);
            JobEnd end = JobEnd.of(entry.records(), LocalProcesses::processRunning);
            assertEquals(JobEnd.State.ABORTED, end.state(), entry.records().toString());
            assertEquals(List.of(2), end.firstFailed(), entry.records().toString());
            assertEquals(List.of(0, 1, 3), end.endedAfter(), entry.records().toString());
            String listed = Cli.run(jobs, 0, "jobs");
            System.out.println("mpilens jobs after the abort:\n" + listed);
            assertTrue(listed.contains("aborted: rank 2 died first (killed or crashed: no exit recorded); the launcher then"
                    + " ended ranks 0 1 3"), listed);
        }
    }
}
