package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.json.SnapshotJsonReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.testsupport.SimulatedHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A real MPJ Express niodev job across two (simulated) hosts, seen from the launch host, where
 * none of its ranks runs: 4 ranks of {@code HandleTour} with the agent, the starter's machines
 * file naming both hosts, MPJ placing ranks 0 1 on the first and 2 3 on the second (see
 * {@link MpjAcrossHosts} for how the daemons are reached). {@code jobs}, {@code hostinfo},
 * {@code cominfo} and {@code handles} with {@code --hosts} merge what the collectors of both hosts
 * report, through ssh and through MPJ Express's daemons ({@code --via mpj}, also a {@code watch}
 * followed to the job's end); with no host named, {@code jobs} finds them in the starter's machines file.
 */
class MpjNiodevAcrossHostsTest {
    @Test
    void theLaunchHostSeesTheRanksOfANiodevJobOnTwoHosts() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        Path control = SimulatedHostsTest.control("mpj-across");
        Path localJobs = control.resolve("launch-host-jobs"); // none: no rank runs on the launch host
        // no job id given (as with a plain mpjrun.sh): each rank's agent names the job by the starter
        // its daemon got it from, the same on both hosts (by its parent's pid, its host's MPJ daemon,
        // it would be two jobs, one per host)
        JobSpec spec = JobSpec.builder(Binding.MPJ_NIODEV, 4, Tours.mainClass(Binding.MPJ_NIODEV))
                .classPath(Tours.classPath(Binding.MPJ_NIODEV)).agentJar(Tours.AGENT).jdwp(true).controlDir(control).build();
        spec.environment().require(Binding.MPJ_NIODEV);
        try (SimulatedHosts hosts = SimulatedHosts.up(2);
             MpjAcrossHosts mpj = MpjAcrossHosts.start(hosts, control.resolve("mpj"), spec.environment().mpjHome(),
                     spec.javaExecutable())) {
            String h1 = hosts.names().get(0), h2 = hosts.names().get(1), both = h1 + "," + h2;
            String[] hostOf = {h1, h1, h2, h2}; // MPJ's placement: np / machines ranks each, in machines-file order
            Map<String, String> env = hosts.frontEnd(localJobs, cli);
            mpj.launch(spec);
            mpj.awaitLines(l -> l.startsWith("MPILENS-PAUSE ") && l.endsWith("point=created"), 4, Tours.START);
            for (int r = 0; r < 4; r++) {
                String started = "Starting process <" + r + "> on <" + hostOf[r] + ">";
                assertTrue(mpj.output().contains(started), started + " in:\n" + String.join("\n", mpj.output()));
            }
            String id = hosts.exec(h1, "ls /tmp/mpilens-$(id -u)/jobs").trim();
            assertTrue(id.matches("mpj-\\S+-\\d+"), "the job named by its starter's host and port: " + id);
            assertEquals(id, hosts.exec(h2, "ls /tmp/mpilens-$(id -u)/jobs").trim(), "one job on both hosts");

            // 1. jobs: 4 of 4 ranks alive, MPJ Express's binding, both hosts
            Cli.Result jobs = Cli.mpilens(env, "jobs", "--hosts", both);
            assertEquals(0, jobs.code(), jobs.all());
            Cli.hasLine(jobs, Cli.jobsLineOfFourRanksOnTwoHosts(id, "mpj", h1, h2));
            Cli.Result json = Cli.mpilens(env, "jobs", "--hosts", both, "--json");
            assertEquals(0, json.code(), json.all());
            for (int r = 0; r < 4; r++) {
                String rank = "\"rank\":" + r + ",\"size\":4,\"pid\":\\d+,\"parentPid\":\\d+,\"host\":\"" + hostOf[r]
                        + "\",[^}]*\"alive\":true";
                assertTrue(Pattern.compile(rank).matcher(json.out()).find(), rank + " in " + json.all());
            }

            // 2. hostinfo: each host UP, its MPJ daemon (the ranks' parent), its two ranks answering
            Cli.Result hostinfo = Cli.mpilens(env, "hostinfo", "--job", id, "--hosts", both);
            assertEquals(0, hostinfo.code(), hostinfo.all());
            List<String> lines = hostinfo.out().lines().toList();
            for (int k = 0; k < 2; k++) {
                String host = hosts.names().get(k);
                long daemon = mpj.daemons().get(k);
                int box = box(lines, host, hostinfo);
                assertTrue(lines.get(box).matches("\\+- " + Pattern.quote(host) + " -+ UP -\\+"), hostinfo.all());
                int end = end(lines, box);
                assertTrue(lines.subList(box + 1, end).stream().anyMatch(l -> l.matches("\\| daemon  mpj-daemon pid " + daemon + " +\\|")),
                        host + "'s box names its MPJ daemon, pid " + daemon + ":\n" + hostinfo.all());
            }
            for (int r = 0; r < 4; r++) {
                int rank = r;
                int box = box(lines, hostOf[r], hostinfo);
                assertTrue(lines.subList(box + 1, end(lines, box)).stream()
                                .anyMatch(l -> l.matches("\\| rank " + rank + " +pid \\d+ +OK +answered +\\|")),
                        "rank " + r + " OK in " + hostOf[r] + "'s box:\n" + hostinfo.all());
            }

            // 3. cominfo and handles: the ranks' snapshots, sent by the collectors of both hosts
            Cli.Result cominfo = Cli.mpilens(env, "cominfo", "--job", id, "--hosts", both);
            assertEquals(0, cominfo.code(), cominfo.all());
            Cli.hasLine(cominfo, "\\+- MPI_COMM_WORLD -+ OK -\\+");
            assertTrue(cominfo.out().contains("| members 0-3 "), "all four ranks in MPI_COMM_WORLD:\n" + cominfo.all());
            Cli.Result handles = Cli.mpilens(env, "handles", "--job", id, "--hosts", both, "--json");
            assertEquals(0, handles.code(), handles.all());
            List<ProcessSnapshot> read = SnapshotJsonReader.read(handles.out().strip());
            assertEquals(List.of(0, 1, 2, 3), read.stream().map(ProcessSnapshot::rank).sorted().toList(), handles.all());
            for (ProcessSnapshot p : read) {
                assertEquals(hostOf[p.rank()], p.host(), "rank " + p.rank() + "'s host");
                HandleInfo world = p.handles().stream().filter(h -> "MPI_COMM_WORLD".equals(h.name())).findFirst()
                        .orElseThrow(() -> new AssertionError("MPI_COMM_WORLD of rank " + p.rank() + " in " + handles.all()));
                assertEquals(HandleKind.COMMUNICATOR, world.kind());
                assertEquals(p.rank(), world.rank(), "rank " + p.rank() + " in its MPI_COMM_WORLD");
                assertEquals(4, world.size());
                assertEquals(List.of(0, 1, 2, 3), java.util.Arrays.stream(world.members()).boxed().toList());
            }

            // 3b. the same through MPJ Express's daemons (--via mpj), the launcher of a niodev job: a
            // front end in a JVM of its own (the collectors run its CLI jar), with an ssh that cannot
            // start anything, the daemons' port named; then named by nobody, the port is the starter's -dport
            List<String> resolver = List.of("-Djdk.net.hosts.file=" + mpj.hostsFile());
            Map<String, String> viaMpj = Map.of("MPILENS_JOBS", localJobs.toString(), "NO_COLOR", "1", "MPILENS_SSH", "false",
                    "MPJ_HOME", mpj.launchHome().toString(), "MPILENS_MPJ_DAEMON_PORT", Integer.toString(mpj.daemonPort()));
            Cli.Result daemons = Cli.external(cli, resolver, viaMpj, "cominfo", "--job", id, "--hosts", both, "--via", "mpj");
            assertEquals(0, daemons.code(), daemons.all());
            Cli.hasLine(daemons, "\\+- MPI_COMM_WORLD -+ OK -\\+");
            assertTrue(daemons.out().contains("| members 0-3 "), "all four ranks, through the daemons:\n" + daemons.all());
            Cli.Result daemonHosts = Cli.external(cli, resolver, viaMpj, "hostinfo", "--job", id, "--hosts", both, "--via", "mpj");
            assertEquals(0, daemonHosts.code(), daemonHosts.all());
            List<String> viaLines = daemonHosts.out().lines().toList();
            for (int r = 0; r < 4; r++) {
                int rank = r;
                int box = box(viaLines, hostOf[r], daemonHosts);
                assertTrue(viaLines.get(box).matches("\\+- " + Pattern.quote(hostOf[r]) + " -+ UP -\\+"), daemonHosts.all());
                assertTrue(viaLines.subList(box + 1, end(viaLines, box)).stream()
                                .anyMatch(l -> l.matches("\\| rank " + rank + " +pid \\d+ +OK +answered +\\|")),
                        "rank " + r + " OK in " + hostOf[r] + "'s box, through the daemons:\n" + daemonHosts.all());
            }
            Map<String, String> viaMpjFound = new java.util.HashMap<>(viaMpj);
            viaMpjFound.remove("MPILENS_MPJ_DAEMON_PORT"); // the launch home's conf names another port: only -dport reaches them
            Cli.Result foundViaMpj = Cli.external(cli, resolver, viaMpjFound, "jobs", "--via", "mpj");
            assertEquals(0, foundViaMpj.code(), foundViaMpj.all());
            Cli.hasLine(foundViaMpj, Cli.jobsLineOfFourRanksOnTwoHosts(id, "mpj", h1, h2));
            assertTrue(foundViaMpj.err().contains("mpjrun pid " + mpj.pid() + " (machines file " + control.resolve("mpj/machines") + "): "
                            + both + " (collectors started with MPJ Express's daemons on its -dport " + mpj.daemonPort()),
                    "the starter's hosts, reached on its -dport:\n" + foundViaMpj.all());
            Cli.Result noDaemon = Cli.external(cli, resolver, viaMpjFound, "jobs", "--hosts", both, "--via", "mpj");
            assertEquals(3, noDaemon.code(), "no daemon on the launch home's own port: " + noDaemon.all());
            assertTrue(noDaemon.err().contains("no MPJ Express daemon answered at " + h1 + ":"), noDaemon.all());

            // 4. named by nobody: the hosts of the starter's machines file, reached with MPILENS_SSH
            Map<String, String> bare = hosts.frontEnd(localJobs, cli);
            Cli.Result found = Cli.mpilens(bare, "jobs");
            assertEquals(0, found.code(), found.all());
            Cli.hasLine(found, Cli.jobsLineOfFourRanksOnTwoHosts(id, "mpj", h1, h2));
            List<String> said = found.err().lines().filter(l -> l.startsWith("mpilens: also reading the hosts of mpjrun pid ")).toList();
            assertEquals(1, said.size(), "the hosts found are said once:\n" + found.all());
            assertTrue(said.get(0).contains("mpjrun pid " + mpj.pid() + " (machines file " + control.resolve("mpj/machines") + "): " + both),
                    "the starter, its machines file and both hosts:\n" + found.all());

            // 5. watch through the daemons (--via mpj; a collector per round, the daemon passes no input
            // to keep one): every rank OK, then FINALIZED, and the watch ends by itself with the job
            Cli.Running watch = Cli.start(cli, resolver, viaMpj, "watch", "--job", id, "--hosts", both, "--via", "mpj",
                    "--interval", "0.5");
            try {
                java.util.Set<Integer> ok = new java.util.TreeSet<>();
                Cli.await(watch.out, l -> {
                    if (l.endsWith(": OK") || l.contains(": OK  (")) ok.addAll(Cli.ranksOf(l));
                    return ok.containsAll(List.of(0, 1, 2, 3));
                }, "every rank of both hosts OK, through the daemons", Duration.ofSeconds(90));
                for (String point : Tours.POINTS) {
                    mpj.awaitLines(l -> l.startsWith("MPILENS-PAUSE ") && l.endsWith("point=" + point), 4, Tours.START);
                    Files.createFile(control.resolve(point + ".go"));
                }
                mpj.awaitLines(l -> l.startsWith("MPILENS-PAUSE ") && l.endsWith("point=finalized"), 4, Tours.START);
                java.util.Set<Integer> finalized = new java.util.TreeSet<>();
                Cli.await(watch.out, l -> {
                    if (l.contains(": OK -> FINALIZED")) finalized.addAll(Cli.ranksOf(l));
                    return finalized.containsAll(List.of(0, 1, 2, 3));
                }, "every rank FINALIZED, through the daemons", Duration.ofSeconds(90));
                Files.createFile(control.resolve("finalized.go"));
                assertEquals(0, mpj.waitFor(Tours.START), mpj.tail());
                int watchExit = watch.waitFor(Duration.ofSeconds(90));
                String watched = String.join("\n", watch.out.lines()) + "\n--- stderr:\n" + String.join("\n", watch.err.lines());
                assertEquals(0, watchExit, watched);
                assertTrue(watch.out.lines().stream().anyMatch(l -> l.endsWith("  job " + id + " has ended: 4 ranks finalized")),
                        "the watch saw the job end:\n" + watched);
                assertTrue(watch.out.lines().stream().noneMatch(l -> l.contains("FAILED")),
                        "no rank failed in a clean run:\n" + watched);
            } finally {
                watch.stop();
            }
        }
    }

    /** The index of the first line of {@code host}'s box. */
    private static int box(List<String> lines, String host, Cli.Result r) {
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("+- " + host + " ")) return i;
        throw new AssertionError("a box of " + host + " in:\n" + r.all());
    }

    /** The index after the box that starts at {@code box}: its closing line, or the next box. */
    private static int end(List<String> lines, int box) {
        for (int i = box + 1; i < lines.size(); i++) if (lines.get(i).startsWith("+")) return i;
        return lines.size();
    }
}
