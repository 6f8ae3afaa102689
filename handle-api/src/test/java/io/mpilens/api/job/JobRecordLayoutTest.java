package io.mpilens.api.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Paths;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobRecordLayoutTest {
    @Test
    void recordFilesNameTheirRankAndNothingElseIsOne() {
        assertEquals("rank-12.json", JobRecordLayout.recordFileName(12));
        assertEquals(12, JobRecordLayout.rankOfRecordFile(JobRecordLayout.recordFileName(12)));
        assertEquals(0, JobRecordLayout.rankOfRecordFile("rank-0.json"));
        for (String bad : new String[] {"rank-.json", "rank-1x.json", "rank-1.json.tmp", ".rank-1.json.123.tmp", "rank--1.json",
            "rank-12345678901.json", "ranks-1.json"}) {
            assertEquals(-1, JobRecordLayout.rankOfRecordFile(bad), bad);
        }
    }

    @Test
    void spawnedProcessesHaveTheirOwnRecordFiles() {
        String name = JobRecordLayout.spawnedRecordFileName("743178242", 0);
        assertTrue(JobRecordLayout.isRecordFile(name), name);
        assertTrue(JobRecordLayout.isRecordFile("rank-3.json"));
        assertEquals(-1, JobRecordLayout.rankOfRecordFile(name), "not a rank of the job's own COMM_WORLD");
        for (String bad : new String[] {"spawned-.json", "spawned-7-x.json", "spawned-7-1.json.tmp", "other-7-1.json", "spawned--1.json"}) {
            assertFalse(JobRecordLayout.isRecordFile(bad), bad);
        }
    }

    @Test
    void theParentsNamespaceComesFromOpenMpisParentPort() {
        // the value a child spawned by rank 0 of job 743178241 saw here (Open MPI 4.1)
        assertEquals("743178241", JobRecordLayout.parentNamespace("743178241.0:1791198834"));
        assertEquals("prterun-vm-123@1", JobRecordLayout.parentNamespace("prterun-vm-123@1.2:55"));
        assertEquals(null, JobRecordLayout.parentNamespace(""));
        assertEquals(null, JobRecordLayout.parentNamespace("noport"));
    }

    @Test
    void rootByPropertyThenEnvironmentThenRuntimeDirectory() {
        assertEquals(Paths.get("/run/user/1000/mpilens-1000/jobs"),
                JobRecordLayout.root(Map.of("XDG_RUNTIME_DIR", "/run/user/1000"), null, "1000"));
        assertEquals(Paths.get("/tmp/mpilens-1000/jobs"), JobRecordLayout.root(Map.of(), " ", "1000"));
        assertEquals(Paths.get("/x"), JobRecordLayout.root(Map.of("MPILENS_JOBS", "/x"), null, "1000"));
        assertEquals(Paths.get("/y"), JobRecordLayout.root(Map.of("MPILENS_JOBS", "/x"), "/y", "1000"));
        assertTrue(JobRecordLayout.isDefaultRoot(Map.of(), null));
        assertFalse(JobRecordLayout.isDefaultRoot(Map.of("MPILENS_JOBS", "/x"), null));
    }
}
