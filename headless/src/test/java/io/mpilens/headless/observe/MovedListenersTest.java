package io.mpilens.headless.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.job.HostName;
import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener-moved rule on the job's records: a rank refused at the address its record named
 * is tried where the record names it now; a rank whose process ended settles at once; a rank of
 * a JVM already read (MPJ Express multicore) is not tried again.
 */
class MovedListenersTest {
    private static final JdwpAddress OLD = JdwpAddress.parse("127.0.0.1:3999");
    private static final JdwpAddress NEW = JdwpAddress.parse("127.0.0.1:4000");

    @TempDir
    Path tmp;

    /** A record of rank {@code rank} of job {@code mc} for process {@code pid} (started {@code start}), listening at {@code jdwp}. */
    private void record(int rank, long pid, Instant start, JdwpAddress jdwp) throws IOException {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Path dir = tmp.resolve("mc");
        if (!Files.exists(dir)) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path f = dir.resolve("rank-" + rank + ".json");
        Files.writeString(f, "{\"schema\":\"mpilens-job-record/1\",\"job\":\"mc\",\"rank\":" + rank + ",\"size\":2,\"pid\":" + pid
                + ",\"parentPid\":0,\"host\":\"" + HostName.local() + "\",\"jdwp\":\"" + jdwp + "\","
                + "\"binding\":\"openmpi\",\"epoch\":0,\"startTime\":" + start.toEpochMilli() + ",\"updated\":0,"
                + "\"mpiState\":\"INITIALIZED\",\"agentVersion\":\"x\"}");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void aRankRefusedAtItsOldAddressIsTriedWhereItsRecordNamesItNow() throws Exception {
        ProcessHandle me = ProcessHandle.current();
        record(0, me.pid(), me.info().startInstant().orElseThrow(), NEW);
        Map<Integer, JdwpAddress> moved = MovedListeners.moved(new JobDirectory(tmp), "mc", Map.of(0, OLD), Duration.ofSeconds(20));
        assertEquals(Map.of(0, NEW), moved);
    }

    @Test
    void aRankWhoseProcessEndedSettlesWithoutWaitingForItsRecord() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        Instant start = ended.info().startInstant().orElse(Instant.now());
        ended.waitFor();
        record(1, ended.pid(), start, OLD);
        long t0 = System.nanoTime();
        Map<Integer, JdwpAddress> moved = MovedListeners.moved(new JobDirectory(tmp), "mc", Map.of(1, OLD), Duration.ofSeconds(20));
        assertEquals(Map.of(), moved);
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(Duration.ofSeconds(10)) < 0, "waited for an ended rank");
    }

    @Test
    void aRankHeldByAReadingOfItsJvmIsReadAlready() {
        AgentHealth health = new AgentHealth("t", 0, null, 0, true, 0);
        List<ProcessSnapshot> jvm = List.of(
                new ProcessSnapshot(0, 4, 77, "h", "mpj", MpiState.INITIALIZED, 4, health, List.of(), List.of(), 0),
                new ProcessSnapshot(1, 4, 77, "h", "mpj", MpiState.INITIALIZED, 4, health, List.of(), List.of(), 0));
        assertTrue(MovedListeners.readAlready(1, jvm));
        assertFalse(MovedListeners.readAlready(2, jvm));
        // a snapshot before MPI init (rank -1) holds no rank of the job
        assertFalse(MovedListeners.readAlready(-1, List.of(
                new ProcessSnapshot(-1, -1, 78, "h", "mpj", MpiState.NOT_INITIALIZED, 4, health, List.of(), List.of(), 0))));
    }
}
