package io.mpilens.agent.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Paths;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobRecordsTest {
    @Test
    void ourLauncherNamesTheJobBeforeOpenMpiDoes() {
        Map<String, String> env = Map.of("MPILENS_JOB", "run-42", "PMIX_NAMESPACE", "2963406849");
        assertEquals("run-42", JobRecords.jobId(env, null, 7));
        assertEquals("prop", JobRecords.jobId(env, "prop", 7));
    }

    @Test
    void openMpiJobsAreNamedByTheirPmixNamespaceThenTheirJobId() {
        assertEquals("2963406849", JobRecords.jobId(Map.of("PMIX_NAMESPACE", "2963406849",
                "OMPI_MCA_orte_ess_jobid", "11"), null, 7));
        assertEquals("11", JobRecords.jobId(Map.of("OMPI_MCA_orte_ess_jobid", "11"), null, 7));
    }

    @Test
    void aSpawnedProcessJoinsTheJobThatSpawnedIt() {
        // what a JVM spawned by rank 0 of job 743178241 saw here: its own namespace is a new one
        assertEquals("743178241", JobRecords.jobId(Map.of("PMIX_NAMESPACE", "743178242",
                "OMPI_PARENT_PORT", "743178241.0:1791198834"), null, 7));
        assertEquals("run-42", JobRecords.jobId(Map.of("MPILENS_JOB", "run-42",
                "OMPI_PARENT_PORT", "743178241.0:1791198834"), null, 7), "a job id the user chose still wins");
    }

    @Test
    void withoutALauncherTheParentProcessNamesTheJob() {
        assertEquals("ppid-7", JobRecords.jobId(Map.of(), null, 7));
    }

    /** MPJ Express niodev: every rank, on every host, names the starter's host and port; its daemon's pid differs per host. */
    @Test
    void anMpjNiodevRankIsNamedByTheStarterItsDaemonGotTheJobFrom() {
        String rank = String.join("\0", "java", "-javaagent:/a.jar", "-cp", "x", "runtime.daemon.Wrapper",
                "25000@host1;25002@host2", "4", "niodev", "launch.example", "41102", "2", "Main", "arg") + "\0";
        assertEquals("mpj-launch.example-41102", JobRecords.jobId(Map.of(), null, 7, rank));
        assertEquals("mpj-launch.example-41102", JobRecords.mpjStarter(rank));
        assertEquals("ppid-7", JobRecords.jobId(Map.of(), null, 7, "java\0-cp\0x\0Main\0"), "not an MPJ rank");
        assertEquals("ppid-7", JobRecords.jobId(Map.of(), null, 7, "java\0runtime.daemon.Wrapper\0a\0"), "cut short");
        assertEquals("run-42", JobRecords.jobId(Map.of("MPILENS_JOB", "run-42"), null, 7, rank), "a job id the user chose still wins");
    }

    @Test
    void jobIdsCannotLeaveTheJobsDirectory() {
        String id = JobRecords.jobId(Map.of("MPILENS_JOB", "../../etc/passwd"), null, 7);
        assertEquals(-1, id.indexOf('/'));
        assertEquals(false, id.startsWith("."));
    }

    @Test
    void recordsGoUnderTheRuntimeDirectoryElseTmp() {
        assertEquals(Paths.get("/run/user/1000/mpilens-1000/jobs"),
                io.mpilens.api.job.JobRecordLayout.root(Map.of("XDG_RUNTIME_DIR", "/run/user/1000"), null, "1000"));
        assertEquals(Paths.get("/tmp/mpilens-1000/jobs"), io.mpilens.api.job.JobRecordLayout.root(Map.of(), null, "1000"));
        assertEquals(Paths.get("/x"), io.mpilens.api.job.JobRecordLayout.root(Map.of("MPILENS_JOBS", "/x"), null, "1000"));
        assertEquals(Paths.get("/y"), io.mpilens.api.job.JobRecordLayout.root(Map.of("MPILENS_JOBS", "/x"), "/y", "1000"));
    }

    @Test
    void theJdwpListenerPropertyBecomesAnAddress() {
        assertEquals("127.0.0.1:60837", JobRecords.parseListenerAddress("dt_socket:60837"));
        assertEquals("10.0.0.5:8000", JobRecords.parseListenerAddress("dt_socket:10.0.0.5:8000"));
        assertNull(JobRecords.parseListenerAddress(null));
    }

    /** The exit hook's work: every record of this JVM gets its exit time; before that it has none. */
    @Test
    void atExitEveryRecordSaysWhen(@org.junit.jupiter.api.io.TempDir java.nio.file.Path root) throws Exception {
        System.setProperty(io.mpilens.api.job.JobRecordLayout.ROOT_PROPERTY, root.toString());
        System.setProperty(io.mpilens.api.job.JobRecordLayout.JOB_PROPERTY, "unit-exit");
        try {
            JobRecords.initialized(0, 1);
            java.nio.file.Path record = root.resolve("unit-exit").resolve(io.mpilens.api.job.JobRecordLayout.recordFileName(0));
            String before = java.nio.file.Files.readString(record);
            assertEquals(true, before.contains("\"exited\":null"), before);
            long t0 = System.currentTimeMillis();
            JobRecords.exiting();
            String after = java.nio.file.Files.readString(record);
            long exited = JobRecords.numberAfter(after, "\"exited\":");
            assertEquals(true, exited >= t0 && exited <= System.currentTimeMillis(), after);
            assertNull(JobRecords.lastError());
        } finally {
            System.clearProperty(io.mpilens.api.job.JobRecordLayout.ROOT_PROPERTY);
            System.clearProperty(io.mpilens.api.job.JobRecordLayout.JOB_PROPERTY);
        }
    }
}
