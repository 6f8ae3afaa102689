package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.observe.JobObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Job records written by the agents of a real 4-rank Open MPI job, and the job model built
 * from them while ranks are killed or stopped ({@code orte_abort_on_non_zero_status 0}, so the
 * survivors keep running).
 */
class JobDiscoveryTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final String JOB = "it-job";

    @TempDir
    Path tmp;

    private Job launch(Path jobs) throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Job job = Job.launch(Tours.tour(Binding.OPENMPI, control).mpirunArgs("--mca orte_abort_on_non_zero_status 0")
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).build());
        Tours.awaitPause(job, "created");
        return job;
    }

    private static List<JobRecord> records(Path jobs) throws Exception {
        return new JobDirectory(jobs).job(JOB).records();
    }

    private static RankStatus rank(JobModel m, int r) {
        return m.rank(r).orElseThrow(() -> new AssertionError("no rank " + r + " in " + m.processes()));
    }

    /** Observes until {@code rank} is in {@code state}, for at most 20 s; returns that model. */
    private static JobModel awaitState(JobObserver o, int rank, ProcessState state) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JobModel m = o.observe();
        while (rank(m, rank).state() != state && System.nanoTime() < deadline) {
            Thread.sleep(200);
            m = o.observe();
        }
        assertEquals(state, rank(m, rank).state(), "rank " + rank + ": " + rank(m, rank).evidence());
        return m;
    }

    @Test
    void everyRankRegistersItsPidAndJdwpAddressPrivately() throws Exception {
        Path jobs = tmp.resolve("jobs");
        try (Job job = launch(jobs)) {
            Set<String> printed = new HashSet<>(job.awaitJdwpAddresses(Tours.START));
            List<JobRecord> records = records(jobs);
            assertEquals(List.of(0, 1, 2, 3), records.stream().map(JobRecord::rank).collect(Collectors.toList()));
            Set<Long> jobPids = job.processes().stream().map(ProcessHandle::pid).collect(Collectors.toSet());
            for (JobRecord r : records) {
                assertTrue(jobPids.contains(r.pid()), "rank " + r.rank() + " pid " + r.pid() + " is one of the job's");
                assertTrue(printed.contains(r.jdwp()), r.jdwp() + " is a printed JDWP address " + printed);
                assertEquals(4, r.size());
                assertEquals(0, r.epoch());
                assertEquals("INITIALIZED", r.mpiState());
                assertEquals("openmpi", r.binding());
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(r.file())));
            }
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jobs)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jobs.resolve(JOB))));
        }
    }

    @Test
    void theRecordFollowsTheJdwpListenerAfterADebuggerDetached() throws Exception {
        Path jobs = tmp.resolve("jobs");
        try (Job job = launch(jobs)) {
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), JOB, TIMEOUT);
            String before = records(jobs).get(0).jdwp();
            JobModel first = o.observe(); // attaches and detaches: every JVM re-listens on a new port
            for (int r = 0; r < 4; r++) assertEquals(ProcessState.OK, rank(first, r).state());
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (records(jobs).get(0).jdwp().equals(before) && System.nanoTime() < deadline) Thread.sleep(100);
            assertTrue(!records(jobs).get(0).jdwp().equals(before), "rank 0's record names its new port");
            JobModel second = o.observe();
            for (int r = 0; r < 4; r++) assertEquals(ProcessState.OK, rank(second, r).state(), rank(second, r).evidence());
        }
    }

    /**
     * {@code handles --job} right after another debugger detached from every rank: the JVMs move
     * to new ports, so the addresses the records name when the command starts may be refused
     * (then the command waits for the agents to update the records and reads those ranks again,
     * MovedListeners.moved) or already new. Either way all four ranks are printed.
     */
    @Test
    void handlesByJobReadsEveryRankRightAfterAnotherDebuggerDetached() throws Exception {
        Path jobs = tmp.resolve("jobs");
        try (Job job = launch(jobs)) {
            JobObserver.forJob(new JobDirectory(jobs), JOB, TIMEOUT).observe(); // attaches and detaches
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int exit = io.mpilens.headless.cli.MpiLensCli.run(new String[] {"handles", "--job", JOB, "--json", "--timeout", "60"},
                    new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
                    new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8),
                    Map.of("MPILENS_JOBS", jobs.toString(), "NO_COLOR", "1"));
            String json = out.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, exit, "exit code; stderr: " + err.toString(java.nio.charset.StandardCharsets.UTF_8));
            for (int r = 0; r < 4; r++) assertTrue(json.contains("\"rank\":" + r + ","), "rank " + r + " printed: " + json);
        }
    }

    @Test
    void aKilledRankIsFailedAndWorldDetected() throws Exception {
        Path jobs = tmp.resolve("jobs");
        try (Job job = launch(jobs)) {
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), JOB, TIMEOUT);
            assertEquals(CommState.OK, o.observe().communicator("MPI_COMM_WORLD").orElseThrow().state());
            long pid = records(jobs).get(2).pid();
            new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
            JobModel m = awaitState(o, 2, ProcessState.FAILED);
            assertEquals(CommState.DETECTED, m.communicator("MPI_COMM_WORLD").orElseThrow().state());
            assertEquals(List.of(2), m.communicator("MPI_COMM_WORLD").orElseThrow().failed());
            for (int r : new int[] {0, 1, 3}) assertEquals(ProcessState.OK, rank(m, r).state(), "survivor " + r);
            assertTrue(o.timeline().stream().anyMatch(t -> t.subject().equals("rank 2") && "FAILED".equals(t.to())));
        }
    }

    @Test
    void aStoppedRankIsUnavailableNotFailedAndComesBack() throws Exception {
        Path jobs = tmp.resolve("jobs");
        try (Job job = launch(jobs)) {
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), JOB, TIMEOUT);
            o.observe();
            long pid = records(jobs).get(1).pid();
            new ProcessBuilder("kill", "-STOP", Long.toString(pid)).inheritIO().start().waitFor();
            try {
                JobModel m = awaitState(o, 1, ProcessState.UNAVAILABLE);
                assertTrue(rank(m, 1).evidence().contains("stopped"), rank(m, 1).evidence());
                assertEquals(CommState.OK, m.communicator("MPI_COMM_WORLD").orElseThrow().state());
                assertEquals(List.of(1), m.communicator("MPI_COMM_WORLD").orElseThrow().unavailable());
            } finally {
                new ProcessBuilder("kill", "-CONT", Long.toString(pid)).inheritIO().start().waitFor();
            }
            awaitState(o, 1, ProcessState.OK);
            assertTrue(o.timeline().stream().noneMatch(t -> "FAILED".equals(t.to())), o.timeline().toString());
        }
    }

    @Test
    void aRecordOfAnotherUserIsRefused() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "chown needs root");
        Path jobs = Files.createDirectories(tmp.resolve("jobs"));
        Files.setPosixFilePermissions(jobs, PosixFilePermissions.fromString("rwx------"));
        Path dir = Files.createDirectories(jobs.resolve(JOB));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Path f = dir.resolve("rank-0.json");
        Files.writeString(f, "{\"schema\":\"mpilens-job-record/1\",\"job\":\"it-job\",\"rank\":0,\"size\":1,\"pid\":1,"
                + "\"parentPid\":0,\"host\":\"h\",\"jdwp\":\"127.0.0.1:1\",\"binding\":\"openmpi\",\"epoch\":0,"
                + "\"startTime\":0,\"updated\":0,\"mpiState\":\"INITIALIZED\",\"agentVersion\":\"x\"}");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertEquals(0, new ProcessBuilder("chown", "nobody", f.toString()).inheritIO().start().waitFor());
        JobDirectory.JobEntry j = new JobDirectory(jobs).job(JOB);
        assertTrue(j.records().isEmpty(), "nothing is believed");
        assertTrue(j.refused().get(0).contains("belongs to nobody") && j.refused().get(0).contains("not to you"),
                j.refused().toString());
    }
}
