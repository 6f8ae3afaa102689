package io.mpilens.agent;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.mpilens.agent.registry.HandleRegistry;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Option {@code dumpOnError}: when a thread dies of an uncaught exception while MPI is
 * initialized in this JVM, or of an exception thrown by the binding, the heap (and with it the
 * registry) is written to {@code mpilens-rank<R>-pid<P>.hprof} before the previous handler runs,
 * so {@code mpilens dump} can show the rank's MPI objects after it is gone. One dump per JVM.
 */
final class ErrorDumps implements Thread.UncaughtExceptionHandler {
    private static final int MAX_PROCESSES = 1024;
    private final Thread.UncaughtExceptionHandler previous;
    private final File dir;
    private final AtomicBoolean written = new AtomicBoolean();

    private ErrorDumps(Thread.UncaughtExceptionHandler previous, File dir) {
        this.previous = previous;
        this.dir = dir;
    }

    /** Chains in front of the default handler installed so far (if any). */
    static void install(String dumpDir) {
        File dir = new File(dumpDir == null || dumpDir.isEmpty() ? "." : dumpDir);
        Thread.setDefaultUncaughtExceptionHandler(new ErrorDumps(Thread.getDefaultUncaughtExceptionHandler(), dir));
    }

    @Override
    public void uncaughtException(Thread t, Throwable e) {
        try {
            List<Integer> ranks = initializedRanks();
            if ((!ranks.isEmpty() || fromMpi(e)) && written.compareAndSet(false, true)) dump(t, e, ranks);
        } catch (Throwable failure) {
            System.err.println("mpilens: dumpOnError could not write a heap dump: " + failure);
        } finally {
            if (previous != null) {
                previous.uncaughtException(t, e);
            } else { // what ThreadGroup.uncaughtException prints when no handler is set
                System.err.print("Exception in thread \"" + t.getName() + "\" ");
                e.printStackTrace(System.err);
            }
        }
    }

    private void dump(Thread t, Throwable e, List<Integer> ranks) throws Exception {
        long pid = ProcessHandle.current().pid();
        String who = ranks.size() == 1 ? "rank" + ranks.get(0) + "-" : "";
        File file = new File(dir, "mpilens-" + who + "pid" + pid + ".hprof");
        for (int i = 1; file.exists(); i++) file = new File(dir, "mpilens-" + who + "pid" + pid + "-" + i + ".hprof");
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        hotspot.dumpHeap(file.getAbsolutePath(), true);
        System.err.println("mpilens: " + (ranks.size() == 1 ? "rank " + ranks.get(0) : "this JVM") + " is dying of "
                + e.getClass().getName() + " in thread \"" + t.getName() + "\"; heap dump with its MPI objects: "
                + file.getAbsolutePath() + " (read it with: mpilens dump " + file.getName() + ")");
    }

    /** COMM_WORLD ranks of the MPI processes of this JVM that are between init and finalize. */
    private static List<Integer> initializedRanks() {
        HandleRegistry r = HandleRegistry.INSTANCE;
        List<Integer> out = new ArrayList<>();
        for (int p = 0; p < MAX_PROCESSES; p++) if (r.isInitialized(p)) out.add(r.rankOf(p));
        return out;
    }

    /** Thrown by, or through, the binding (Open MPI's and MPJ Express's classes live in {@code mpi.*}). */
    private static boolean fromMpi(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c.getClass().getName().startsWith("mpi.")) return true;
            for (StackTraceElement f : c.getStackTrace()) if (f.getClassName().startsWith("mpi.")) return true;
        }
        return false;
    }
}
