package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.testing.TargetJvm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mpilens share} as a user meets it: bad input names the cause and exits 2; a job's rank
 * JVM (here a plain JVM with a record written as its agent would) is shared, its port written
 * beside the record so {@code --job} readers attach there, and the share ends with the JVM.
 */
class ShareCommandTest {
    @TempDir
    Path tmp;
    private TargetJvm target;

    @AfterEach
    void stop() {
        if (target != null) target.close();
    }

    private record Result(int code, String out, String err) {
    }

    private Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("MPILENS_JOBS", tmp.resolve("jobs").toString()));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anUnknownJobExits2AndSaysHowToListJobs() {
        Result r = run("share", "--job", "nosuch");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("mpilens: no job 'nosuch'"), r.err());
    }

    @Test
    void aBasePortOutOfRangeIsAUsageError() {
        Result r = run("share", "--job", "j", "--base-port", "70000");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--base-port must be between 1 and 65535"), r.err());
    }

    @Test
    void aRankJvmIsSharedItsPortWrittenBesideItsRecordAndTheShareEndsWithIt() throws Exception {
        target = TargetJvm.launch(io.mpilens.headless.share.ShareTarget.class);
        Path dir = tmp.resolve("jobs").resolve("j1");
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setPosixFilePermissions(tmp.resolve("jobs"), PosixFilePermissions.fromString("rwx------"));
        long start = ProcessHandle.of(target.pid()).orElseThrow().info().startInstant().orElseThrow().toEpochMilli();
        Path record = dir.resolve("rank-0.json");
        Files.writeString(record, "{\"schema\":\"mpilens-job-record/1\",\"job\":\"j1\",\"rank\":0,\"size\":1,\"pid\":" + target.pid()
                + ",\"parentPid\":1,\"host\":\"" + io.mpilens.api.job.HostName.local() + "\",\"jdwp\":\"" + target.address()
                + "\",\"binding\":\"openmpi\",\"epoch\":0,\"startTime\":" + start + ",\"updated\":" + start
                + ",\"mpiState\":\"INITIALIZED\",\"agentVersion\":\"test\"}\n");
        Files.setPosixFilePermissions(record, PosixFilePermissions.fromString("rw-------"));

        CompletableFuture<Result> share = CompletableFuture.supplyAsync(() -> run("share", "--job", "j1", "--json"));
        JobRecord r = new JobDirectory(tmp.resolve("jobs")).job("j1").records().get(0);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (r.share() == null && !share.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            r = new JobDirectory(tmp.resolve("jobs")).job("j1").records().get(0);
        }
        assertNotNull(r.share(), "the share's port beside the record" + (share.isDone() ? ": " + share.join() : ""));
        assertEquals(target.address(), r.jvmAddress().toString());
        try (JdiTargetReader reader = JdiTargetReader.attach(r.jdwpAddress(), Duration.ofSeconds(20))) {
            assertTrue(reader.virtualMachine().allThreads().size() > 1, "a debugger attached through the share");
        }
        target.kill();
        Result done = share.get(60, TimeUnit.SECONDS);
        assertEquals(0, done.code(), done.err());
        assertTrue(done.out().contains("\"port\":\"" + r.share() + "\""), done.out());
        assertTrue(done.err().contains("job j1 ended"), done.err());
        assertTrue(Files.notExists(dir.resolve(io.mpilens.headless.job.ShareRecords.fileName(io.mpilens.api.job.HostName.local()))));
    }
}
