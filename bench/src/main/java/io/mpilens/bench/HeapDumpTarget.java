package io.mpilens.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.agent.registry.RowSpec;
import io.mpilens.api.model.HandleKind;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JVM {@link HprofBench} dumps: one rank whose registry holds {@code handles} live handles (100
 * communicators with members, 900 datatypes, both with creation stacks, the rest keyed requests),
 * beside {@code objects} ballast objects — 7 in 8 a two-slot {@code Object[]} holding an
 * {@code Integer}, 1 in 8 a {@code long[8]} — so that the dump is large and made of many small
 * records, as real heaps are. It writes the dump itself through the HotSpot diagnostic MXBean, as
 * the agent's {@code dumpOnError} does, prints {@value #READY} and sleeps until killed.
 *
 * <p>Arguments: handles, ballast objects, dump file.
 */
public final class HeapDumpTarget {
    static final String READY = "HEAP-DUMP-TARGET-READY";
    static final int COMMUNICATORS = 100;
    static final int DATATYPES = 900;

    /** The application's objects: handle wrappers and ballast, reachable so the dump keeps them. */
    static Object[] keep;

    private HeapDumpTarget() {
    }

    public static void main(String[] args) throws Exception {
        int handles = Integer.parseInt(args[0]);
        int objects = Integer.parseInt(args[1]);
        Path dump = Path.of(args[2]);
        if (handles < COMMUNICATORS + DATATYPES) {
            throw new IllegalArgumentException("at least " + (COMMUNICATORS + DATATYPES) + " handles");
        }

        HandleRegistry r = HandleRegistry.INSTANCE;
        r.configure("bench", "openmpi", false);
        int p = r.process(HeapDumpTarget.class.getClassLoader());
        r.processInitialized(p, 0, 64);
        Object[] wrappers = new Object[handles];
        for (int i = 0; i < handles; i++) {
            Object w = new Object();
            wrappers[i] = w;
            if (i < COMMUNICATORS) {
                RowSpec s = spec(p, HandleKind.COMMUNICATOR, "mpi.Intracomm", "split", i);
                s.i1 = 8;
                s.members = new int[] {0, 1, 2, 3, 4, 5, 6, 7};
                r.add(w, s);
            } else if (i < COMMUNICATORS + DATATYPES) {
                RowSpec s = spec(p, HandleKind.DATATYPE, "mpi.Datatype", "createContiguous", i);
                s.l0 = s.l1 = 4L * i;
                r.add(w, s);
            } else {
                r.addRequest(w, 0x7f00_0000_0000L + 64L * i, p, "mpi.Request", "iRecv", i % 64, i % 1000, null,
                        false);
            }
        }

        Object[] ballast = new Object[objects];
        for (int i = 0; i < objects; i++) ballast[i] = i % 8 == 0 ? new long[8] : new Object[] {i, null};
        keep = new Object[] {wrappers, ballast};

        Files.deleteIfExists(dump);
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(dump.toString(), true);
        System.out.println(READY + " handles=" + handles + " objects=" + objects + " bytes=" + Files.size(dump));
        Thread.sleep(Long.MAX_VALUE);
    }

    private static RowSpec spec(int proc, HandleKind kind, String bindingClass, String call, int i) {
        RowSpec s = new RowSpec(kind);
        s.proc = proc;
        s.bindingClass = bindingClass;
        s.call = call;
        s.stack = new String[] {"app.Solver.setUp(Solver.java:" + (40 + i % 50) + ")", "app.Main.main(Main.java:17)"};
        return s;
    }
}
