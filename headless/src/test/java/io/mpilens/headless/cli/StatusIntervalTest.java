package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status --interval}: two looks at a live job (growth needs two), a usage error (64) where
 * there cannot be two — heap dumps — or the interval is out of range. The growth itself is
 * {@code StatusWordTest}'s and, on a real job, {@code JobStatusTest}'s.
 */
class StatusIntervalTest {
    @TempDir
    Path tmp;

    private String[] outErr = new String[2];

    private int run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("MPILENS_JOBS", tmp.toString(), "NO_COLOR", "1"));
        outErr = new String[] {out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
        return code;
    }

    @Test
    void anIntervalOutOfRangeIsAUsageErrorOutsideTheWord() {
        assertEquals(StatusCommand.EXIT_NO_WORD_USAGE, run("status", "--job", "x", "--interval", "0"), outErr[1]);
        assertTrue(outErr[1].contains("--interval must be between 0 and 3600 seconds, not 0.0"), outErr[1]);
        assertEquals(StatusCommand.EXIT_NO_WORD_USAGE, run("status", "--job", "x", "--interval", "3601"), outErr[1]);
    }

    @Test
    void heapDumpsAreOneLookSoAnIntervalWithThemIsAUsageError() throws Exception {
        Path dump = Files.writeString(tmp.resolve("rank0.hprof"), "not read");
        assertEquals(StatusCommand.EXIT_NO_WORD_USAGE, run("status", "--interval", "2", dump.toString()), outErr[1]);
        assertTrue(outErr[1].contains("--interval needs a running job (--job or --attach): heap dumps are one look,"
                + " growth needs two"), outErr[1]);
    }

    @Test
    void twoLooksOfAJobWhoseRankEndedBeforeFinalizeStillSayItsError() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        Instant start = ended.info().startInstant().orElse(Instant.now());
        ended.waitFor();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Path dir = Files.createDirectory(tmp.resolve("ended-job"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path f = dir.resolve("rank-0.json");
        Files.writeString(f, "{\"schema\":\"mpilens-job-record/1\",\"job\":\"ended-job\",\"rank\":0,\"size\":1,\"pid\":"
                + ended.pid() + ",\"parentPid\":0,\"host\":\"" + InetAddress.getLocalHost().getHostName() + "\",\"jdwp\":null,"
                + "\"binding\":\"openmpi\",\"epoch\":0,\"startTime\":" + start.toEpochMilli() + ",\"updated\":0,"
                + "\"mpiState\":\"INITIALIZED\",\"agentVersion\":\"x\"}");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        long t0 = System.nanoTime();
        int code = run("status", "--job", "ended-job", "--hosts", "none", "--interval", "0.5");
        assertEquals(4, code, outErr[0] + outErr[1]);
        assertTrue(System.nanoTime() - t0 >= 500_000_000L, "the second look waited the interval");
        assertTrue(outErr[0].contains("status  ER_PR0 (4): rank 0 FAILED"), outErr[0]);
    }
}
