package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.headless.json.SnapshotJsonReader;
import io.mpilens.headless.launch.Job;
import io.mpilens.testsupport.SimulatedHosts;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * One view of a job whose ranks run on two (simulated) hosts, from the launch host, where none of
 * them runs: {@code jobs}, {@code hostinfo}, {@code cominfo}, {@code handles --job}, {@code leaks
 * --job}, {@code calls} (also {@code --confirm}) and {@code watch} with {@code --hosts} (or with the
 * hosts found from the job's {@code mpirun}) start a collector on each host through the ssh stand-in
 * and merge what they report (the ranks' snapshots too: their communicators and handles); a frozen host (every process stopped, ssh
 * to it hangs) costs the deadline rule's time, and its ranks are {@code UNAVAILABLE}, not a hang.
 * Real Open MPI: 2 hosts x 2 ranks of {@code HangAfterFailure} with the agent.
 */
class JobsAcrossHostsTest {
    @Test
    void jobsAndHostinfoOnTheLaunchHostMergeTheCollectorsOfBothHosts() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        Path control = SimulatedHostsTest.control("across");
        Path localJobs = control.resolve("launch-host-jobs"); // none: no rank runs on the launch host
        try (SimulatedHosts hosts = SimulatedHosts.up(2)) {
            String h1 = hosts.names().get(0), h2 = hosts.names().get(1), both = h1 + "," + h2;
            Map<String, String> env = hosts.frontEnd(localJobs, cli);
            try (Job job = Job.launch(SimulatedHostsTest.twoPerHost(hosts, "HangAfterFailure", control).build())) {
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
                String id = hosts.exec(h1, "ls /tmp/mpilens-$(id -u)/jobs").trim();

                Cli.Result jobs = Cli.mpilens(env, "jobs", "--hosts", both);
                assertEquals(0, jobs.code(), jobs.all());
                Cli.hasLine(jobs, Cli.jobsLineOfFourRanksOnTwoHosts(id, "openmpi", h1, h2));
                Cli.Result json = Cli.mpilens(env, "jobs", "--hosts", both, "--json");
                assertEquals(0, json.code(), json.all());
                for (int r = 0; r < 4; r++) {
                    String rank = "\"rank\":" + r + ",\"size\":4,\"pid\":\\d+,\"parentPid\":\\d+,\"host\":\"" + (r < 2 ? h1 : h2)
                            + "\",[^}]*\"alive\":true";
                    assertTrue(Pattern.compile(rank).matcher(json.out()).find(), rank + " in " + json.all());
                }
                Cli.Result local = Cli.mpilens(env, "jobs", "--hosts", "none");
                assertEquals(0, local.code(), local.all());
                assertTrue(!local.out().contains(id), "with --hosts none the launch host knows no rank of it:\n" + local.all());
                // named by nobody, no MPILENS_SSH: the hosts of the mpirun that launched the job here
                // (its --host), reached through its own plm_rsh_agent
                Map<String, String> bare = Map.of("MPILENS_JOBS", localJobs.toString(), "NO_COLOR", "1",
                        "MPILENS_REMOTE", "java -jar " + cli);
                Cli.Result found = Cli.mpilens(bare, "jobs");
                assertEquals(0, found.code(), found.all());
                Cli.hasLine(found, Cli.jobsLineOfFourRanksOnTwoHosts(id, "openmpi", h1, h2));
                assertTrue(Pattern.compile("mpilens: also reading the hosts of mpirun pid \\d+ \\(--host\\): " + Pattern.quote(both)
                        + " \\(collectors started with its plm_rsh_agent " + Pattern.quote(hosts.rshAgent().toString()) + ";")
                        .matcher(found.err()).find(), "the hosts found, and how they are reached, said on stderr:\n" + found.all());
                Cli.Result foundInfo = Cli.mpilens(bare, "hostinfo", "--job", id);
                assertEquals(0, foundInfo.code(), foundInfo.all());
                Cli.hasLine(foundInfo, "\\+- " + h1 + " -+ UP -\\+");
                Cli.hasLine(foundInfo, "\\+- " + h2 + " -+ UP -\\+");
                assertEquals(4, foundInfo.out().lines().filter(l -> l.matches("\\| rank \\d +pid \\d+ +OK +answered +\\|")).count(),
                        foundInfo.all());
                assertEquals(1, foundInfo.err().lines().filter(l -> l.contains("also reading the hosts")).count(),
                        "the hosts found are said once:\n" + foundInfo.all());

                Cli.Result hostinfo = Cli.mpilens(env, "hostinfo", "--job", id, "--hosts", both);
                assertEquals(0, hostinfo.code(), hostinfo.all());
                Cli.hasLine(hostinfo, "\\+- " + h1 + " -+ UP -\\+");
                Cli.hasLine(hostinfo, "\\+- " + h2 + " -+ UP -\\+");
                Cli.hasLine(hostinfo, "\\| daemon  orted pid \\d+ +\\|");
                String[] hostOf = {h1, h1, h2, h2};
                List<String> lines = hostinfo.out().lines().toList();
                for (int r = 0; r < 4; r++) {
                    int rank = r;
                    int box = lines.indexOf(lines.stream().filter(l -> l.startsWith("+- " + hostOf[rank] + " ")).findFirst().orElseThrow());
                    int at = lines.indexOf(lines.stream().filter(l -> l.matches("\\| rank " + rank + " +pid \\d+ +OK +answered +\\|"))
                            .findFirst().orElseThrow(() -> new AssertionError("rank " + rank + " OK in:\n" + hostinfo.all())));
                    assertTrue(at > box && lines.subList(box + 1, at).stream().noneMatch(l -> l.startsWith("+- ")),
                            "rank " + r + " in " + hostOf[r] + "'s box:\n" + hostinfo.all());
                }

                // the collectors send their ranks' snapshots: the communicators of ranks on both hosts
                Cli.Result cominfo = Cli.mpilens(env, "cominfo", "--job", id, "--hosts", both);
                assertEquals(0, cominfo.code(), cominfo.all());
                Cli.hasLine(cominfo, "\\+- MPI_COMM_WORLD -+ OK -\\+");
                assertTrue(cominfo.out().contains("| members 0-3 "), "all four ranks in MPI_COMM_WORLD:\n" + cominfo.all());
                assertTrue(!cominfo.out().contains("no communicator known"), cominfo.all());

                // handles of every rank, each decoded on its own host and read back here field by field
                Cli.Result handles = Cli.mpilens(env, "handles", "--job", id, "--hosts", both, "--all", "--json");
                assertEquals(0, handles.code(), handles.all());
                List<ProcessSnapshot> read = SnapshotJsonReader.read(handles.out().strip());
                assertEquals(List.of(0, 1, 2, 3), read.stream().map(ProcessSnapshot::rank).toList(), handles.all());
                for (ProcessSnapshot p : read) {
                    assertEquals(hostOf[p.rank()], p.host(), "rank " + p.rank() + "'s host");
                    assertEquals("openmpi", p.binding());
                    HandleInfo world = p.handles().stream().filter(h -> "MPI_COMM_WORLD".equals(h.name())).findFirst()
                            .orElseThrow(() -> new AssertionError("MPI_COMM_WORLD of rank " + p.rank() + " in " + handles.all()));
                    assertEquals(HandleKind.COMMUNICATOR, world.kind());
                    assertEquals(p.rank(), world.rank(), "rank " + p.rank() + " in its MPI_COMM_WORLD");
                    assertEquals(4, world.size());
                    assertTrue(world.predefined());
                    assertEquals(List.of(0, 1, 2, 3), java.util.Arrays.stream(world.members()).boxed().toList());
                }
                assertTrue(Pattern.compile("\"address\":\"" + Pattern.quote(h2) + "/127\\.0\\.0\\.1:\\d+\"").matcher(handles.out()).find(),
                        "a rank of " + h2 + " named by its host and address there:\n" + handles.all());
                Cli.Result table = Cli.mpilens(env, "handles", "--job", id, "--hosts", both);
                assertEquals(0, table.code(), table.all());
                for (int r = 0; r < 4; r++) Cli.hasLine(table, "rank " + r + "/4 +pid \\d+ on " + hostOf[r] + " .*");
                Cli.Result one = Cli.mpilens(env, "handles", "--job", id, "--hosts", both, "--ranks", "2", "--json");
                assertEquals(0, one.code(), one.all());
                assertEquals(List.of(2), SnapshotJsonReader.read(one.out().strip()).stream().map(ProcessSnapshot::rank).toList());

                // leaks reads the same ranks: all four running, on both hosts
                Cli.Result leaks = Cli.mpilens(env, "leaks", "--job", id, "--hosts", both);
                assertEquals(0, leaks.code(), leaks.all());
                Cli.hasLine(leaks, "\\d+ leaked handles? in \\d+ places? \\(0 ranks ended, 4 still running\\)");

                // the same through the job's own launcher: one 'mpirun -np 1 --host H' per host, with
                // the MCA settings the job was started with (here: the ssh stand-in)
                Map<String, String> viaMpirun = new java.util.HashMap<>(env);
                viaMpirun.put("MPILENS_MPIRUN", "mpirun --mca plm_rsh_agent " + hosts.rshAgent() + " --mca plm_rsh_no_tree_spawn 1");
                Cli.Result jobsViaMpirun = Cli.mpilens(viaMpirun, "jobs", "--hosts", both, "--via", "mpirun", "--json");
                assertEquals(0, jobsViaMpirun.code(), jobsViaMpirun.all());
                for (int r = 0; r < 4; r++) {
                    String rank = "\"rank\":" + r + ",\"size\":4,\"pid\":\\d+,\"parentPid\":\\d+,\"host\":\"" + (r < 2 ? h1 : h2)
                            + "\",[^}]*\"alive\":true";
                    assertTrue(Pattern.compile(rank).matcher(jobsViaMpirun.out()).find(), rank + " via mpirun in " + jobsViaMpirun.all());
                }
                Cli.Result hostinfoViaMpirun = Cli.mpilens(viaMpirun, "hostinfo", "--job", id, "--hosts", both, "--via", "mpirun");
                assertEquals(0, hostinfoViaMpirun.code(), hostinfoViaMpirun.all());
                Cli.hasLine(hostinfoViaMpirun, "\\+- " + h1 + " -+ UP -\\+");
                Cli.hasLine(hostinfoViaMpirun, "\\+- " + h2 + " -+ UP -\\+");
                for (int r = 0; r < 4; r++) Cli.hasLine(hostinfoViaMpirun, "\\| rank " + r + " +pid \\d+ +OK +answered +\\|");
                Cli.hasLine(hostinfoViaMpirun, "status  OK \\(0\\)");

                hosts.freeze(h2);
                long start = System.nanoTime();
                Cli.Result frozen = Cli.mpilens(env, "hostinfo", "--job", id, "--hosts", both);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                Cli.Result frozenStatus = Cli.mpilens(env, "status", "--job", id, "--hosts", both);
                hosts.thaw(h2);
                assertEquals(MpiLensCli.EXIT_UNREADABLE, frozen.code(), frozen.all());
                assertTrue(took.compareTo(Duration.ofSeconds(40)) < 0, "bounded by the deadline rule, took " + took);
                Cli.hasLine(frozen, "\\+- " + h1 + " -+ UP -\\+");
                Cli.hasLine(frozen, "\\+- " + h2 + " -+ UNKNOWN -\\+");
                for (int r : new int[] {0, 1}) Cli.hasLine(frozen, "\\| rank " + r + " +pid \\d+ +OK .*");
                for (int r : new int[] {2, 3}) Cli.hasLine(frozen, "\\| rank " + r + " +pid \\? +UNAVAILABLE +no report: the collector on .*");
                assertTrue(frozen.err().contains("host " + h2 + ": its collector did not answer within the deadline"), frozen.all());
                // the status word: the frozen host's ranks are undefined (nothing is known of them)
                Cli.hasLine(frozen, "status  UN_OTH \\(16\\): ranks 2 3 UNAVAILABLE \\(undefined\\)");
                assertEquals(StatusWord.UN_OTH, frozenStatus.code(), "status exits with the word: " + frozenStatus.all());
                Cli.hasLine(frozenStatus, "status  UN_OTH \\(16\\): ranks 2 3 UNAVAILABLE \\(undefined\\)");

                job.release("ready");
                assertEquals(0, job.waitFor(Duration.ofSeconds(90)), job.tail());
                Cli.Result after = Cli.mpilens(env, "hostinfo", "--job", id, "--hosts", both);
                assertEquals(0, after.code(), after.all());
                for (int r = 0; r < 4; r++) Cli.hasLine(after, "\\| rank " + r + " +pid \\d+ +FINALIZED +finalized MPI, then exited +\\|");
            }
        }
    }

    /**
     * A deadlock whose two ranks are on different hosts ({@code examples.openmpi.Deadlock}, 5 ranks
     * mapped by node: 0, 2, 4 on the first host, 1, 3 on the second): {@code calls --confirm --hosts}
     * from the launch host compares the blocking-call counts the collectors send in two rounds and
     * says DEADLOCK for ranks 0 and 1 with rank 2 stuck behind them, never the ping-pong pair 3 4,
     * whose ranks are on both hosts too.
     */
    @Test
    void callsConfirmSeesADeadlockBetweenRanksOfTwoHosts() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        Path control = SimulatedHostsTest.control("across-deadlock");
        Path localJobs = control.resolve("launch-host-jobs");
        try (SimulatedHosts hosts = SimulatedHosts.up(2)) {
            String h1 = hosts.names().get(0), h2 = hosts.names().get(1), both = h1 + "," + h2;
            Map<String, String> env = hosts.frontEnd(localJobs, cli);
            io.mpilens.headless.launch.JobSpec spec = io.mpilens.headless.launch.JobSpec
                    .builder(io.mpilens.headless.launch.Binding.OPENMPI, 5, "io.mpilens.examples.openmpi.Deadlock")
                    .classPath(Tours.classPath(io.mpilens.headless.launch.Binding.OPENMPI)).agentJar(Tours.AGENT).jdwp(true)
                    .controlDir(control).mpirunArgs(hosts.mpirunArgs(3) + " --map-by node").build();
            try (Job job = Job.launch(spec)) {
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 5, Tours.START);
                job.release("ready");
                job.awaitLines(l -> l.contains("MPILENS-STUCK "), 5, Tours.START);
                String id = hosts.exec(h1, "ls /tmp/mpilens-$(id -u)/jobs").trim();
                assertEquals(id, hosts.exec(h2, "ls /tmp/mpilens-$(id -u)/jobs").trim(), "one job on both hosts");
                // where each rank runs is the point here: a rank that missed the deadline (five
                // rank JVMs polling in MPI on this machine's two CPUs, a CI run's load beside them:
                // one did, once, after the first answer's 1 s floor) is asked again, twice at most
                Cli.Result asked = Cli.mpilens(env, "hostinfo", "--job", id, "--hosts", both);
                for (int again = 0; again < 2 && asked.out().contains("UNAVAILABLE"); again++) {
                    asked = Cli.mpilens(env, "hostinfo", "--job", id, "--hosts", both);
                }
                Cli.Result hostinfo = asked;
                for (int r = 0; r < 5; r++) {
                    String host = r % 2 == 0 ? h1 : h2, rank = "\\| rank " + r + " +pid \\d+ +OK +answered +\\|";
                    List<String> lines = hostinfo.out().lines().toList();
                    int box = lines.indexOf(lines.stream().filter(l -> l.startsWith("+- " + host + " ")).findFirst().orElseThrow());
                    int at = lines.indexOf(lines.stream().filter(l -> l.matches(rank)).findFirst()
                            .orElseThrow(() -> new AssertionError(rank + " in:\n" + hostinfo.all())));
                    assertTrue(at > box && lines.subList(box + 1, at).stream().noneMatch(l -> l.startsWith("+- ")),
                            "rank " + r + " on " + host + " (mapped by node):\n" + hostinfo.all());
                }
                Cli.Result calls = null;
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (System.nanoTime() < deadline) {
                    calls = Cli.mpilens(env, "calls", "--job", id, "--hosts", both, "--confirm", "1.5");
                    // every rank answered (exit 0) as well: one of the five polling rank JVMs that
                    // misses the deadline under a CI run's load (rank 4 once, in session 20) is read
                    // again with the next round, as hostinfo above
                    if (calls.out().contains("\nDEADLOCK: ") && calls.code() == 0) break;
                    Thread.sleep(500);
                }
                String text = calls.out();
                assertEquals(0, calls.code(), calls.all());
                assertTrue(text.contains("\nDEADLOCK: ranks 0 1 wait for each other; no blocking call returned in "), calls.all());
                assertTrue(text.contains("\n  cycle 0 -> 1 -> 0\n"), calls.all());
                assertTrue(text.contains("\n  rank 0  recv on MPI_COMM_WORLD peer 1 tag 7  waits for 1\n"), calls.all());
                assertTrue(text.contains("\n  rank 1  recv on MPI_COMM_WORLD peer 0 tag 7  waits for 0\n"), calls.all());
                assertTrue(text.contains("\n  stuck behind them: rank 2\n    rank 2  barrier on MPI_COMM_WORLD  waits for 0 1\n"),
                        calls.all());
                assertTrue(text.lines().filter(l -> l.startsWith("DEADLOCK")).allMatch(l -> l.startsWith("DEADLOCK: ranks 0 1 wait ")),
                        "the busy pair is never a deadlock:\n" + calls.all());
            }
        }
    }

    /**
     * The threads' calls travel too ({@code collect --frames}): rank 2 (on the second host) killed,
     * the survivors of both hosts in a barrier on MPI_COMM_WORLD that can never complete, as
     * {@code calls --hosts} sees it from the launch host; then rank 3 killed too, and the second
     * host, all of whose ranks failed, is {@code DOWN} and {@code MPI_COMM_WORLD} {@code DETECTED}.
     */
    @Test
    void callsOnTheLaunchHostSeeTheSurvivorsOfBothHostsStuckInTheBarrier() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        Path control = SimulatedHostsTest.control("across-calls");
        Path localJobs = control.resolve("launch-host-jobs");
        try (SimulatedHosts hosts = SimulatedHosts.up(2)) {
            String h1 = hosts.names().get(0), h2 = hosts.names().get(1), both = h1 + "," + h2;
            Map<String, String> env = hosts.frontEnd(localJobs, cli);
            Cli.Output watched = new Cli.Output();
            Cli.Output watchErr = new Cli.Output();
            java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<Integer>> watching =
                    new java.util.concurrent.atomic.AtomicReference<>();
            String[] jobId = new String[1];
            try (Job job = Job.launch(SimulatedHostsTest.twoPerHost(hosts, "HangAfterFailure", control)
                    .mpirunArgs("--mca orte_abort_on_non_zero_status 0").build())) {
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
                String id = hosts.exec(h1, "ls /tmp/mpilens-$(id -u)/jobs").trim();
                Cli.Result json = Cli.mpilens(env, "jobs", "--hosts", both, "--json");
                java.util.regex.Matcher m = Pattern.compile("\"rank\":2,\"size\":4,\"pid\":(\\d+)").matcher(json.out());
                assertTrue(m.find(), json.all());
                // watch from the launch host follows the ranks of both hosts, round after round
                jobId[0] = id;
                watching.set(java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> MpiLensCli.run(new String[] {"watch", "--job", id, "--hosts", both, "--interval", "0.5"},
                                new PrintStream(watched, true, StandardCharsets.UTF_8),
                                new PrintStream(watchErr, true, StandardCharsets.UTF_8), env),
                        r -> { // a thread of its own, as a second mpilens process would be
                            Thread t = new Thread(r, "watch");
                            t.setDaemon(true);
                            t.start();
                        }));
                // ranks that turn OK in the same round share a line ("ranks 0-3: OK"): every one must be there
                java.util.Set<Integer> ok = new java.util.TreeSet<>();
                Cli.await(watched, l -> {
                    if (l.endsWith(": OK") || l.contains(": OK  (")) ok.addAll(Cli.ranksOf(l));
                    return ok.containsAll(List.of(0, 1, 2, 3));
                }, "every rank of both hosts OK", Duration.ofSeconds(60));
                // one PID namespace for all simulated hosts: the launch host can end rank 2's process
                new ProcessBuilder("kill", "-9", m.group(1)).inheritIO().start().waitFor();
                Cli.await(watched, l -> l.contains("rank 2: OK -> FAILED"), "rank 2 (second host) FAILED", Duration.ofSeconds(60));
                Cli.await(watched, l -> l.contains("comm MPI_COMM_WORLD: OK -> DETECTED"), "COMM_WORLD DETECTED",
                        Duration.ofSeconds(60));
                assertTrue(watched.lines().stream().noneMatch(l -> l.contains("-> FAILED")
                        && (Cli.ranksOf(l).contains(0) || Cli.ranksOf(l).contains(1))), String.join("\n", watched.lines()));
                assertTrue(watchErr.lines().get(0).startsWith("mpilens watch: following job " + id), watchErr.lines().toString());
                // many rounds so far, one collector JVM per host for all of them ('collect --rounds')
                java.util.Set<Long> collectors = keptCollectors();
                assertEquals(2, collectors.size(), "one kept collector per host: " + collectors);
                job.release("ready");
                job.awaitLines(l -> l.contains("MPILENS-BARRIER "), 3, Tours.START);

                String expected = "ranks 0 1 3  barrier on MPI_COMM_WORLD  [main]  NEVER COMPLETES: FAILED [2]";
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                Cli.Result calls;
                do {
                    calls = Cli.mpilens(env, "calls", "--job", id, "--hosts", both);
                } while (!calls.out().lines().anyMatch(expected::equals) && System.nanoTime() < deadline);
                Cli.hasLine(calls, Pattern.quote(expected));

                // then every rank of the second host killed: that host is DOWN, as on one host
                java.util.regex.Matcher m3 = Pattern.compile("\"rank\":3,\"size\":4,\"pid\":(\\d+)").matcher(json.out());
                assertTrue(m3.find(), json.all());
                new ProcessBuilder("kill", "-9", m3.group(1)).inheritIO().start().waitFor();
                Cli.Result hostinfo;
                long downBy = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                do {
                    hostinfo = Cli.mpilens(env, "hostinfo", "--job", id, "--hosts", both);
                } while (!hostinfo.out().contains(" DOWN -+") && System.nanoTime() < downBy);
                Cli.hasLine(hostinfo, "\\+- " + h2 + " -+ DOWN -\\+");
                Cli.hasLine(hostinfo, "\\+- " + h1 + " -+ UP -\\+");
                for (int r : new int[] {2, 3}) Cli.hasLine(hostinfo, "\\| rank " + r + " +pid \\d+ +FAILED .*");
                Cli.Result cominfo = Cli.mpilens(env, "cominfo", "--job", id, "--hosts", both);
                Cli.hasLine(cominfo, "\\+- MPI_COMM_WORLD -+ DETECTED -\\+");
                Cli.await(watched, l -> l.contains("rank 3: OK -> FAILED"), "rank 3 FAILED", Duration.ofSeconds(60));
                assertEquals(collectors, keptCollectors(), "the same two collectors, rounds later");
            }
            // the job is gone (its ranks' processes ended on both hosts): watch says so and ends by itself
            assertEquals(MpiLensCli.EXIT_OK, watching.get().get(90, java.util.concurrent.TimeUnit.SECONDS),
                    String.join("\n", watchErr.lines()) + "\n" + String.join("\n", watched.lines()));
            Cli.await(watched, l -> l.contains("job " + jobId[0] + " has ended"), "the end of the job", Duration.ofSeconds(5));
            long gone = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!keptCollectors().isEmpty() && System.nanoTime() < gone) Thread.sleep(100);
            assertEquals(java.util.Set.of(), keptCollectors(), "the watch's collectors end with it (their input closed)");
        }
    }

    /** The kept collectors' JVMs ({@code collect --rounds}) on any simulated host: one PID namespace for all. */
    private static java.util.Set<Long> keptCollectors() {
        Pattern collector = Pattern.compile("\\S*java -jar \\S*mpilens-cli\\.jar collect --rounds .*");
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> collector.matcher(c).matches()).orElse(false))
                .map(ProcessHandle::pid).collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
    }
}
