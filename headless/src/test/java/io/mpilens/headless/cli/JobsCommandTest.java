package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mpilens jobs}: refused records named with the reason, and {@code --prune} of ended jobs only. */
class JobsCommandTest {
    @TempDir
    Path tmp;

    private record Run(int code, List<String> out, List<String> err) {
    }

    private Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("MPILENS_JOBS", tmp.toString()));
        return new Run(code, out.toString(StandardCharsets.UTF_8).lines().toList(), err.toString(StandardCharsets.UTF_8).lines().toList());
    }

    private Path record(String job, long pid, Instant start) throws IOException {
        return record(job, pid, start, InetAddress.getLocalHost().getHostName());
    }

    private Path record(String job, long pid, Instant start, String host) throws IOException {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Path dir = tmp.resolve(job);
        if (!Files.exists(dir)) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path f = dir.resolve("rank-0.json");
        Files.writeString(f, "{\"schema\":\"mpilens-job-record/1\",\"job\":\"" + job + "\",\"rank\":0,\"size\":1,\"pid\":" + pid
                + ",\"parentPid\":0,\"host\":\"" + host + "\",\"jdwp\":null,"
                + "\"binding\":\"openmpi\",\"epoch\":0,\"startTime\":" + start.toEpochMilli() + ",\"updated\":0,"
                + "\"mpiState\":\"INITIALIZED\",\"agentVersion\":\"x\"}");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    @Test
    void aliveIsTrueFalseOrUnknownForARankOnAnotherHost() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        Instant endedStart = ended.info().startInstant().orElse(Instant.now());
        ended.waitFor();
        record("ended-job", ended.pid(), endedStart);
        ProcessHandle me = ProcessHandle.current();
        record("live-job", me.pid(), me.info().startInstant().orElseThrow());
        // this test JVM's own pid, but on another host: this machine cannot tell whether it runs
        record("remote-job", me.pid(), me.info().startInstant().orElseThrow(), "node-elsewhere-17");

        Run json = run("jobs", "--json");
        assertEquals(0, json.code(), json.err().toString());
        String all = String.join("\n", json.out());
        assertEquals("false", aliveOf(all, "ended-job"), all);
        assertEquals("true", aliveOf(all, "live-job"), all);
        assertEquals("null", aliveOf(all, "remote-job"), all);

        Run text = run("jobs");
        // STATUS from the records alone: gone before MPI_Finalize an error (rank 0), another host's undefined
        assertTrue(text.out().stream().anyMatch(l -> l.matches("remote-job\\s+1/1\\s+0\\?\\s+UN_OTH\\s.*")), text.out().toString());
        assertTrue(text.out().stream().anyMatch(l -> l.matches("live-job\\s+1/1\\s+1\\s+OK\\s.*")), text.out().toString());
        assertTrue(text.out().stream().anyMatch(l -> l.matches("ended-job\\s+1/1\\s+0\\s+ER_PR0\\s.*")), text.out().toString());
        assertTrue(all.contains("\"status\":{\"word\":4,\"name\":\"ER_PR0\",\"reasons\":[{\"kind\":\"ERROR\",\"bit\":4,"
                + "\"rank\":0,\"epoch\":0,\"what\":\"FAILED\""), all);
    }

    /**
     * {@code status}: the word of what the records and processes show as its exit code — a rank gone
     * before MPI_Finalize an error on rank 0, one alive without a JDWP address an alarm, one on another
     * host undefined — and 64 or more when there is no word at all.
     */
    @Test
    void statusExitsWithTheWordAndFailuresToReadWithSixtyFourOrMore() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        Instant endedStart = ended.info().startInstant().orElse(Instant.now());
        ended.waitFor();
        record("ended-job", ended.pid(), endedStart);
        ProcessHandle me = ProcessHandle.current();
        record("live-job", me.pid(), me.info().startInstant().orElseThrow());
        record("remote-job", me.pid(), me.info().startInstant().orElseThrow(), "node-elsewhere-17");

        Run failed = run("status", "--job", "ended-job", "--hosts", "none", "--timeout", "1");
        assertEquals(4, failed.code(), failed.err().toString());
        assertEquals("status  ER_PR0 (4): rank 0 FAILED", failed.out().get(1), failed.out().toString());
        assertEquals("  ER_PR0  rank 0 FAILED", failed.out().get(2), failed.out().toString());
        assertEquals("          process gone before MPI_Finalize", failed.out().get(3), failed.out().toString());
        Run late = run("status", "--job", "live-job", "--hosts", "none", "--timeout", "1");
        assertEquals(1, late.code(), late.out() + " " + late.err());
        assertEquals("status  AL_PR0 (1): rank 0 UNAVAILABLE (alive)", late.out().get(1), late.out().toString());
        Run elsewhere = run("status", "--job", "remote-job", "--hosts", "none", "--timeout", "1");
        assertEquals(16, elsewhere.code(), elsewhere.out() + " " + elsewhere.err());
        Run json = run("status", "--job", "ended-job", "--hosts", "none", "--json");
        assertEquals(4, json.code(), json.err().toString());
        assertTrue(json.out().get(0).contains("\"schema\":\"mpilens-ft/1\",\"job\":\"ended-job\""), json.out().toString());

        Run noJob = run("status", "--job", "nosuch", "--hosts", "none");
        assertEquals(66, noJob.code(), noJob.err().toString());
        assertTrue(noJob.err().get(0).startsWith("mpilens: no job 'nosuch' in " + tmp), noJob.err().toString());
        assertEquals(64, run("status", "--job", "x", "--bogus").code());
        assertEquals(64, run("status").code());
        assertEquals(64, run("status", "--job", "x", "--timeout", "-1").code());
        assertEquals(66, run("status", tmp.resolve("missing.hprof").toString()).code());
        Path notADump = Files.writeString(tmp.resolve("not-a-dump.hprof"), "hello");
        Run bad = run("status", notADump.toString());
        assertEquals(66, bad.code(), bad.err().toString());
        // the other commands keep their codes
        assertEquals(MpiLensCli.EXIT_USAGE, run("cominfo", "--job", "x", "--bogus").code());
    }

    /** The {@code alive} value of the one rank of that job in {@code jobs --json}. */
    private static String aliveOf(String json, String job) {
        int from = json.indexOf("{\"id\":\"" + job + "\"");
        assertTrue(from >= 0, job + " in " + json);
        String entry = json.substring(from, json.indexOf("\"refused\"", from));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"alive\":(true|false|null)").matcher(entry);
        assertTrue(m.find(), entry);
        return m.group(1);
    }

    /**
     * A rank whose JVM a running share holds: {@code jdwp} is the JVM's own listener (its record),
     * {@code share} the port to attach to; a rank with no share has {@code "share":null}.
     */
    @Test
    void jsonNamesTheSharesPortBesideTheJvmsOwnListener() throws Exception {
        ProcessHandle me = ProcessHandle.current();
        String host = InetAddress.getLocalHost().getHostName();
        Path shared = record("shared-job", me.pid(), me.info().startInstant().orElseThrow());
        Files.writeString(shared, Files.readString(shared).replace("\"jdwp\":null", "\"jdwp\":\"127.0.0.1:5005\""));
        record("plain-job", me.pid(), me.info().startInstant().orElseThrow());
        // the share file as a running share (this JVM stands in for it: its pid and start) writes it
        Path file = tmp.resolve("shared-job").resolve(io.mpilens.headless.job.ShareRecords.fileName(host));
        Files.writeString(file, "{\"schema\":\"" + io.mpilens.headless.job.ShareRecords.SCHEMA + "\",\"sharePid\":" + me.pid()
                + ",\"shareStart\":" + io.mpilens.headless.job.ShareRecords.thisProcessStart() + ",\"host\":\"" + host
                + "\",\"rank\":0,\"pid\":" + me.pid() + ",\"jvm\":\"127.0.0.1:5005\",\"port\":\"127.0.0.1:6006\"}\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        Run json = run("jobs", "--json");
        assertEquals(0, json.code(), json.err().toString());
        String all = String.join("\n", json.out());
        assertTrue(entry(all, "shared-job").contains("\"jdwp\":\"127.0.0.1:5005\",\"share\":\"127.0.0.1:6006\""), all);
        assertTrue(entry(all, "plain-job").contains("\"jdwp\":null,\"share\":null"), all);
        // the table, too: the port under the job's row, for a debugger to attach to
        Run text = run("jobs");
        assertEquals(0, text.code(), text.err().toString());
        int row = rowOf(text.out(), "shared-job");
        assertEquals("  share: rank 0 127.0.0.1:6006", text.out().get(row + 1), text.out().toString());
        int plain = rowOf(text.out(), "plain-job");
        assertFalse(plain + 1 < text.out().size() && text.out().get(plain + 1).startsWith("  share:"), text.out().toString());

        // the share gone (its file names a process that is not this one): the JVM's own listener only
        Files.writeString(file, Files.readString(file).replace("\"sharePid\":" + me.pid(), "\"sharePid\":" + Long.MAX_VALUE));
        String after = String.join("\n", run("jobs", "--json").out());
        assertTrue(entry(after, "shared-job").contains("\"jdwp\":\"127.0.0.1:5005\",\"share\":null"), after);
        List<String> afterText = run("jobs").out();
        int rowAfter = rowOf(afterText, "shared-job");
        assertFalse(rowAfter + 1 < afterText.size() && afterText.get(rowAfter + 1).startsWith("  share:"), afterText.toString());
    }

    @Test
    void theSharesPortsGroupTheRanksOfOneJvmAndWrapAtEightyColumns() {
        List<io.mpilens.headless.job.JobRecord> mpj = new java.util.ArrayList<>();
        for (int r = 3; r >= 0; r--) mpj.add(shared(r, "127.0.0.1:41000"));
        assertEquals(List.of("  share: ranks 0-3 127.0.0.1:41000"), JobsCommand.shareLines(mpj));

        List<io.mpilens.headless.job.JobRecord> many = new java.util.ArrayList<>();
        for (int r = 0; r < 8; r++) many.add(shared(r, "127.0.0.1:" + (42000 + r)));
        many.add(shared(8, null));
        List<String> lines = JobsCommand.shareLines(many);
        assertEquals("  share: rank 0 127.0.0.1:42000, rank 1 127.0.0.1:42001, rank 2 127.0.0.1:42002,", lines.get(0));
        assertTrue(String.join(" ", lines).endsWith("rank 7 127.0.0.1:42007"), lines.toString());
        assertFalse(String.join(" ", lines).contains("rank 8"), "a rank no share serves: " + lines);
        for (String l : lines) assertTrue(l.length() <= 80, l);
        assertEquals(List.of(), JobsCommand.shareLines(List.of(shared(0, null))));
    }

    private static io.mpilens.headless.job.JobRecord shared(int rank, String share) {
        return new io.mpilens.headless.job.JobRecord("j", rank, 4, 100 + rank, 1, "h", "127.0.0.1:5005", "openmpi", 0, Instant.EPOCH,
                Instant.EPOCH, "INITIALIZED", "x", null, null, null, null, share, -1);
    }

    private static int rowOf(List<String> lines, String job) {
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith(job + " ")) return i;
        throw new AssertionError(job + " in " + lines);
    }

    private static String entry(String json, String job) {
        int from = json.indexOf("{\"id\":\"" + job + "\"");
        assertTrue(from >= 0, job + " in " + json);
        return json.substring(from, json.indexOf("\"refused\"", from));
    }

    @Test
    void pruneRemovesAJobWhoseProcessEndedAndKeepsALiveOne() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        Instant endedStart = ended.info().startInstant().orElse(Instant.now());
        ended.waitFor();
        record("ended-job", ended.pid(), endedStart);
        ProcessHandle me = ProcessHandle.current();
        Path live = record("live-job", me.pid(), me.info().startInstant().orElseThrow());

        Run r = run("jobs", "--prune");
        assertEquals(0, r.code(), r.err().toString());
        assertTrue(r.out().contains("pruned job ended-job: 1 record removed"), r.out().toString());
        assertFalse(Files.exists(tmp.resolve("ended-job")));
        assertTrue(Files.exists(live), "a job whose process lives is kept");
        assertTrue(r.out().stream().anyMatch(l -> l.startsWith("live-job ")), r.out().toString());
    }

    @Test
    void aRecordOfAnotherUserIsRefusedWithAClearMessageAndNeverPruned() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "chown needs root");
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        Path foreign = record("foreign-job", ended.pid(), Instant.EPOCH);
        assertEquals(0, new ProcessBuilder("chown", "nobody", foreign.toString()).inheritIO().start().waitFor());

        Run r = run("jobs", "--prune");
        assertEquals(MpiLensCli.EXIT_UNREADABLE, r.code());
        assertTrue(r.err().stream().anyMatch(l -> l.contains("belongs to nobody") && l.contains("not to you")
                && l.contains("refused")), r.err().toString());
        assertTrue(Files.exists(foreign), "another user's record is never deleted");
    }

    @Test
    void aRankWhoseProcessEndedIsNamedAndTheExitCodeIs3() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        Instant endedStart = ended.info().startInstant().orElse(Instant.now());
        ended.waitFor();
        record("ended-job", ended.pid(), endedStart);
        for (String command : List.of("handles", "leaks")) {
            Run r = run(command, "--job", "ended-job", "--timeout", "1");
            assertEquals(MpiLensCli.EXIT_UNREADABLE, r.code(), command + " " + r.err());
            assertEquals(List.of(), r.out(), command + ": nothing was read, so no empty report");
            assertEquals(List.of("mpilens: rank 0 of job ended-job (pid " + ended.pid() + ") has ended: its process is"
                    + " gone; if it left a heap dump, read it with 'mpilens dump FILE'"), r.err(), command);
        }
    }

    @Test
    void anUnknownJobIsAUsageErrorForEveryCommandThatTakesJob() {
        for (String command : List.of("handles", "leaks", "cominfo", "hostinfo", "calls", "watch")) {
            Run r = run(command, "--job", "nosuch", "--timeout", "1");
            assertEquals(MpiLensCli.EXIT_USAGE, r.code(), command + " " + r.err());
            assertEquals(List.of(), r.out(), command);
            assertTrue(r.err().get(0).startsWith("mpilens: no job 'nosuch' in " + tmp), command + " " + r.err());
        }
    }

    @Test
    void theTableFitsEightyColumnsWithManyHosts() throws Exception {
        ProcessHandle me = ProcessHandle.current();
        record("run-20261122-012354-ab31", me.pid(), me.info().startInstant().orElseThrow());
        Run r = run("jobs");
        assertEquals(0, r.code(), r.err().toString());
        assertEquals(2, r.out().size(), r.out().toString());
        for (String l : r.out()) assertTrue(l.length() <= 80, l.length() + ": " + l);
        assertTrue(r.out().get(1).startsWith("run-20261122-012354-ab31 1/1   1     OK     openmpi "), r.out().get(1));

        List<String> hosts = new java.util.ArrayList<>();
        for (int i = 0; i < 64; i++) hosts.add(String.format("node%03d", i));
        String row = JobsCommand.row("run-20261122-012354-ab31", "64/64", "64", "ER_OTH", "openmpi", "2026-11-22T01:24Z", hosts);
        assertEquals("run-20261122-012354-ab31 64/64 64    ER_OTH openmpi 2026-11-22T01:24Z 64 hosts", row);
        assertEquals("12", JobsCommand.statusColumn(new io.mpilens.headless.ft.StatusWord(12, List.of())));
        assertEquals("UN_OTH", JobsCommand.statusColumn(new io.mpilens.headless.ft.StatusWord(16, List.of())));

        Files.delete(tmp.resolve("run-20261122-012354-ab31").resolve("rank-0.json"));
        Files.delete(tmp.resolve("run-20261122-012354-ab31"));
        for (String l : run("jobs").out()) assertTrue(l.length() <= 80, l.length() + ": " + l);
    }
}
