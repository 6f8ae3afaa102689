package io.mpilens.examples.openmpi;

import io.mpilens.examples.Tour;
import java.io.File;
import mpi.MPI;

/**
 * One rank that leaks in a loop: every 100 ms it takes COMM_WORLD's group and drops its wrapper without
 * {@code free()}, then collects garbage, so the count of leaked handles on that rank grows while
 * the job runs (an alarm of the status word, judged between two looks). The other ranks sleep
 * meanwhile (no MPI call: nothing spins). Every rank pauses at "ready" first; the loop runs until
 * {@code leaking.go} appears in the control directory ({@code -Dmpilens.control} or
 * {@code $MPILENS_CONTROL}), or for {@code seconds=S} (default 5) without one; then a barrier and
 * {@code MPI_Finalize}. Arguments: {@code rank=R} (default 1), {@code seconds=S}.
 */
public final class LeakingRank {
    private LeakingRank() {
    }

    public static void main(String[] args) throws Exception {
        int leaker = 1;
        long seconds = 5;
        for (String a : args) {
            if (a.startsWith("rank=")) leaker = Integer.parseInt(a.substring("rank=".length()));
            else if (a.startsWith("seconds=")) seconds = Long.parseLong(a.substring("seconds=".length()));
        }
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        Tour tour = new Tour(rank);
        tour.pause("ready");
        String control = System.getProperty("mpilens.control", System.getenv("MPILENS_CONTROL"));
        File stop = control == null ? null : new File(control, "leaking.go");
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        if (rank == leaker) {
            synchronized (System.out) {
                System.out.println("MPILENS-LEAKING owner=" + rank);
                System.out.flush();
            }
        }
        int leaked = 0;
        while (stop != null ? !stop.exists() : System.nanoTime() < end) {
            if (rank == leaker) {
                MPI.COMM_WORLD.getGroup(); // its wrapper dropped at once, never freed (as HandleTour's)
                leaked++;
                System.gc(); // the agent marks a collected wrapper leaked at its next MPI call
            }
            Thread.sleep(100);
        }
        if (rank == leaker) System.out.println("MPILENS-LEAKED owner=" + rank + " count=" + leaked);
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}
