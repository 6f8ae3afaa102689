package io.mpilens.examples.mpj;

import io.mpilens.examples.Tour;
import mpi.Intracomm;
import mpi.MPI;

/**
 * A collective on a communicator the application created, waiting for a late member: the ranks
 * split COMM_WORLD into {0, 2} and {1, 3}; rank 3 pauses at "late" before its {@code Allreduce}
 * on its half, so rank 1 waits inside that call (ranks 0 and 2 complete theirs and pause at "done").
 */
public final class LateMember {
    private LateMember() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        Tour tour = new Tour(rank);
        Intracomm half = MPI.COMM_WORLD.Split(rank % 2, rank);
        tour.pause("ready");
        if (rank == 3) tour.pause("late");
        synchronized (System.out) {
            System.out.println("MPILENS-ALLREDUCE owner=" + rank);
            System.out.flush();
        }
        int[] in = {rank};
        int[] out = new int[1];
        half.Allreduce(in, 0, out, 0, 1, MPI.INT, MPI.SUM);
        synchronized (System.out) {
            System.out.println("MPILENS-REDUCED owner=" + rank + " sum=" + out[0]);
            System.out.flush();
        }
        tour.pause("done");
        MPI.Finalize();
    }
}
