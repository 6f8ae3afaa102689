package io.mpilens.headless.hprof;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mpilens.api.model.ProcessSnapshot;
import java.util.List;

/** Two readings of the same moment must agree in every field a user can see. */
final class SameSnapshots {
    private SameSnapshots() {
    }

    static void assertSame(List<ProcessSnapshot> live, List<ProcessSnapshot> dump) {
        assertEquals(live.size(), dump.size(), "processes");
        for (int i = 0; i < live.size(); i++) {
            ProcessSnapshot a = live.get(i), b = dump.get(i);
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
            assertEquals(a.handles(), b.handles(), p + "handles");
            assertEquals(a.released(), b.released(), p + "released");
        }
    }
}
