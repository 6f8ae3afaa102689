package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.text.HandleTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent option {@code requests=false} (no per-message cost): a real 4-rank Open MPI tour
 * runs to the end, no request is recorded, every snapshot says so, and the other kinds are
 * still tracked (the freed datatype still held by its derived one is an orphan).
 */
class RequestsOffTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void withRequestsOffNoRequestIsShownTheSnapshotSaysSoAndOtherOrphansRemain(@TempDir Path control) throws Exception {
        Files.createDirectories(control);
        try (Job job = Job.launch(Tours.tour(Binding.OPENMPI, control).agentOptions("requests=false").build())) {
            List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, Binding.OPENMPI));
            try {
                Tours.awaitPause(job, "created");
                job.release("created");
                Tours.awaitPause(job, "orphans");
                List<ProcessSnapshot> ranks = Tours.snapshot(readers, true);
                assertEquals(4, ranks.size());
                for (ProcessSnapshot p : ranks) {
                    String where = "rank " + p.rank() + ": ";
                    assertFalse(p.agentHealth().requestsTracked(), where + "the snapshot says requests are not tracked");
                    assertEquals(0, p.agentHealth().internalErrors(), where + p.agentHealth().lastError());
                    assertEquals(0, p.agentHealth().untrackedEvents(), where + "frees of untracked requests are not counted");
                    assertEquals(List.of(), p.handles().stream().filter(h -> h.kind() == HandleKind.REQUEST && !h.predefined())
                            .map(h -> h.creatingCall() + " " + h.bindingClass() + " at " + h.createdAt()).toList(), where + "no request but the predefined REQUEST_NULL");
                    Optional<HandleInfo> split = p.handles().stream()
                            .filter(h -> h.name() != null && h.name().startsWith("tour-split-")).findFirst();
                    assertTrue(split.isEmpty() || split.get().state() == Lifecycle.RELEASED,
                            where + "nothing holds the freed split (its pending iRecv is not known): " + split);
                    HandleInfo contig = p.handles().stream()
                            .filter(h -> h.kind() == HandleKind.DATATYPE && h.state() == Lifecycle.FREED)
                            .findFirst().orElseThrow(() -> new AssertionError(where + "the freed contiguous datatype"));
                    assertEquals(1, contig.refCount(), where + "held by the vector built from it");
                    String text = String.join("\n", new HandleTable(false).lines(p, null));
                    assertTrue(text.contains("requests not tracked (agent option requests=false)"), text);
                }
                Tours.toFinalized(job, "orphans");
            } finally {
                Tours.disconnect(readers);
            }
            Tours.finish(job);
        }
    }
}
