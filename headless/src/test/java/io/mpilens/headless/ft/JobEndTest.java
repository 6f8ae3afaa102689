package io.mpilens.headless.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.job.JobRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The end of a job from synthetic records; OpenMpiAbortTest checks a real mpirun abort. */
class JobEndTest {
    private static final Instant T0 = Instant.parse("2026-11-25T12:00:00Z");

    private static JobRecord rank(int r, String state, Instant exited) {
        return new JobRecord("j", r, 4, 100 + r, 99, "node1", null, "openmpi", 0, T0, T0, state, "0.1.0",
                Path.of("rank-" + r + ".json"), exited);
    }

    @Test
    void aKilledRankThenTheRestEndedByTheLauncherIsAnAbortWhoseFirstFailureIsTheKilledRank() {
        Instant ended = T0.plusMillis(61_009);
        List<JobRecord> rs = List.of(rank(0, "INITIALIZED", ended), rank(1, "INITIALIZED", ended.minusMillis(3)),
                rank(2, "INITIALIZED", null), rank(3, "INITIALIZED", ended));
        JobEnd e = JobEnd.of(rs, r -> false);
        assertEquals(JobEnd.State.ABORTED, e.state());
        assertEquals(List.of(2), e.firstFailed());
        assertNull(e.firstAt());
        assertEquals(List.of(0, 1, 3), e.endedAfter());
        assertEquals("aborted: rank 2 died first (killed or crashed: no exit recorded); the launcher then ended ranks 0 1 3"
                + " (by 12:01:01.009)", e.summary(ZoneOffset.UTC));
    }

    @Test
    void aRankThatExitedWithoutFinalizeIsFirstByItsExitTime() {
        List<JobRecord> rs = List.of(rank(0, "INITIALIZED", T0.plusMillis(1_200)), rank(1, "INITIALIZED", T0),
                rank(2, "FINALIZED", T0.plusMillis(5)));
        JobEnd e = JobEnd.of(rs, r -> false);
        assertEquals(List.of(1), e.firstFailed());
        assertEquals(T0, e.firstAt());
        assertEquals(List.of(0), e.endedAfter(), "a rank that finalized was not ended by the abort");
        assertTrue(e.summary(ZoneOffset.UTC).endsWith("the launcher then ended rank 0 1200 ms later"), e.summary(ZoneOffset.UTC));
    }

    @Test
    void runningFinishedAndNotKnown() {
        List<JobRecord> rs = List.of(rank(0, "FINALIZED", T0), rank(1, "FINALIZED", T0));
        assertEquals(JobEnd.State.FINISHED, JobEnd.of(rs, r -> false).state());
        assertEquals(JobEnd.State.RUNNING, JobEnd.of(rs, r -> r.rank() == 1).state());
        assertEquals(JobEnd.State.RUNNING, JobEnd.of(rs, r -> null).state(), "a rank on another host: not known to have ended");
        JobEnd old = JobEnd.of(List.of(rank(0, "INITIALIZED", null), rank(1, "INITIALIZED", null)), r -> false);
        assertTrue(old.ambiguous(), "no exit times: which failed first is not known");
        assertEquals(Set.of(0, 1), Set.copyOf(old.firstFailed()));
    }
}
