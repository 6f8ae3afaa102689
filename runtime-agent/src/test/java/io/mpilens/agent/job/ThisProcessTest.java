package io.mpilens.agent.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** The /proc reading gives what the JDK's ProcessHandle and file attributes give. */
class ThisProcessTest {
    @Test
    void sameFactsAsTheJdk() throws Exception {
        ProcessHandle self = ProcessHandle.current();
        assertEquals(self.pid(), ThisProcess.pid());
        assertEquals(self.parent().map(ProcessHandle::pid).orElse(0L).longValue(), ThisProcess.parentPid());
        long jdk = self.info().startInstant().orElseThrow().toEpochMilli();
        // both are boot time + start ticks; the JDK rounds the boot time the same way, so they agree to a tick
        assertTrue(Math.abs(jdk - ThisProcess.startMillis()) <= 20,
                "start time " + ThisProcess.startMillis() + " vs the JDK's " + jdk);
        assertEquals(String.valueOf(Files.getAttribute(Paths.get("/proc/self"), "unix:uid")), ThisProcess.uid());
        String stat = Files.readString(Paths.get("/proc/self/stat"));
        String[] afterComm = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        assertEquals(Long.parseLong(afterComm[22 - 3]), ThisProcess.startTicks(), "field 22 of " + stat);
    }

    @Test
    void numbersAfterKeysOfARecord() {
        String record = "{\"schema\":\"x\",\"rank\":3,\"pid\":4711,\"epoch\":12,\"startTime\":1}";
        assertEquals(4711, JobRecords.numberAfter(record, "\"pid\":"));
        assertEquals(12, JobRecords.numberAfter(record, "\"epoch\":"));
        assertEquals(-1, JobRecords.numberAfter(record, "\"missing\":"));
        assertEquals(-1, JobRecords.numberAfter("{\"pid\":null}", "\"pid\":"));
    }

    @Test
    void jobIdsAreSafeFileNames() {
        assertEquals("_hidden_job_1", JobRecords.jobId(java.util.Map.of(), ".hidden/job 1", 7));
        assertEquals("a.b-c_d", JobRecords.jobId(java.util.Map.of(), "a.b-c_d", 7));
    }
}
