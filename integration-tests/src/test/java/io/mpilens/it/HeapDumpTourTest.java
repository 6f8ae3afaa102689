package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.headless.agentless.Agentless;
import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.agentless.BindingObject;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Post-mortem equals live: every rank JVM of a real 4-rank HandleTour, paused at "orphans" and
 * suspended by the debugger, is dumped with {@code jcmd PID GC.heap_dump}; each dump decodes
 * to exactly the snapshot read over JDI at that moment.
 */
class HeapDumpTourTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void openMpiDumpsOfTheOrphansPauseEqualTheLiveSnapshots(@TempDir Path control, @TempDir Path dumps) throws Exception {
        dumpsEqualLive(Binding.OPENMPI, control, dumps);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void mpjMulticoreDumpOfTheOrphansPauseEqualsTheLiveSnapshot(@TempDir Path control, @TempDir Path dumps) throws Exception {
        dumpsEqualLive(Binding.MPJ_MULTICORE, control, dumps);
    }

    private static void dumpsEqualLive(Binding b, Path control, Path dumps) throws Exception {
        Tours.atOrphans(b, control, (job, readers) -> {
            int orphans = 0;
            for (JdiTargetReader r : readers) {
                List<ProcessSnapshot> live;
                Path dump;
                r.virtualMachine().suspend();
                try {
                    live = new RegistryDecoder(r).decode();
                    Set<Long> pids = new LinkedHashSet<>();
                    for (ProcessSnapshot p : live) pids.add(p.pid());
                    assertEquals(1, pids.size(), "one pid per JVM");
                    long pid = pids.iterator().next();
                    dump = jcmdHeapDump(pid, dumps.resolve("rank-pid" + pid + ".hprof"));
                } finally {
                    r.virtualMachine().resume();
                }
                List<ProcessSnapshot> fromDump = HeapDumps.read(dump);
                assertSameSnapshots(live, fromDump);
                if (b == Binding.OPENMPI) agentlessShowsTheRegistrysCHandles(fromDump.get(0), dump);
                for (ProcessSnapshot p : fromDump) {
                    orphans += (int) p.handles().stream().filter(h -> h.state() == Lifecycle.FREED).count();
                }
            }
            assertTrue(orphans >= 4, "the dumps show the orphans of every rank: " + orphans);
        });
    }

    /**
     * Agentless mode on the same dump, forced although the registry is there: every C handle the
     * agent recorded for a live wrapper is the {@code handle} field of a binding object of that kind.
     */
    private static void agentlessShowsTheRegistrysCHandles(ProcessSnapshot registry, Path dump) {
        List<AgentlessProcess> reduced = Agentless.readDump(dump, true, null).agentless();
        assertEquals(1, reduced.size(), "one Open MPI process");
        Set<String> fields = new LinkedHashSet<>();
        for (BindingObject o : reduced.get(0).objects()) {
            // MPI_INFO_NULL is a live wrapper of the null handle: compare the field, whatever it holds
            if (o.cHandle() != null) fields.add(o.kind() + " " + Long.toHexString(o.cHandle()));
        }
        int checked = 0;
        for (HandleInfo h : registry.handles()) {
            if (h.state() != Lifecycle.ACTIVE || h.leaked() || h.cHandle() == 0 || h.kind() == HandleKind.REQUEST
                    || h.kind() == HandleKind.ERRHANDLER) {
                continue; // requests change handles as they complete; errhandler wrappers are made per call
            }
            assertTrue(fields.contains(h.kind() + " " + Long.toHexString(h.cHandle())),
                    "rank " + registry.rank() + ": " + h + " has no binding object with its C handle among " + fields);
            checked++;
        }
        assertTrue(checked >= 8, "C handles checked: " + checked);
    }

    static void assertSameSnapshots(List<ProcessSnapshot> live, List<ProcessSnapshot> dump) {
        assertEquals(live.size(), dump.size(), "processes");
        for (int i = 0; i < live.size(); i++) {
            ProcessSnapshot a = live.get(i), d = dump.get(i);
            String p = "rank " + a.rank() + ": ";
            assertEquals(a.rank(), d.rank(), p + "rank");
            assertEquals(a.worldSize(), d.worldSize(), p + "worldSize");
            assertEquals(a.pid(), d.pid(), p + "pid");
            assertEquals(a.host(), d.host(), p + "host");
            assertEquals(a.binding(), d.binding(), p + "binding");
            assertEquals(a.mpiState(), d.mpiState(), p + "mpiState");
            assertEquals(a.agentHealth(), d.agentHealth(), p + "agentHealth");
            assertEquals(a.tornRows(), d.tornRows(), p + "tornRows");
            assertEquals(a.handles(), d.handles(), p + "handles");
            assertEquals(a.released(), d.released(), p + "released");
        }
    }

    static Path jcmdHeapDump(long pid, Path file) throws IOException, InterruptedException {
        String java = ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElse(null);
        Path jcmd = java == null ? Path.of(System.getProperty("java.home"), "bin", "jcmd")
                : Path.of(java).resolveSibling("jcmd");
        List<String> cmd = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid), "GC.heap_dump",
                file.toAbsolutePath().toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.isRegularFile(file)) {
            throw new IOException("jcmd " + pid + " GC.heap_dump failed: " + out);
        }
        return file;
    }
}
