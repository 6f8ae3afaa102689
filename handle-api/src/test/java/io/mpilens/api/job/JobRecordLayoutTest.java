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
