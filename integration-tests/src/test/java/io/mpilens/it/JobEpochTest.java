package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.observe.JobObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rank that registers again from a new process (the same job id started again after its
 * processes ended) is epoch 1, in its record and in the job model.
 */
class JobEpochTest {
    private static final String JOB = "it-epoch";

    @TempDir
    Path tmp;

    private List<JobRecord> runOnce(Path jobs, String round) throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control-" + round));
        try (Job job = Job.launch(Tours.tour(Binding.OPENMPI, control)
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).build())) {
            Tours.awaitPause(job, "created");
            List<JobRecord> records = new JobDirectory(jobs).job(JOB).records();
            if (round.equals("second")) {
                JobModel m = JobObserver.forJob(new JobDirectory(jobs), JOB, Duration.ofSeconds(5)).observe();
                for (int r = 0; r < 4; r++) assertEquals(1, m.rank(r).orElseThrow().epoch(), "rank " + r + " in the model");
            }
            return records;
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aRankRegisteringAgainFromANewProcessIsEpochOne() throws Exception {
        Path jobs = tmp.resolve("jobs");
        List<JobRecord> first = runOnce(jobs, "first");
        List<JobRecord> second = runOnce(jobs, "second");
        assertEquals(4, second.size());
        for (int r = 0; r < 4; r++) {
            assertEquals(0, first.get(r).epoch(), "first incarnation");
            assertEquals(1, second.get(r).epoch(), "rank " + r + " registered again");
            assertNotEquals(first.get(r).pid(), second.get(r).pid(), "a new process");
        }
    }
}
