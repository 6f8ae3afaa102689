package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's status word ({@code mpilens status}, its exit code) on real jobs: one 4-rank Open MPI
 * {@code StatusStory} that goes through OK, a stopped rank (an alarm), a killed rank (an error on
 * another rank) and an MPI error raised on rank 0; {@code run --status-exit} of a job that
 * finalizes cleanly and of one whose rank 0 raised; an MPJ Express multicore job whose rank 2
 * throws (the JVM exits 0, the word says 12); a rank that leaks handles in a loop, an alarm only
 * where two looks are compared ({@code status --interval}, {@code watch}, {@code run --status-exit}).
 */
class JobStatusTest {
    private static final String JOB = "it-status";
    private static final String STORY = "io.mpilens.examples.openmpi.StatusStory";
    private static final String LEAKING = "io.mpilens.examples.openmpi.LeakingRank";

    @TempDir
    Path tmp;

    /** The test's job directory, no colour, this host only (no collector for other sessions' jobs). */
    private static Map<String, String> env(Path jobs) {
        return Map.of("MPILENS_JOBS", jobs.toString(), "NO_COLOR", "1", "MPILENS_HOSTS", "none");
    }

    private static Cli.Result status(Path jobs, String... more) {
        String[] args = new String[more.length + 3];
        args[0] = "status";
        args[1] = "--job";
        args[2] = JOB;
        System.arraycopy(more, 0, args, 3, more.length);
        return Cli.mpilens(env(jobs), args);
    }

    /** {@code status} again until it exits with {@code code} (the ranks' listeners move after each read), at most 30 s. */
    private static Cli.Result awaitStatus(Path jobs, int code) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Cli.Result r = status(jobs);
        while (r.code() != code && System.nanoTime() < deadline) {
            Thread.sleep(300);
            r = status(jobs);
        }
        assertEquals(code, r.code(), r.all());
        return r;
    }

    private static void signal(String sig, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", sig, Long.toString(pid)).inheritIO().start().waitFor());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theWordFollowsAJobThroughAStoppedAKilledRankAndAnMpiErrorOnRankZero() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        try (Job job = Job.launch(Tours.survivingJob("StatusStory", control, jobs).env("MPILENS_JOB", JOB).build())) {
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
            List<Long> pids = new JobDirectory(jobs).job(JOB).records().stream().map(r -> r.pid()).collect(Collectors.toList());

            Cli.Result ok = status(jobs);
            assertEquals(0, ok.code(), ok.all());
            assertTrue(ok.out().lines().anyMatch(l -> l.equals("status  OK (0)")), ok.all());

            // rank 1 stopped: past its deadline, its process there: an alarm on another rank
            signal("-STOP", pids.get(1));
            try {
                Cli.Result stopped = status(jobs);
                assertEquals(2, stopped.code(), stopped.all());
                assertTrue(stopped.out().contains("status  AL_OTH (2): rank 1 UNAVAILABLE (alive)"),
                        stopped.all());
                assertTrue(stopped.out().contains("  AL_OTH  rank 1 UNAVAILABLE (alive)\n"), stopped.all());
                assertTrue(stopped.out().replaceAll("\\s+", " ").contains("is stopped (SIGSTOP?)"),
                        "the evidence under its reason: " + stopped.all());
                // the same with the whole deadline granted, not the others' answer time + 20%
                Cli.Result waited = status(jobs, "--wait-deadline", "--timeout", "1");
                assertEquals(2, waited.code(), waited.all());
            } finally {
                signal("-CONT", pids.get(1));
            }
            awaitStatus(jobs, 0); // back to OK after SIGCONT

            // rank 2 killed: an error on another rank; the other views say the same
            signal("-9", pids.get(2));
            Cli.Result killed = awaitStatus(jobs, 8);
            assertTrue(killed.out().contains("status  ER_OTH (8): rank 2 FAILED"), killed.all());
            assertTrue(killed.out().contains("  ER_OTH  rank 2 FAILED\n          process gone before MPI_Finalize\n"), killed.all());
            Cli.Result json = status(jobs, "--json");
            assertEquals(8, json.code(), json.all());
            assertTrue(json.out().contains("\"status\":{\"word\":8,\"name\":\"ER_OTH\",\"reasons\":[{\"kind\":\"ERROR\",\"bit\":8,"
                    + "\"rank\":2,\"epoch\":0,\"what\":\"FAILED\""), json.all());
            Cli.Result cominfo = Cli.mpilens(env(jobs), "cominfo", "--job", JOB);
            assertEquals(0, cominfo.code(), cominfo.all());
            assertEquals("status  ER_OTH (8): rank 2 FAILED", cominfo.out().lines().skip(1).findFirst().orElse(""), cominfo.all());
            Cli.Result hostinfo = Cli.mpilens(env(jobs), "hostinfo", "--job", JOB);
            assertEquals("status  ER_OTH (8): rank 2 FAILED", hostinfo.out().lines().skip(1).findFirst().orElse(""), hostinfo.all());
            Cli.Result listed = Cli.mpilens(env(jobs), "jobs");
            assertTrue(listed.out().lines().anyMatch(l -> l.matches(JOB + " +4/4 +3 +ER_OTH +openmpi .*")), listed.all());

            // rank 0 raises an MPI error (a send to a rank that does not exist): an error on rank 0 too
            job.release("ready");
            String raised = job.awaitLine(l -> l.contains("MPILENS-RAISED owner=0"), Tours.START).toString();
            assertTrue(raised.contains("class="), "rank 0 caught an MPIException: " + raised);
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=raised"), 3, Tours.START);
            Cli.Result both = awaitStatus(jobs, 12);
            System.out.println("mpilens status after rank 2 was killed and rank 0 raised:\n" + both.all());
            assertTrue(both.out().contains("status  ER_PR0+ER_OTH (12): rank 0 MPI error in send (class "), both.all());
            assertTrue(both.out().contains("rank 2 FAILED"), both.all());
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void runWithStatusExitExitsWithTheWordOfTheJob() throws Exception {
        Path cli = Tours.ROOT.resolve("headless/target/mpilens-cli.jar");
        assumeTrue(Files.isRegularFile(cli), cli + " is built (package phase of headless)");
        Path jobs = tmp.resolve("jobs");
        String cp = Tours.classPath(Binding.OPENMPI).stream().map(Path::toString).collect(Collectors.joining(":"));
        List<String> jvm = List.of("-Dmpilens.home=" + Tours.ROOT, "-Dmpilens.agentJar=" + Tours.AGENT);
        Map<String, String> env = Map.of("MPILENS_JOBS", jobs.toString(), "MPILENS_HOSTS", "none");

        // every rank finalizes, nothing raised: OK, and status reads the ended job OK as well
        Cli.Result clean = Cli.external(cli, jvm, env, "run", "--status-exit", "--job-id", JOB, "-np", "4", "--",
                "-cp", cp, STORY, "clean");
        assertEquals(0, clean.code(), clean.all());
        assertTrue(clean.err().contains("mpilens: job " + JOB + " status OK (0)"), clean.all());
        Cli.Result after = status(jobs);
        assertEquals(0, after.code(), after.all());

        // rank 0 raised an MPI error and caught it; every rank finalized; mpirun exits 0, the word 4
        Cli.Result raised = Cli.external(cli, jvm, env, "run", "--status-exit", "--job-id", JOB + "-raised", "-np", "4", "--",
                "-cp", cp, STORY, "linger=4000");
        System.out.println("mpilens run --status-exit of a job whose rank 0 raised:\n" + raised.all());
        assertEquals(4, raised.code(), raised.all());
        assertTrue(raised.err().contains("ended, exit code 0"), raised.all());
        assertTrue(raised.err().contains("status ER_PR0 (4): rank 0 MPI error in send (class "), raised.all());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void rankZerosMpiErrorIsErPr0InWatchAndInTheRanksHeapDumps() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        Path dumps = Files.createDirectories(tmp.resolve("dumps"));
        Cli.Output watched = new Cli.Output();
        CompletableFuture<Integer> watch;
        try (Job job = Job.launch(Tours.survivingJob("StatusStory", control, jobs).env("MPILENS_JOB", JOB).build())) {
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
            watch = CompletableFuture.supplyAsync(() -> MpiLensCli.run(new String[] {"watch", "--job", JOB,
                "--interval", "0.5"}, new PrintStream(watched, true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), env(jobs)));
            Cli.await(watched, l -> l.endsWith("  status: OK"), "the word first seen", Duration.ofSeconds(30));

            job.release("ready");
            job.awaitLine(l -> l.contains("MPILENS-RAISED owner=0 class="), Tours.START);
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=raised"), 4, Tours.START);
            Cli.await(watched, l -> l.contains("status: OK -> ER_PR0  (rank 0 MPI error in send (class "),
                    "an error on rank 0", Duration.ofSeconds(30));

            // post mortem: the MPI error lives in rank 0's heap, and the dumps show the same word
            List<String> args = new ArrayList<>(List.of("status"));
            for (long pid : Tours.rankJvmPids(job)) {
                args.add(HeapDumpTourTest.jcmdHeapDump(pid, dumps.resolve("rank-pid" + pid + ".hprof")).toString());
            }
            assertEquals(5, args.size(), "one dump per rank JVM: " + args);
            Cli.Result fromDumps = Cli.mpilens(Map.of("NO_COLOR", "1"), args.toArray(String[]::new));
            System.out.println("mpilens status of the four ranks' heap dumps after rank 0 raised:\n" + fromDumps.all());
            assertEquals(StatusWord.ER_PR0, fromDumps.code(), fromDumps.all());
            assertTrue(fromDumps.out().contains("status  ER_PR0 (4): rank 0 MPI error in send (class "), fromDumps.all());

            job.release("raised");
            assertEquals(0, job.waitFor(Tours.START), "job exit code; output:\n" + job.tail());
        }
        assertEquals(MpiLensCli.EXIT_OK, watch.get(60, TimeUnit.SECONDS), String.join("\n", watched.lines()));
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void leakedHandlesThatGrowBetweenTwoLooksAreAnAlarmOfTheRankThatLeaks() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        Cli.Output watched = new Cli.Output();
        CompletableFuture<Integer> watch;
        try (Job job = Job.launch(Tours.survivingJob("LeakingRank", control, jobs).env("MPILENS_JOB", JOB).build())) {
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
            // two looks, nothing grows in between: OK
            Cli.Result still = status(jobs, "--interval", "1");
            assertEquals(0, still.code(), still.all());

            job.release("ready");
            job.awaitLine(l -> l.contains("MPILENS-LEAKING owner=1"), Tours.START);
            Cli.Result grown = status(jobs, "--interval", "2");
            System.out.println("mpilens status --interval 2 while rank 1 leaks:\n" + grown.all());
            assertEquals(StatusWord.AL_OTH, grown.code(), grown.all());
            assertTrue(grown.out().contains("status  AL_OTH (2): rank 1 leaked handles grow"), grown.all());
            assertTrue(grown.out().contains("  AL_OTH  rank 1 leaked handles grow\n"), grown.all());
            assertTrue(grown.out().replaceAll("\\s+", " ").matches("(?s).* \\d+ -> \\d+ in \\d+\\.\\d s: wrappers collected"
                    + " without free\\(\\), MPI still holds them.*"), "the counts of the two looks: " + grown.all());
            Cli.Result json = status(jobs, "--interval", "1", "--json");
            assertEquals(StatusWord.AL_OTH, json.code(), json.all());
            assertTrue(json.out().contains("{\"kind\":\"ALARM\",\"bit\":2,\"rank\":1,\"epoch\":0,"
                    + "\"what\":\"leaked handles grow\""), json.all());
            // one look cannot tell a count that grows from one that stays: the word says OK
            Cli.Result once = status(jobs);
            assertEquals(0, once.code(), once.all());

            // watch compares each round with the one before (after status: one reader at a time per rank)
            watch = CompletableFuture.supplyAsync(() -> MpiLensCli.run(new String[] {"watch", "--job", JOB,
                "--interval", "0.5"}, new PrintStream(watched, true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), env(jobs)));
            Cli.await(watched, l -> l.contains("status: OK -> AL_OTH  (rank 1 leaked handles grow)"),
                    "the alarm as a transition", Duration.ofSeconds(30));
            job.release("leaking");
            assertEquals(0, job.waitFor(Tours.START), "job exit code; output:\n" + job.tail());
        }
        assertEquals(MpiLensCli.EXIT_OK, watch.get(60, TimeUnit.SECONDS), String.join("\n", watched.lines()));
        // the loop stopped, every rank finalized: the word's last change is back to OK
        assertTrue(watched.lines().stream().anyMatch(l -> l.endsWith("job " + JOB + " has ended: 4 ranks finalized")),
                String.join("\n", watched.lines()));
        String last = watched.lines().stream().filter(l -> l.contains("  status: ")).reduce((a, b) -> b).orElse("");
        assertTrue(last.endsWith("status: AL_OTH -> OK"), String.join("\n", watched.lines()));
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void runWithStatusExitSaysWhetherARanksLeaksGrewWhileItRan() throws Exception {
        Path cli = Tours.ROOT.resolve("headless/target/mpilens-cli.jar");
        assumeTrue(Files.isRegularFile(cli), cli + " is built (package phase of headless)");
        String cp = Tours.classPath(Binding.OPENMPI).stream().map(Path::toString).collect(Collectors.joining(":"));
        Cli.Result r = Cli.external(cli, List.of("-Dmpilens.home=" + Tours.ROOT, "-Dmpilens.agentJar=" + Tours.AGENT),
                Map.of("MPILENS_JOBS", tmp.resolve("jobs").toString(), "MPILENS_HOSTS", "none"),
                "run", "--status-exit", "--job-id", JOB, "-np", "4", "--", "-cp", cp, LEAKING, "rank=0", "seconds=5");
        System.out.println("mpilens run --status-exit of a job whose rank 0 leaked for 5 s:\n" + r.all());
        assertEquals(StatusWord.AL_PR0, r.code(), r.all());
        assertTrue(r.err().contains("status AL_PR0 (1): rank 0 leaked handles grow"), r.all());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void anMpjMulticoreRankThatThrowsEndsTheJvmWithZeroAndTheWordSaysError() throws Exception {
        Path cli = Tours.ROOT.resolve("headless/target/mpilens-cli.jar");
        assumeTrue(Files.isRegularFile(cli), cli + " is built (package phase of headless)");
        Path jobs = tmp.resolve("jobs");
        String cp = Tours.classPath(Binding.MPJ_MULTICORE).stream().map(Path::toString).collect(Collectors.joining(":"));
        Cli.Result r = Cli.external(cli, List.of("-Dmpilens.home=" + Tours.ROOT, "-Dmpilens.agentJar=" + Tours.AGENT),
                Map.of("MPILENS_JOBS", jobs.toString(), "MPILENS_HOSTS", "none"),
                "run", "--binding", "mpj-multicore", "--status-exit", "--job-id", JOB, "-np", "4", "--",
                "-cp", cp, "io.mpilens.examples.mpj.RankThrows");
        // every rank is a thread of the one JVM that rank 2's exception ended: all four FAILED
        assertEquals(12, r.code(), r.all());
        assertTrue(r.err().contains("ended, exit code 0"), "MPJ Express exits 0 all the same: " + r.all());
        assertTrue(r.err().contains("status ER_PR0+ER_OTH (12): ranks 0-3 FAILED"), r.all());
        Cli.Result after = status(jobs);
        assertEquals(12, after.code(), after.all());
    }
}
