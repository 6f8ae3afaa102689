package io.mpilens.examples.openmpi;

import io.mpilens.examples.Tour;
import java.lang.management.ManagementFactory;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;

/**
 * FT-MPI's REBUILD with Open MPI's Java bindings: after a rank dies, the survivors detect it
 * (the status messages and deadline of {@link RecoverAfterFailure}), build a communicator of
 * themselves with {@code createGroup} ("survivors"), {@code spawn} one replacement JVM per failed
 * rank from it, {@code merge} with the replacements and {@code split} the merged communicator so
 * that every replacement takes the rank it replaces ("rebuilt", the size of COMM_WORLD again).
 * A barrier on it proves it works.
 *
 * <p>The replacement runs this class with {@code --replaces R}: the same JVM options as its
 * parent (the mpilens agent, JDWP), the class path first (mpirun rewrites java command lines
 * otherwise). It pauses at "joining" before MPI init, so the survivors wait inside {@code spawn}
 * meanwhile. Run with {@code --mca orte_abort_on_non_zero_status 0}. Nobody finalizes (MPI
 * finalize would wait for the dead rank): every process waits at "finished".
 */
public final class RebuildAfterFailure {
    private static final int TAG_SURVIVORS = 15;
    private static final String REPLACES = "--replaces";

    private RebuildAfterFailure() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && REPLACES.equals(args[0])) {
            replacement(Integer.parseInt(args[1]));
            return;
        }
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        Tour tour = new Tour(rank);
        tour.pause("ready");

        int[] live = RecoverAfterFailure.liveRanks(rank, size);
        Intracomm survivors = MPI.COMM_WORLD.createGroup(MPI.COMM_WORLD.getGroup().incl(live), TAG_SURVIVORS);
        survivors.setName("survivors");
        List<Integer> failed = new ArrayList<>();
        for (int r = 0, i = 0; r < size; r++) {
            if (i < live.length && live[i] == r) i++;
            else failed.add(r);
        }
        // one spawn per failed rank: each replacement is told which rank it replaces
        Intracomm group = survivors;
        for (int f : failed) {
            int[] errors = new int[1];
            Intercomm children = group.spawn(javaCommand(), replacementArguments(f), 1, MPI.INFO_NULL, 0, errors);
            group = children.merge(false);
        }
        Intracomm rebuilt = group.split(0, rank);
        rebuilt.setName("rebuilt");
        rebuilt.barrier();
        report(rank, rebuilt);
        tour.pause("rebuilt");
        tour.pause("finished");
    }

    private static void replacement(int replaces) throws Exception {
        Tour tour = new Tour(replaces);
        tour.pause("joining");
        MPI.Init(new String[0]);
        Intercomm parent = Intercomm.getParent();
        Intracomm merged = parent.merge(true);
        Intracomm rebuilt = merged.split(0, replaces);
        rebuilt.setName("rebuilt");
        rebuilt.barrier();
        report(replaces, rebuilt);
        tour.pause("rebuilt");
        tour.pause("finished");
    }

    private static void report(int owner, Intracomm rebuilt) throws Exception {
        synchronized (System.out) {
            System.out.println("MPILENS-REBUILT owner=" + owner + " rank=" + rebuilt.getRank() + " size=" + rebuilt.getSize()
                    + " pid=" + ProcessHandle.current().pid());
            System.out.flush();
        }
    }

    /** This JVM's own java launcher. */
    private static String javaCommand() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The class path first, then this JVM's own options (agent, JDWP, control directory), then the class. */
    private static String[] replacementArguments(int replaces) {
        List<String> a = new ArrayList<>();
        a.add("-cp");
        a.add(System.getProperty("java.class.path"));
        a.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        a.add(RebuildAfterFailure.class.getName());
        a.add(REPLACES);
        a.add(Integer.toString(replaces));
        return a.toArray(new String[0]);
    }
}
