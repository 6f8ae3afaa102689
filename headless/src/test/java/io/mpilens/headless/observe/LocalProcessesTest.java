package io.mpilens.headless.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mpilens.api.job.HostName;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.job.ProcessStart;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A record's process on this host: the same one while its start in clock ticks since boot
 * matches, whatever the wall clock did since (a step from NTP or a virtual machine fork moves the
 * wall-clock start the kernel reports for every process, and every live rank looked dead).
 */
class LocalProcessesTest {
    private static final ProcessHandle SELF = ProcessHandle.current();

    private static JobRecord record(Instant start, long ticks) {
        return new JobRecord("j", 0, 1, SELF.pid(), 1, HostName.local(), null, "openmpi", 0, start, start, "INITIALIZED",
                "test", null, null, null, null, ticks);
    }

    private static Instant wallClockStart() {
        return SELF.info().startInstant().orElseThrow();
    }

    @Test
    void theSameTicksAreTheSameProcessAfterTheWallClockWasStepped() {
        long ticks = ProcessStart.ticksOfThisProcess();
        assumeTrue(ticks >= 0, "no /proc/<pid>/stat on this system");
        assertEquals(true, LocalProcesses.processRunning(record(wallClockStart().minus(Duration.ofMinutes(5)), ticks)));
        assertEquals(false, LocalProcesses.processRunning(record(wallClockStart(), ticks + 1)),
                "other ticks: a later process with the pid, though the wall-clock start matches");
    }

    @Test
    void aRecordWithoutTicksIsJudgedByItsWallClockStart() {
        assumeTrue(SELF.info().startInstant().isPresent(), "the JDK does not know this process's start");
        assertEquals(true, LocalProcesses.processRunning(record(wallClockStart().plusMillis(500), -1)));
        assertEquals(false, LocalProcesses.processRunning(record(wallClockStart().minus(Duration.ofMinutes(1)), -1)));
    }

    @Test
    void aRankOfAnotherHostIsNotKnownHere() {
        JobRecord elsewhere = new JobRecord("j", 0, 1, SELF.pid(), 1, "another-host.invalid", null, "openmpi", 0,
                wallClockStart(), wallClockStart(), "INITIALIZED", "test", null, null, null, null, -1);
        assertEquals(null, LocalProcesses.processRunning(elsewhere));
    }
}
