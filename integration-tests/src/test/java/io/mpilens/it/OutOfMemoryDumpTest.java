package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * -XX:+HeapDumpOnOutOfMemoryError together with the agent's dumpOnError, as docs/cli.md shows: a
 * real Open MPI rank with a small heap runs out of it; the JVM's own dump (written at the failed
 * allocation) and the agent's (written as the error kills the thread) both decode to its registry.
 */
class OutOfMemoryDumpTest {
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aRankOutOfHeapLeavesTheJvmsDumpAndTheAgentsBothWithItsMpiObjects(@TempDir Path dumps) throws Exception {
        Path testClasses = Paths.get(RunsOutOfHeap.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 1, RunsOutOfHeap.class.getName()).classPath(testClasses)
                .jvmOptions("-Xmx48m", "-XX:+HeapDumpOnOutOfMemoryError", "-XX:HeapDumpPath=" + dumps)
                .agentJar(Tours.AGENT).agentOptions("dumpOnError=true,dumpDir=" + dumps).build();
        try (Job job = Job.launch(spec)) {
            assertNotEquals(0, job.waitFor(Tours.START), "the rank died; output:\n" + job.tail());
            List<Path> files;
            try (var list = Files.list(dumps)) {
                files = list.sorted().collect(Collectors.toList());
            }
            assertTrue(job.output().stream().anyMatch(l -> l.contains("java.lang.OutOfMemoryError")),
                    "the rank died of OutOfMemoryError:\n" + job.tail());
            Path jvms = files.stream().filter(f -> f.getFileName().toString().matches("java_pid\\d+\\.hprof"))
                    .findFirst().orElseThrow(() -> new AssertionError("no dump of the JVM's own among " + files
                            + "; output:\n" + job.tail()));
            Path agents = files.stream().filter(f -> f.getFileName().toString().matches("mpilens-rank0-pid\\d+\\.hprof"))
                    .findFirst().orElseThrow(() -> new AssertionError("no dumpOnError dump among " + files
                            + "; output:\n" + job.tail()));
            for (Path dump : List.of(jvms, agents)) {
                List<ProcessSnapshot> ranks = HeapDumps.read(dump);
                assertEquals(1, ranks.size(), dump.toString());
                ProcessSnapshot rank0 = ranks.get(0);
                assertEquals(0, rank0.rank(), dump.toString());
                assertEquals(MpiState.INITIALIZED, rank0.mpiState(), dump.toString());
                assertTrue(dump.getFileName().toString().contains("pid" + rank0.pid() + "."), dump + " pid " + rank0.pid());
                assertTrue(rank0.handles().stream().anyMatch(h -> h.kind() == HandleKind.COMMUNICATOR
                        && "dup".equals(h.creatingCall())), dump + ": the duplicated communicator: " + rank0.handles());
            }
        }
    }
}
