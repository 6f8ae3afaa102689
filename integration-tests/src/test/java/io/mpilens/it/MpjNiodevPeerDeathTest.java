package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * MPJ Express niodev, 4 ranks: rank 2 is killed, the survivors' sends to it raise
 * {@code MPIException}s, and the agent has recorded each one with its communicator, peer and cause.
 */
class MpjNiodevPeerDeathTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void survivorsMpiExceptionsAreRecordedWithCommunicatorPeerAndCause(@TempDir Path control) throws Exception {
        JobSpec spec = JobSpec.builder(Binding.MPJ_NIODEV, 4, "io.mpilens.examples.mpj.SendAfterPeerDeath")
                .classPath(Tours.classPath(Binding.MPJ_NIODEV)).agentJar(Tours.AGENT).jdwp(true).controlDir(control)
                .build();
        try (Job job = Job.launch(spec)) {
            List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, Binding.MPJ_NIODEV));
            try {
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, Tours.START);
                List<JdiTargetReader> survivors = new ArrayList<>();
                long victim = -1;
                for (JdiTargetReader r : readers) {
                    ProcessSnapshot p = new RegistryDecoder(r).decode().get(0);
                    if (p.rank() == 2) victim = p.pid(); else survivors.add(r);
                }
                assertTrue(victim > 0, "rank 2 found");
                new ProcessBuilder("kill", "-9", Long.toString(victim)).inheritIO().start().waitFor();
                job.release("ready");
                List<String> caught = job.awaitLines(l -> l.contains("MPILENS-CAUGHT "), 3, Tours.START);
                for (String l : caught) assertFalse(l.endsWith("exception=none"), l + "\n" + job.tail());

                for (ProcessSnapshot p : Tours.snapshot(survivors, false)) {
                    HandleInfo world = p.handles().stream().filter(h -> "MPI_COMM_WORLD".equals(h.name()))
                            .findFirst().orElseThrow();
                    assertFalse(p.errors().isEmpty(), "rank " + p.rank() + " recorded its MPIException");
                    MpiError e = p.errors().get(0);
                    assertEquals("Send", e.call(), e.toString());
                    assertEquals(world.id(), e.handleId(), e.toString());
                    assertEquals(2, e.peer(), e.toString());
                    assertEquals("java.nio.channels.ClosedChannelException", e.causeClass(), e.toString());
                }
            } finally {
                Tours.disconnect(readers);
            }
        }
    }
}
