package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.HostState;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.json.CollectorJson;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.testsupport.SimulatedHosts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The recovery story across hosts: {@code RecoverAfterFailure} on 4 simulated hosts x 2 ranks
 * (Open MPI, {@code orte_abort_on_non_zero_status 0}), read from the launch host, where no rank
 * runs, through a collector on each host. Both ranks of the third host are killed: that host is
 * DOWN and the others UP, COMM_WORLD is DETECTED with ranks 4 and 5 failed, and every survivor's
 * receives from them (only those) are pending on a failed peer. The survivors of the three other
 * hosts build a communicator of themselves: it is OK, derived from COMM_WORLD, which is RECOVERED.
 */
class RecoveryAcrossHostsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aWholeHostKilledIsDownItsRanksFailedAndTheOtherHostsRecover() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        Path control = SimulatedHostsTest.control("recovery");
        Path localJobs = control.resolve("launch-host-jobs"); // none: no rank runs on the launch host
        try (SimulatedHosts hosts = SimulatedHosts.up(4)) {
            List<String> names = hosts.names();
            JobSpec spec = JobSpec.builder(Binding.OPENMPI, 8, "io.mpilens.examples.openmpi.RecoverAfterFailure")
                    .classPath(Tours.classPath(Binding.OPENMPI)).agentJar(Tours.AGENT).jdwp(true).controlDir(control)
                    .mpirunArgs(hosts.mpirunArgs(2) + " --mca orte_abort_on_non_zero_status 0").build();
            try (Job job = Job.launch(spec);
                 HostCollectors collectors = HostCollectors.of(names, HostCollectors.Via.SSH,
                         Map.of(HostCollectors.SSH_ENV, hosts.rshAgent().toString()), "java -jar " + cli, CollectorJson::parse)) {
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 8, Tours.START);
                String id = hosts.exec(names.get(0), "ls /tmp/mpilens-$(id -u)/jobs").trim();
                JobObserver o = JobObserver.forJob(new JobDirectory(localJobs), id, TIMEOUT).withHosts(collectors);
                JobModel before = o.observeUntil(m -> m.processes().size() == 8
                        && m.processes().stream().allMatch(r -> r.state() == ProcessState.OK), Duration.ofMillis(500), Duration.ofSeconds(60));
                assertEquals(CommState.OK, before.communicator("MPI_COMM_WORLD").orElseThrow().state(), before.toString());
                for (HostView h : before.hosts()) assertEquals(HostState.UP, h.state(), h.toString());
                assertEquals(List.of(), before.pendingOnFailed(), "nobody failed yet");
                String third = names.get(2);
                HostView thirdHost = before.hosts().stream().filter(h -> h.host().equals(third)).findFirst().orElseThrow();
                assertEquals(List.of(4, 5), thirdHost.ranks().stream().map(r -> r.rank()).sorted().toList(), thirdHost.toString());

                // every rank of the third host: one PID namespace for all simulated hosts
                for (var r : thirdHost.ranks()) new ProcessBuilder("kill", "-9", Long.toString(r.pid())).inheritIO().start().waitFor();
                JobModel during = o.observeUntil(m -> m.rank(4).map(r -> r.state() == ProcessState.FAILED).orElse(false)
                                && m.rank(5).map(r -> r.state() == ProcessState.FAILED).orElse(false),
                        Duration.ofMillis(500), Duration.ofSeconds(60));
                for (HostView h : during.hosts()) {
                    assertEquals(h.host().equals(third) ? HostState.DOWN : HostState.UP, h.state(), h.toString());
                }
                CommunicatorView world = during.communicator("MPI_COMM_WORLD").orElseThrow();
                assertEquals(CommState.DETECTED, world.state());
                assertEquals(List.of(4, 5), world.failed());
                List<Integer> survivors = List.of(0, 1, 2, 3, 6, 7);
                for (int r : survivors) assertEquals(ProcessState.OK, during.rank(r).orElseThrow().state());
                // each survivor's news receives from ranks 4 and 5 are flagged; none from a live rank
                Set<String> flagged = new TreeSet<>();
                for (PendingOnFailedPeer p : during.pendingOnFailed()) {
                    assertEquals(11, p.tag(), p.toString());
                    assertEquals("iRecv", p.call(), p.toString());
                    assertEquals(world.key(), p.communicator(), p.toString());
                    flagged.add(p.rank() + "<-" + p.peer());
                }
                Set<String> expected = survivors.stream().flatMap(r -> java.util.stream.Stream.of(r + "<-4", r + "<-5"))
                        .collect(Collectors.toCollection(TreeSet::new));
                assertEquals(expected, flagged);

                job.release("ready");
                job.awaitLines(l -> l.contains("MPILENS-RECOVERED "), 6, Tours.START);
                for (String l : job.linesStartingWith("MPILENS-RECOVERED")) assertTrue(l.contains("live=0,1,2,3,6,7"), l);
                JobModel after = o.observeUntil(m -> m.communicator("survivors").isPresent()
                        && m.communicator("MPI_COMM_WORLD").map(c -> c.state() == CommState.RECOVERED).orElse(false),
                        Duration.ofMillis(500), Duration.ofSeconds(60));
                CommunicatorView recovered = after.communicator("survivors").orElse(null);
                assertNotNull(recovered, after.communicators().toString());
                CommunicatorView worldAfter = after.communicator("MPI_COMM_WORLD").orElseThrow();
                assertEquals(CommState.OK, recovered.state());
                assertEquals(survivors, recovered.members());
                assertEquals(worldAfter.key(), recovered.parent(), "lineage COMM_WORLD -> survivors");
                assertEquals(CommState.RECOVERED, worldAfter.state());
                assertEquals(List.of(recovered.key()), worldAfter.recoveredBy());
            }
        }
    }
}
