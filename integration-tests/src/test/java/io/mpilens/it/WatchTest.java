package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mpilens watch --job ID} on a real 4-rank Open MPI job ({@code orte_abort_on_non_zero_status 0}):
 * it prints each transition as it happens — a stopped rank UNAVAILABLE (never FAILED) and back to OK
 * after SIGCONT, a killed rank FAILED — with the job's status word (OK, AL_OTH, OK, ER_OTH) — and ends by
 * itself, exit code 0, once the job is gone.
 */
class WatchTest {
    private static final String JOB = "it-watch";

    @TempDir
    Path tmp;

    private static void await(Cli.Output out, Predicate<String> line, String what) throws InterruptedException {
        Cli.await(out, line, what, Duration.ofSeconds(30));
    }

    private static void signal(String sig, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", sig, Long.toString(pid)).inheritIO().start().waitFor());
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void printsEachTransitionAsItHappensAndEndsWhenTheJobIsGone() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        Cli.Output out = new Cli.Output();
        Cli.Output err = new Cli.Output();
        CompletableFuture<Integer> exit;
        try (Job job = Job.launch(Tours.tour(Binding.OPENMPI, control).mpirunArgs("--mca orte_abort_on_non_zero_status 0")
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", JOB).build())) {
            Tours.awaitPause(job, "created");
            // this host only: without it, watch also reads the hosts of any other mpirun of this user here (--host)
            Map<String, String> env = Map.of("MPILENS_JOBS", jobs.toString(), "NO_COLOR", "1", "MPILENS_HOSTS", "none");
            exit = CompletableFuture.supplyAsync(() -> MpiLensCli.run(new String[] {"watch", "--job", JOB,
                "--interval", "0.2", "--timeout", "3", "--cominfo"},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), env));
            // ranks that turn OK in the same round share a line ("ranks 0-3: OK"); every one must be there
            java.util.Set<Integer> ok = new java.util.TreeSet<>();
            await(out, l -> {
                if (l.contains(": OK  (")) ok.addAll(Cli.ranksOf(l));
                return ok.containsAll(List.of(0, 1, 2, 3));
            }, "every rank OK first");
            await(out, l -> l.startsWith("+- MPI_COMM_WORLD ") && l.endsWith(" OK -+"), "the cominfo boxes");
            await(out, l -> l.endsWith("  status: OK"), "the job's status word, first seen");
            await(out, l -> l.equals("status  OK (0)"), "the status word at the top of the cominfo boxes");

            List<Long> pids = new JobDirectory(jobs).job(JOB).records().stream().map(r -> r.pid()).collect(Collectors.toList());
            signal("-STOP", pids.get(1));
            try {
                await(out, l -> l.contains("rank 1: OK -> UNAVAILABLE"), "the stopped rank UNAVAILABLE");
                await(out, l -> l.contains("status: OK -> AL_OTH  (rank 1 UNAVAILABLE (alive))"),
                        "an alarm on another rank: past its deadline, its process there");
            } finally {
                signal("-CONT", pids.get(1));
            }
            await(out, l -> l.contains("rank 1: UNAVAILABLE -> OK"), "the rank back to OK after SIGCONT");
            await(out, l -> l.endsWith("status: AL_OTH -> OK"), "the word back to OK");

            signal("-9", pids.get(2));
            await(out, l -> l.contains("rank 2: OK -> FAILED"), "the killed rank FAILED");
            await(out, l -> l.contains("comm MPI_COMM_WORLD: OK -> DETECTED"), "COMM_WORLD DETECTED");
            await(out, l -> l.contains("status: OK -> ER_OTH  (") && l.contains("rank 2 FAILED"), "an error on another rank");
            assertTrue(out.lines().stream().noneMatch(l -> Cli.ranksOf(l).contains(1) && l.contains("FAILED")),
                    "a stopped rank is never FAILED:\n" + String.join("\n", out.lines()));
            for (String l : out.lines()) assertTrue(l.length() <= 80, l.length() + ": " + l);
        }
        // the job is closed: every rank's process is gone, watch says so and ends by itself
        assertEquals(MpiLensCli.EXIT_OK, exit.get(60, TimeUnit.SECONDS), String.join("\n", err.lines()));
        await(out, l -> l.contains("job " + JOB + " has ended: 4 ranks failed"), "the end of the job");
        assertTrue(err.lines().get(0).startsWith("mpilens watch: following job " + JOB), err.lines().toString());
    }
}
