package io.mpilens.headless.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobDirectoryTest {
    static final String RECORD = "{\"schema\":\"mpilens-job-record/1\",\"job\":\"j1\",\"rank\":%d,\"size\":2,\"pid\":%d,"
            + "\"parentPid\":7,\"host\":\"node\\\"1\",\"jdwp\":\"127.0.0.1:4000\",\"binding\":\"openmpi\",\"epoch\":1,"
            + "\"startTime\":1000,\"updated\":2000,\"mpiState\":\"INITIALIZED\",\"agentVersion\":\"0.1\"}\n";

    @TempDir
    Path tmp;

    private Path job(String id) throws IOException {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Path d = Files.createDirectory(tmp.resolve(id), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        return d;
    }

    private static Path record(Path dir, int rank, String mode) throws IOException {
        Path f = dir.resolve("rank-" + rank + ".json");
        Files.writeString(f, String.format(RECORD, rank, 1000 + rank));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    @Test
    void readsTheRecordsOfAJobInRankOrder() throws IOException {
        Path d = job("j1");
        record(d, 1, "rw-------");
        record(d, 0, "rw-------");
        JobDirectory.JobEntry j = new JobDirectory(tmp).job("j1");
        assertEquals(2, j.records().size());
        JobRecord r0 = j.records().get(0);
        assertEquals(0, r0.rank());
        assertEquals(1000, r0.pid());
        assertEquals("node\"1", r0.host());
        assertEquals("127.0.0.1:4000", r0.jdwpAddress().toString());
        assertEquals(1, r0.epoch());
        assertTrue(j.refused().isEmpty());
    }

    @Test
    void aRecordOthersCanReadIsRefusedWithTheReason() throws IOException {
        Path d = job("j1");
        record(d, 0, "rw-r--r--");
        JobDirectory.JobEntry j = new JobDirectory(tmp).job("j1");
        assertTrue(j.records().isEmpty());
        assertTrue(j.refused().get(0).contains("accessible to other users"), j.refused().toString());
        assertTrue(j.refused().get(0).contains("chmod 600"), j.refused().toString());
    }

    @Test
    void anUnknownJobNamesTheKnownOnes() throws IOException {
        record(job("j1"), 0, "rw-------");
        IOException e = assertThrows(IOException.class, () -> new JobDirectory(tmp).job("nope"));
        assertTrue(e.getMessage().contains("known: j1"), e.getMessage());
        assertThrows(IOException.class, () -> new JobDirectory(tmp).job("../etc"));
    }

    @Test
    void pruneRemovesEndedJobsOnlyAndNeverARefusedFile() throws IOException {
        Path ended = job("ended");
        record(ended, 0, "rw-------");
        record(ended, 1, "rw-------");
        Path running = job("running");
        record(running, 0, "rw-------");
        record(running, 1, "rw-------");
        Path mixed = job("mixed");
        record(mixed, 0, "rw-------");
        Path foreign = record(mixed, 1, "rw-r--r--"); // refused: not believed, so not ours to delete
        JobDirectory dir = new JobDirectory(tmp);
        // the test decides which processes ended: every rank except those of "running"
        var pruned = dir.prune(r -> !r.file().getParent().getFileName().toString().equals("running"));
        assertEquals(java.util.Set.of("mixed"), dir.jobs().stream().map(JobDirectory.JobEntry::id)
                .filter(id -> !id.equals("running")).collect(java.util.stream.Collectors.toSet()));
        assertTrue(Files.isDirectory(running) && Files.exists(running.resolve("rank-0.json")), "a live job is kept");
        assertTrue(!Files.exists(ended), "an ended job's directory is removed");
        assertTrue(Files.exists(foreign), "a refused file is never touched");
        assertTrue(!Files.exists(mixed.resolve("rank-0.json")), "the job's own ended record is removed");
        JobDirectory.Pruned m = pruned.stream().filter(p -> p.id().equals("mixed")).findFirst().orElseThrow();
        assertEquals(1, m.recordsRemoved());
        assertTrue(!m.directoryRemoved() && m.keptBecause().contains("other files"), m.toString());
    }

    /** A rank killed between writing its record's temporary file and renaming it leaves only that file. */
    @Test
    void anUnfinishedWriteIsNotAJobAndPruneRemovesItOnceItIsOld() throws IOException {
        Path killed = job("killed");
        Path tmpFile = Files.createFile(killed.resolve(".rank-1-123.tmp"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Path fresh = job("registering");
        Path freshTmp = Files.createFile(fresh.resolve(".rank-0-456.tmp"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        record(job("j1"), 0, "rw-------");
        java.nio.file.attribute.FileTime hourAgo = java.nio.file.attribute.FileTime.from(
                java.time.Instant.now().minus(java.time.Duration.ofHours(1)));
        Files.setLastModifiedTime(tmpFile, hourAgo);
        Files.setLastModifiedTime(killed, hourAgo);
        JobDirectory dir = new JobDirectory(tmp);
        assertEquals(java.util.List.of("j1"), dir.jobs().stream().map(JobDirectory.JobEntry::id).toList(),
                "a directory with no record is not listed as a job");

        var pruned = dir.prune(r -> false, java.time.Instant.now());
        assertTrue(!Files.exists(killed), "the old unfinished write and its directory are removed");
        assertTrue(Files.exists(freshTmp), "a write that may still be under way is left alone");
        JobDirectory.Pruned k = pruned.stream().filter(p -> p.id().equals("killed")).findFirst().orElseThrow();
        assertTrue(k.directoryRemoved(), k.toString());
        JobDirectory.Pruned f = pruned.stream().filter(p -> p.id().equals("registering")).findFirst().orElseThrow();
        assertTrue(!f.directoryRemoved() && f.keptBecause().equals("no records yet"), f.toString());
        assertTrue(Files.exists(tmp.resolve("j1").resolve("rank-0.json")), "a job whose rank may run is kept");
    }

    @Test
    void aRereadSeesTheFinalizeMarkWrittenAfterTheRecordsWereRead() throws IOException {
        Path d = job("j1");
        Path f = record(d, 0, "rw-------");
        JobDirectory dir = new JobDirectory(tmp);
        JobRecord read = dir.job("j1").records().get(0);
        assertEquals(false, read.finalized());
        Files.writeString(f, String.format(RECORD, 0, 1000).replace("\"INITIALIZED\"", "\"FINALIZED\""));
        assertTrue(dir.reread(read).finalized(), "the rank finalized and exited between the read and the process check");

        JobRecord shared = read.sharedAt("127.0.0.1:5000");
        assertEquals("127.0.0.1:5000", dir.reread(shared).jdwpAddress().toString(), "the share's port stays");

        Files.writeString(f, String.format(RECORD, 0, 2000).replace("\"INITIALIZED\"", "\"FINALIZED\""));
        assertEquals(read, dir.reread(read), "another process's record now (a new incarnation): the one read is judged");
        Files.delete(f);
        assertEquals(read, dir.reread(read), "the file is gone: the record read");
    }

    @Test
    void theStartInClockTicksIsReadWhenTheRecordHasIt() throws IOException {
        Path d = job("j1");
        Path f = record(d, 0, "rw-------");
        JobDirectory dir = new JobDirectory(tmp);
        assertEquals(-1, dir.job("j1").records().get(0).startTicks(), "an older agent's record");
        Files.writeString(f, String.format(RECORD, 0, 1000).replace("\"updated\"", "\"startTicks\":12345,\"updated\""));
        assertEquals(12345, dir.job("j1").records().get(0).startTicks());
    }
}
