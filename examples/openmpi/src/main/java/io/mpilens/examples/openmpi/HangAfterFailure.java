package io.mpilens.examples.openmpi;

import io.mpilens.examples.Tour;
import mpi.MPI;

/**
 * A hang after a failure: every rank pauses at "ready" (the watcher kills rank 2 meanwhile),
 * then the survivors enter a barrier on COMM_WORLD that can never complete. Run with
 * {@code --mca orte_abort_on_non_zero_status 0} so mpirun leaves the survivors running.
 */
public final class HangAfterFailure {
    private HangAfterFailure() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        Tour tour = new Tour(rank);
        tour.pause("ready");
        System.out.println("MPILENS-BARRIER owner=" + rank);
        System.out.flush();
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}
