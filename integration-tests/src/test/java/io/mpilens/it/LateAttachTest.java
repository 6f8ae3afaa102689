package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.WrapperLookup;
import io.mpilens.api.target.TargetObject;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar mpilens-agent.jar attach PID} on the ranks of an Open MPI job started without
 * the agent: the agent catches up with the MPI already initialised, and tracks what is created
 * from then on; what was created before it came is honestly not there.
 */
class LateAttachTest {
    private static final String SOURCE = "HandleTour.java";

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void agentAttachedToRunningRanksKnowsTheirRankAndWorldAndTracksWhatComesAfter(@TempDir Path control)
            throws Exception {
        Files.createDirectories(control);
        try (Job job = Job.launch(Tours.tour(Binding.OPENMPI, control).agentJar(null).agentOptions(null).build())) {
            // one connection per rank for the whole job: a JVM listening on port 0 moves after a detach
            List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, Binding.OPENMPI));
            try {
                Tours.awaitPause(job, "created");
                List<Long> pids = Tours.rankJvmPids(job);
                assertEquals(4, pids.size(), "rank JVMs of the job");
                for (long pid : pids) {
                    String said = attach(pid);
                    assertTrue(said.contains("mpilens: agent attached"), "attach tool output: " + said);
                }

                List<ProcessSnapshot> ranks = Tours.snapshot(readers, true);
                assertEquals(4, ranks.size(), "one registry with one MPI process per rank JVM");
                assertEquals(Set.of(0, 1, 2, 3), ranks.stream().map(ProcessSnapshot::rank).collect(Collectors.toSet()),
                        "ranks known to the late agents");
                assertEquals(new TreeSet<>(pids), ranks.stream().map(ProcessSnapshot::pid)
                        .collect(Collectors.toCollection(TreeSet::new)), "pids the agents report");
                for (ProcessSnapshot p : ranks) {
                    String where = "rank " + p.rank() + ": ";
                    assertEquals(MpiState.INITIALIZED, p.mpiState(), where + "MPI was initialised before the attach");
                    assertEquals(4, p.worldSize(), where + "world size");
                    assertEquals(0, p.agentHealth().internalErrors(), where + "agent errors, last: "
                            + p.agentHealth().lastError());
                    Optional<HandleInfo> world = p.handles().stream()
                            .filter(h -> h.kind() == HandleKind.COMMUNICATOR && "MPI_COMM_WORLD".equals(h.name()))
                            .findFirst();
                    assertTrue(world.isPresent(), where + "MPI_COMM_WORLD is there");
                    assertTrue(world.get().predefined(), where + "MPI_COMM_WORLD is predefined");
                    assertEquals(p.rank(), world.get().rank(), where + "rank in MPI_COMM_WORLD");
                    assertEquals(4, world.get().size(), where + "size of MPI_COMM_WORLD");
                    List<HandleInfo> before = p.handles().stream().filter(h -> fromTour(h)).collect(Collectors.toList());
                    assertEquals(List.of(), before, where + "handles created before the attach are not claimed");
                }

                job.release("created");
                Tours.awaitPause(job, "orphans");
                List<ProcessSnapshot> later = Tours.snapshot(readers, false);
                assertEquals(4, later.size());
                for (ProcessSnapshot p : later) {
                    Expectation dropped = job.linesStartingWith("MPILENS-EXPECT").stream().map(Expectation::parse)
                            .filter(e -> e.owner() == p.rank() && e.point().equals("orphans")
                                    && e.kind().equals("GROUP"))
                            .findFirst().orElseThrow(() -> new AssertionError("rank " + p.rank()
                                    + " printed no group at 'orphans'"));
                    ExpectationChecker c = new ExpectationChecker(p, SOURCE);
                    c.check(dropped); // the group dropped without free(): present, ACTIVE, leaked
                    assertEquals(List.of(), c.problems(), "rank " + p.rank() + ": the group created after the attach");
                }
                for (JdiTargetReader r : readers) {
                    // classes loaded before the attach cannot get the wrapper id field: the index answers
                    Map<TargetObject, Long> ids = new RegistryDecoder(r).wrapperIds();
                    assertFalse(ids.isEmpty(), "wrappers created after the attach are indexed");
                    WrapperLookup lookup = new WrapperLookup(r);
                    for (Map.Entry<TargetObject, Long> e : ids.entrySet()) {
                        assertEquals(-1, new RegistryDecoder(r).wrapperIdField(e.getKey()), e.getKey().typeName());
                        assertEquals((long) e.getValue(), lookup.idOf(e.getKey()), e.getKey().typeName());
                    }
                    assertTrue(lookup.indexRead());
                }
            } finally {
                Tours.disconnect(readers);
            }
            for (String point : new String[] {"orphans", "released", "finalized"}) job.release(point);
            assertEquals(0, job.waitFor(Tours.START), "job exit code; output:\n" + job.tail());
        }
    }

    /** {@code java -jar mpilens-agent.jar attach PID requestStacks=true}; returns what it printed. */
    private static String attach(long pid) throws IOException, InterruptedException {
        Path log = Files.createTempFile("mpilens-attach-", ".log");
        try {
            Process p = new ProcessBuilder("java", "-jar", Tours.AGENT.toString(), "attach", Long.toString(pid),
                    "requestStacks=true").redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            boolean done;
            try {
                done = p.waitFor(60, TimeUnit.SECONDS);
            } finally {
                p.destroyForcibly();
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(done, "attach to " + pid + " did not finish: " + out);
            assertEquals(0, p.exitValue(), "attach tool exit code for pid " + pid + "; it said: " + out);
            return out;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static boolean fromTour(HandleInfo h) {
        String site = h.createdAt();
        return site != null && site.contains("(" + SOURCE + ":");
    }
}
