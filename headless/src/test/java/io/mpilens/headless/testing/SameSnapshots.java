package io.mpilens.headless.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mpilens.api.model.ProcessSnapshot;
import java.util.List;

/**
 * Two readings of the same moment (live and from a heap dump, a dump and its rewrite, a snapshot
 * and its JSON read back) must agree in every field a user can see; handle by handle, so a
 * failure names the handle.
 */
public final class SameSnapshots {
    private SameSnapshots() {
    }

    public static void assertSame(List<ProcessSnapshot> expected, List<ProcessSnapshot> actual) {
        assertEquals(expected.size(), actual.size(), "processes");
        for (int i = 0; i < expected.size(); i++) {
            ProcessSnapshot a = expected.get(i), b = actual.get(i);
            String p = "process " + i + " (rank " + a.rank() + "): ";
            assertEquals(a.rank(), b.rank(), p + "rank");
            assertEquals(a.worldSize(), b.worldSize(), p + "worldSize");
            assertEquals(a.pid(), b.pid(), p + "pid");
            assertEquals(a.host(), b.host(), p + "host");
            assertEquals(a.binding(), b.binding(), p + "binding");
            assertEquals(a.mpiState(), b.mpiState(), p + "mpiState");
            assertEquals(a.layoutVersion(), b.layoutVersion(), p + "layoutVersion");
            assertEquals(a.agentHealth(), b.agentHealth(), p + "agentHealth");
            assertEquals(a.tornRows(), b.tornRows(), p + "tornRows");
            assertEquals(a.handles().size(), b.handles().size(), p + "handles");
            for (int h = 0; h < a.handles().size(); h++) {
                assertEquals(a.handles().get(h), b.handles().get(h), p + "handle " + a.handles().get(h));
            }
            assertEquals(a.released(), b.released(), p + "released");
            assertEquals(a.errors(), b.errors(), p + "mpiErrors");
        }
    }
}
