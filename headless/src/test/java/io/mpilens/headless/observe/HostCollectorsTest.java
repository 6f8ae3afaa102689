package io.mpilens.headless.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.json.CollectorJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a collector is started on its host ({@code --via}): the command line each way, run through
 * a stand-in launcher that records its arguments and answers with a report. That real collectors
 * answer through real ssh stand-ins and Open MPI's mpirun on simulated hosts is
 * {@code JobsAcrossHostsTest} (integration tests).
 */
class HostCollectorsTest {
    @TempDir
    Path tmp;

    /** A launcher that writes its arguments (one per line) to {@code args} and prints a report of {@code host}. */
    private Path standIn(String host) throws Exception {
        Path report = tmp.resolve("report-" + host);
        Files.write(report, CollectorJson.lines(new CollectorReport(host, null, List.of(), List.of(), List.of(), List.of())));
        Path script = tmp.resolve("launcher");
        Files.writeString(script, "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > " + tmp.resolve("args")
                + "\nenv | grep '^OMPI_ALLOW' | sort > " + tmp.resolve("env") + "\ncat " + report + "\n");
        script.toFile().setExecutable(true);
        return script;
    }

    @Test
    void viaMpirunEachHostGetsItsOwnOneProcessMpirunOnThatHost() throws Exception {
        Path launcher = standIn("node7");
        HostCollectors c = HostCollectors.of(List.of("node7"), HostCollectors.Via.MPIRUN,
                Map.of(HostCollectors.MPIRUN_ENV, launcher + " --mca plm_rsh_agent x"), "/opt/mpilens/mpilens", CollectorJson::parse);
        HostCollectors.Round round = c.collect("j1", Duration.ofSeconds(3));
        assertEquals(Map.of(), round.unanswered());
        assertEquals("node7", round.reports().get(0).host());
        assertEquals(List.of("--mca", "plm_rsh_agent", "x", "-np", "1", "--host", "node7", "/opt/mpilens/mpilens", "collect",
                "--job", "j1", "--timeout", "3"), Files.readAllLines(tmp.resolve("args")));
        List<String> env = Files.readAllLines(tmp.resolve("env"));
        if ("root".equals(System.getProperty("user.name"))) {
            assertEquals(List.of("OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"), env, "mpirun refuses root without them");
        }
    }

    @Test
    void viaSshAndByDefaultTheHostFollowsTheSshWords() throws Exception {
        Path launcher = standIn("node8");
        for (HostCollectors.Via via : new HostCollectors.Via[] {HostCollectors.Via.SSH, null}) {
            HostCollectors c = HostCollectors.of(List.of("node8"), via, Map.of(HostCollectors.SSH_ENV, launcher + " -q"),
                    "mpilens", CollectorJson::parse);
            HostCollectors.Round round = c.collect(null, Duration.ofSeconds(2));
            assertEquals("node8", round.reports().get(0).host(), round.unanswered().toString());
            assertEquals(List.of("-q", "node8", "mpilens", "collect", "--timeout", "2"), Files.readAllLines(tmp.resolve("args")));
        }
        HostCollectors fromEnv = HostCollectors.of(List.of("node8"), null, Map.of(HostCollectors.VIA_ENV, "MPIRUN",
                HostCollectors.MPIRUN_ENV, launcher.toString()), "mpilens", CollectorJson::parse);
        fromEnv.collect(null, Duration.ofSeconds(2));
        assertEquals(List.of("-np", "1", "--host", "node8", "mpilens", "collect", "--timeout", "2"),
                Files.readAllLines(tmp.resolve("args")), "$MPILENS_VIA chooses when --via does not");
    }

    /**
     * Kept running (a watch): one collector process per host answers every round on its standard
     * input; a host that answers a round too late is given up on for that round, is not asked
     * again while it is still busy, and answers the round after it has caught up; {@link
     * HostCollectors#close} ends them by closing their input.
     */
    @Test
    void keptCollectorsStartOncePerHostAndAnswerEveryRound() throws Exception {
        for (String host : List.of("fast", "slow")) {
            Files.write(tmp.resolve("report-" + host), CollectorJson.lines(new CollectorReport(host, null, List.of(), List.of(), List.of(), List.of())));
        }
        Path script = tmp.resolve("rounds");
        Files.writeString(script, "#!/bin/sh\nhost=$1; shift\necho \"$@\" >> " + tmp + "/starts-$host\n"
                + "while read -r word n rest; do\n"
                + "  [ \"$word\" = round ] || continue\n"
                + "  echo \"$n $rest\" >> " + tmp + "/asked-$host\n"
                + "  if [ \"$host\" = slow ] && [ \"$n\" = 2 ]; then sleep 12; fi\n"
                + "  cat " + tmp + "/report-$host\n"
                + "  echo \"{\\\"kind\\\":\\\"end\\\",\\\"round\\\":$n}\"\n"
                + "  echo $n >> " + tmp + "/answered-$host\n"
                + "done\necho ended > " + tmp + "/ended-$host\n");
        script.toFile().setExecutable(true);
        HostCollectors c = HostCollectors.of(List.of("fast", "slow"), HostCollectors.Via.SSH, Map.of(HostCollectors.SSH_ENV, script.toString()),
                "mpilens", CollectorJson::parse).keepRunning();
        try {
            HostCollectors.Round first = c.collect("j9", Duration.ofSeconds(1), true);
            assertEquals(Map.of(), first.unanswered());
            assertEquals(2, first.reports().size());
            HostCollectors.Round late = c.collect("j9", Duration.ofSeconds(1), false);
            assertEquals(List.of("fast"), late.reports().stream().map(CollectorReport::host).toList());
            assertTrue(late.unanswered().get("slow").contains("did not answer within the deadline"), late.unanswered().toString());
            HostCollectors.Round busy = c.collect(null, Duration.ofSeconds(1), false);
            assertEquals(List.of("fast"), busy.reports().stream().map(CollectorReport::host).toList());
            assertTrue(busy.unanswered().get("slow").contains("still answering an earlier round"), busy.unanswered().toString());
            // the slow host answers round 2 (dropped) in its own time
            long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            Path answered = tmp.resolve("answered-slow");
            while (!(Files.exists(answered) && Files.readAllLines(answered).contains("2")) && System.nanoTime() < until) {
                Thread.sleep(100);
            }
            HostCollectors.Round caughtUp;
            do { // its end line read by the front end: asked again at the next round
                caughtUp = c.collect("j9", Duration.ofSeconds(1), false);
            } while (!caughtUp.unanswered().isEmpty() && System.nanoTime() < until);
            assertEquals(Map.of(), caughtUp.unanswered());
            assertEquals(2, caughtUp.reports().size());
        } finally {
            c.close();
        }
        for (String host : List.of("fast", "slow")) {
            assertEquals(List.of("mpilens collect --rounds --timeout 1"), Files.readAllLines(tmp.resolve("starts-" + host)),
                    host + ": one collector for every round");
            assertEquals(List.of("ended"), Files.readAllLines(tmp.resolve("ended-" + host)), host + ": ended at the end of its input");
        }
        List<String> fast = Files.readAllLines(tmp.resolve("asked-fast"));
        assertEquals(List.of("1 --job j9 --frames", "2 --job j9", "3 "), fast.subList(0, 3));
        String last = fast.get(fast.size() - 1);
        assertEquals(List.of("1 --job j9 --frames", "2 --job j9", last), Files.readAllLines(tmp.resolve("asked-slow")),
                "not asked while busy, asked again once caught up");
    }

    @Test
    void roundRequestsReadBackAsWritten() {
        assertEquals(new CollectorRounds.Request(7, "j1", true), CollectorRounds.Request.parse(CollectorRounds.request(7, "j1", true)));
        assertEquals(new CollectorRounds.Request(8, null, false), CollectorRounds.Request.parse(CollectorRounds.request(8, null, true)));
        assertEquals(null, CollectorRounds.Request.parse("round x"));
        assertEquals(null, CollectorRounds.Request.parse("round 1 --job ;rm"));
        assertEquals(3, CollectorRounds.ended(CollectorRounds.end(3)));
        assertEquals(-1, CollectorRounds.ended("{\"kind\":\"collector\"}"));
    }

    /**
     * A round of collectors runs on a thread of its own: with every thread of the common
     * fork-join pool held (a {@code watch} running there in the same JVM, as in an IDE), it still
     * completes. It ran on that pool before, and waited behind the watch for good.
     */
    @Test
    void aRoundOfCollectorsDoesNotWaitForTheCommonPool() throws Exception {
        Path launcher = standIn("node9");
        HostCollectors c = HostCollectors.of(List.of("node9"), HostCollectors.Via.SSH, Map.of(HostCollectors.SSH_ENV, launcher.toString()),
                "mpilens", CollectorJson::parse);
        int threads = java.util.concurrent.ForkJoinPool.getCommonPoolParallelism();
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(threads);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.CompletableFuture<Void>> holders = new java.util.ArrayList<>();
        for (int i = 0; i < threads; i++) {
            holders.add(java.util.concurrent.CompletableFuture.runAsync(() -> {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        try {
            assertTrue(held.await(30, java.util.concurrent.TimeUnit.SECONDS), "every common-pool thread held");
            HostCollectors.Round round = c.collectAsync(null, Duration.ofSeconds(2), false).get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals("node9", round.reports().get(0).host(), round.unanswered().toString());
        } finally {
            release.countDown();
        }
        for (java.util.concurrent.CompletableFuture<Void> h : holders) h.get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void aWayThatIsNotOneAndAHostNameThatIsNotOneAreUsageErrors() {
        for (String[] args : List.of(new String[] {"jobs", "--hosts", "a,b", "--via", "rsh"},
                new String[] {"jobs", "--hosts", "-a"}, new String[] {"jobs", "--hosts", "a;b"},
                new String[] {"jobs", "--hosts", "a,b", "--via", "mpj"})) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("MPILENS_JOBS", tmp.toString()));
            String e = err.toString(StandardCharsets.UTF_8);
            assertEquals(MpiLensCli.EXIT_USAGE, code, String.join(" ", args) + ": " + e);
            assertTrue((e.startsWith("mpilens: '") || e.startsWith("mpilens: --via mpj")) && (e.contains("ssh, mpirun or mpj") || e.contains("is not a host name")
                    || e.contains("--via mpj needs MPJ_HOME")), e);
        }
    }
}
