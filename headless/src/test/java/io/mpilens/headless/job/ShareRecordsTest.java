package io.mpilens.headless.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A share's ports beside a job's records: a rank is read through the share's port while the
 * share that wrote it runs and still holds the JVM listener the record names; otherwise at the
 * JVM's own listener, as before.
 */
class ShareRecordsTest {
    private static final String SHARE = "{\"schema\":\"mpilens-share/1\",\"sharePid\":%d,\"shareStart\":%d,\"host\":\"node\\\"1\","
            + "\"rank\":0,\"pid\":1000,\"jvm\":\"%s\",\"port\":\"127.0.0.1:5000\"}\n";

    @TempDir
    Path tmp;

    private Path job() throws IOException {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Path d = Files.createDirectory(tmp.resolve("j1"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path r = d.resolve("rank-0.json");
        Files.writeString(r, String.format(JobDirectoryTest.RECORD, 0, 1000));
        Files.setPosixFilePermissions(r, PosixFilePermissions.fromString("rw-------"));
        return d;
    }

    private static void share(Path dir, long pid, long start, String jvm, String mode) throws IOException {
        Path f = dir.resolve(ShareRecords.fileName("node\"1"));
        Files.writeString(f, String.format(SHARE, pid, start, jvm));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
    }

    private JobRecord rank0() throws IOException {
        return new JobDirectory(tmp).job("j1").records().get(0);
    }

    @Test
    void aRunningShareOfTheJvmIsWhereTheRankIsRead() throws IOException {
        share(job(), ProcessHandle.current().pid(), ShareRecords.thisProcessStart(), "127.0.0.1:4000", "rw-------");
        JobRecord r = rank0();
        assertEquals("127.0.0.1:5000", r.jdwpAddress().toString());
        assertEquals("127.0.0.1:4000", r.jvmAddress().toString(), "the JVM's own listener, which the share holds");
        assertEquals("127.0.0.1:4000", r.jdwp(), "the record as its agent wrote it");
    }

    @Test
    void aShareThatNoLongerRunsIsIgnored() throws IOException {
        share(job(), ProcessHandle.current().pid(), ShareRecords.thisProcessStart() - 60_000, "127.0.0.1:4000", "rw-------");
        assertNull(rank0().share(), "same pid, another start: a reused pid is not the share");
        assertEquals("127.0.0.1:4000", rank0().jdwpAddress().toString());
    }

    @Test
    void aShareOfAnotherListenerIsIgnored() throws IOException {
        share(job(), ProcessHandle.current().pid(), ShareRecords.thisProcessStart(), "127.0.0.1:4999", "rw-------");
        assertEquals("127.0.0.1:4000", rank0().jdwpAddress().toString());
    }

    @Test
    void aShareFileOthersCanWriteIsNotBelieved() throws IOException {
        share(job(), ProcessHandle.current().pid(), ShareRecords.thisProcessStart(), "127.0.0.1:4000", "rw-rw-rw-");
        assertEquals("127.0.0.1:4000", rank0().jdwpAddress().toString());
    }

    @Test
    void pruneRemovesTheFileOfAShareThatWasKilledWithItsEndedJob() throws IOException {
        Path d = job();
        share(d, ProcessHandle.current().pid(), ShareRecords.thisProcessStart() - 60_000, "127.0.0.1:4000", "rw-------");
        var pruned = new JobDirectory(tmp).prune(r -> true);
        assertEquals(java.util.List.of(new JobDirectory.Pruned("j1", 1, true, null)), pruned);
        assertEquals(false, Files.exists(d));
    }

    @Test
    void pruneLeavesARunningSharesFile() throws IOException {
        Path d = job();
        share(d, ProcessHandle.current().pid(), ShareRecords.thisProcessStart(), "127.0.0.1:4000", "rw-------");
        new JobDirectory(tmp).prune(r -> true);
        assertEquals(true, Files.exists(d.resolve(ShareRecords.fileName("node\"1"))));
    }

    private static void shareWithTicks(Path dir, long start, long ticks) throws IOException {
        Path f = dir.resolve(ShareRecords.fileName("node\"1"));
        Files.writeString(f, String.format(SHARE, ProcessHandle.current().pid(), start, "127.0.0.1:4000")
                .replace("\"host\"", "\"shareTicks\":" + ticks + ",\"host\""));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void aShareIsKnownByItsStartInClockTicksAfterTheWallClockWasStepped() throws IOException {
        long ticks = ProcessStart.ticksOfThisProcess();
        org.junit.jupiter.api.Assumptions.assumeTrue(ticks >= 0, "no /proc/<pid>/stat on this system");
        Path d = job();
        shareWithTicks(d, ShareRecords.thisProcessStart() - 60_000, ticks);
        assertEquals("127.0.0.1:5000", rank0().jdwpAddress().toString(), "same ticks: the share, whatever the wall clock says");
        shareWithTicks(d, ShareRecords.thisProcessStart(), ticks + 1);
        assertNull(rank0().share(), "other ticks: a later process with the share's pid");
    }
}
