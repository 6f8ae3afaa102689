package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.ProcessTree;
import io.mpilens.testsupport.SimulatedHosts;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code mpilens run --mpirun-args "--host …"}: a job started by mpilens on two simulated hosts, none
 * of its ranks on the launch host, each with the agent and JDWP there; {@code cominfo --job ID} on the
 * launch host, with no host named, finds the hosts from that {@code mpirun} and reads all four ranks
 * through a collector on each; the job ends by itself and {@code run} exits 0. Real Open MPI, run
 * as a user runs it ({@code java -jar mpilens-cli.jar run …}).
 */
class RunAcrossHostsTest {
    @Test
    void runPutsRanksOnOtherHostsAndCominfoReadsThemThere() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        Path control = SimulatedHostsTest.control("run-across");
        Path localJobs = control.resolve("launch-host-jobs");
        try (SimulatedHosts hosts = SimulatedHosts.up(2)) {
            String h1 = hosts.names().get(0), h2 = hosts.names().get(1);
            String id = "run-across-" + ProcessHandle.current().pid();
            String cp = Tours.classPath(Binding.OPENMPI).stream().map(Path::toString).collect(Collectors.joining(":"));
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dmpilens.home=" + Tours.ROOT, "-Dmpilens.deps=" + Tours.ROOT.resolve(".deps"), "-jar", cli.toString(),
                    "run", "-np", "4", "--job-id", id, "--mca-continue",
                    "--mpirun-args", "--mca plm_rsh_agent " + hosts.rshAgent() + " --mca plm_rsh_no_tree_spawn 1 --host "
                            + h1 + ":2," + h2 + ":2",
                    "--", "-Dmpilens.control=" + control, "-cp", cp, "io.mpilens.examples.openmpi.HangAfterFailure"));
            ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            b.environment().keySet().removeIf(k -> k.startsWith("MPILENS_"));
            Process run = b.start();
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(run.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l; (l = r.readLine()) != null; ) lines.add(l);
                } catch (java.io.IOException e) {
                    lines.add("(reading run's output: " + e + ")");
                }
            }, "mpilens run output");
            reader.setDaemon(true);
            reader.start();
            try {
                awaitLines(lines, l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, run);
                assertTrue(lines.contains("mpilens: ranks elsewhere are read by a collector on each of mpirun's hosts"),
                        String.join("\n", lines));
                assertEquals(id, hosts.exec(h1, "ls /tmp/mpilens-$(id -u)/jobs").trim(), "the job id given, on " + h1);
                assertEquals(id, hosts.exec(h2, "ls /tmp/mpilens-$(id -u)/jobs").trim(), "the job id given, on " + h2);

                // nobody names the hosts: cominfo finds them from run's mpirun, reached by its plm_rsh_agent
                Map<String, String> env = Map.of("MPILENS_JOBS", localJobs.toString(), "NO_COLOR", "1",
                        "MPILENS_REMOTE", "java -jar " + cli);
                Cli.Result cominfo = Cli.mpilens(env, "cominfo", "--job", id);
                for (int again = 0; again < 2 && cominfo.out().contains("UNAVAILABLE"); again++) {
                    cominfo = Cli.mpilens(env, "cominfo", "--job", id); // a rank late under load: asked again
                }
                assertEquals(0, cominfo.code(), cominfo.all());
                assertTrue(Pattern.compile("mpilens: also reading the hosts of mpirun pid \\d+ \\(--host\\): "
                        + Pattern.quote(h1 + "," + h2)).matcher(cominfo.err()).find(), cominfo.all());
                Cli.hasLine(cominfo, "\\+- MPI_COMM_WORLD -+ OK -\\+");
                assertTrue(cominfo.out().contains("| members 0-3 "), "all four ranks in MPI_COMM_WORLD:\n" + cominfo.all());
                Cli.Result hostinfo = Cli.mpilens(env, "hostinfo", "--job", id);
                Cli.hasLine(hostinfo, "\\+- " + Pattern.quote(h1) + " -+ UP -\\+");
                Cli.hasLine(hostinfo, "\\+- " + Pattern.quote(h2) + " -+ UP -\\+");

                Files.createFile(control.resolve("ready.go"));
                assertTrue(run.waitFor(Tours.START.toSeconds(), TimeUnit.SECONDS), "run ends with its job:\n" + String.join("\n", lines));
                reader.join(5000);
                assertEquals(0, run.exitValue(), String.join("\n", lines));
                assertTrue(lines.contains("mpilens: job " + id + " ended, exit code 0"), String.join("\n", lines));
                assertEquals(4, lines.stream().filter(l -> l.contains("MPILENS-BARRIER ")).count(), String.join("\n", lines));
            } finally {
                // SIGTERM first (run ends its job), then SIGKILL to it and whatever it started still there
                ProcessTree.destroy(ProcessTree.withDescendants(List.of(run.toHandle())), 10_000);
            }
        }
    }

    private static void awaitLines(List<String> lines, java.util.function.Predicate<String> p, int n, Process run)
            throws InterruptedException {
        long deadline = System.nanoTime() + Tours.START.toNanos();
        while (lines.stream().filter(p).count() < n) {
            if (!run.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError((run.isAlive() ? "timed out" : "run ended (" + run.exitValue() + ")")
                        + " before " + n + " matching lines:\n" + String.join("\n", lines));
            }
            Thread.sleep(50);
        }
    }
}
