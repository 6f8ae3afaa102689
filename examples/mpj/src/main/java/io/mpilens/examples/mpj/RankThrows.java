package io.mpilens.examples.mpj;

import mpi.MPI;

/**
 * Rank 2 dies of an uncaught exception once every rank has initialised MPI; the others wait for
 * it in a barrier. Under MPJ Express multicore (every rank a thread of one JVM) that exception
 * ends the whole JVM with exit code 0: only what the ranks left behind tells that it failed.
 */
public final class RankThrows {
    private RankThrows() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        MPI.COMM_WORLD.Barrier(); // every rank registered before one fails
        if (rank == 2) throw new IllegalStateException("rank 2 fails on purpose");
        MPI.COMM_WORLD.Barrier(); // never completes: rank 2 is gone
        MPI.Finalize();
    }
}
