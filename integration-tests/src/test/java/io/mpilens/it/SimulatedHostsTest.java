package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.testsupport.SimulatedHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The simulated hosts of {@code scripts/simhosts} carry a real Open MPI job: 2 hosts x 2 ranks of
 * {@code HangAfterFailure} with the agent, started by {@code mpirun} on this machine through the
 * ssh stand-in. Each rank runs under its host's name, its agent's job record lands in that host's
 * own {@code /tmp} (seen only there), the ranks of both hosts meet in a barrier, and nothing is
 * left when the hosts go down.
 */
class SimulatedHostsTest {
    private static final Pattern RECORD = Pattern.compile("\"job\":\"([^\"]+)\",\"rank\":(\\d+).*\"host\":\"([^\"]+)\"");

    static JobSpec.Builder twoPerHost(SimulatedHosts hosts, String example, Path control) throws Exception {
        return JobSpec.builder(Binding.OPENMPI, 2 * hosts.names().size(), "io.mpilens.examples.openmpi." + example)
                .classPath(Tours.classPath(Binding.OPENMPI)).agentJar(Tours.AGENT).jdwp(true).controlDir(control)
                .mpirunArgs(hosts.mpirunArgs(2));
    }

    /** A control directory every simulated host sees: not under /tmp, which each host has of its own. */
    static Path control(String name) throws Exception {
        Path dir = Tours.ROOT.resolve("integration-tests/target/simhosts-" + name + "-" + ProcessHandle.current().pid());
        if (Files.exists(dir)) try (var w = Files.walk(dir)) {
            for (Path p : w.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
        return Files.createDirectories(dir);
    }

    @Test
    void eachRankRunsOnItsSimulatedHostAndRegistersInThatHostsOwnTmp() throws Exception {
        assumeTrue(SimulatedHosts.available(), "simulated hosts need root, unshare and nsenter");
        Path control = control("records");
        String stateDir;
        try (SimulatedHosts hosts = SimulatedHosts.up(2)) {
            List<String> names = hosts.names();
            stateDir = hosts.rshAgent().getParent().toString();
            for (String h : names) assertEquals(h, hosts.exec(h, "hostname").trim(), "the host's own name");
            try (Job job = Job.launch(twoPerHost(hosts, "HangAfterFailure", control).build())) {
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
                String jobId = null;
                for (int i = 0; i < names.size(); i++) {
                    String h = names.get(i);
                    String records = hosts.exec(h, "cat /tmp/mpilens-$(id -u)/jobs/*/rank-*.json; echo;"
                            + " stat -c %a /tmp/mpilens-$(id -u)/jobs/*/rank-*.json");
                    Matcher m = RECORD.matcher(records);
                    List<Integer> ranks = new java.util.ArrayList<>();
                    while (m.find()) {
                        ranks.add(Integer.parseInt(m.group(2)));
                        assertEquals(h, m.group(3), "rank " + m.group(2) + "'s host name is its simulated host's");
                        if (jobId == null) jobId = m.group(1);
                        assertEquals(jobId, m.group(1), "one job id on every host");
                    }
                    java.util.Collections.sort(ranks);
                    assertEquals(List.of(2 * i, 2 * i + 1), ranks, "the ranks mpirun placed on " + h + ":\n" + records);
                    assertTrue(records.contains("\n600\n600"), "records are 0600:\n" + records);
                }
                // the launch host has no record of this job: each host's /tmp is its own (a record of
                // an earlier job with the same id, Open MPI's job ids come from mpirun's pid, is no
                // record of this one: none of its ranks ran on a simulated host)
                Path launchHostJobs = Path.of("/tmp", "mpilens-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid"), "jobs");
                if (Files.isDirectory(launchHostJobs.resolve(jobId))) {
                    try (var records = Files.list(launchHostJobs.resolve(jobId))) {
                        for (Path r : (Iterable<Path>) records::iterator) {
                            String text = Files.readString(r);
                            for (String h : names) {
                                assertFalse(text.contains("\"host\":\"" + h + "\""), "a record of job " + jobId
                                        + " on " + h + " in the launch host's " + launchHostJobs + ": " + text);
                            }
                        }
                    }
                }
                job.release("ready");
                assertEquals(0, job.waitFor(Duration.ofSeconds(60)), job.tail());
                assertEquals(4, job.linesStartingWith("").stream().filter(l -> l.contains("MPILENS-BARRIER owner=")).count(),
                        "all ranks passed the barrier across the two hosts:\n" + job.tail());
            }
        }
        assertFalse(Files.exists(Path.of(stateDir)), "simhosts down removed " + stateDir);
    }
}
