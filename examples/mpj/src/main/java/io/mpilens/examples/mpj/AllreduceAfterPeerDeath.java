package io.mpilens.examples.mpj;

import io.mpilens.examples.Tour;
import mpi.MPI;
import mpi.MPIException;

/**
 * A hang after a failure under MPJ Express niodev: every rank pauses at "ready" (the watcher
 * kills rank 2 meanwhile), then the survivors enter {@code Allreduce} on COMM_WORLD, which needs
 * the dead rank. Each prints {@code MPILENS-ALLREDUCE} first; if the device gives up with an
 * {@code MPIException} instead of blocking, it prints {@code MPILENS-CAUGHT} and pauses at "caught".
 */
public final class AllreduceAfterPeerDeath {
    private AllreduceAfterPeerDeath() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        Tour tour = new Tour(rank);
        tour.pause("ready");
        synchronized (System.out) {
            System.out.println("MPILENS-ALLREDUCE owner=" + rank);
            System.out.flush();
        }
        int[] in = {rank};
        int[] out = new int[1];
        String outcome = "none";
        try {
            MPI.COMM_WORLD.Allreduce(in, 0, out, 0, 1, MPI.INT, MPI.SUM);
        } catch (MPIException e) {
            outcome = e.getClass().getName();
        }
        synchronized (System.out) {
            System.out.println("MPILENS-CAUGHT owner=" + rank + " exception=" + outcome + " sum=" + out[0]);
            System.out.flush();
        }
        tour.pause("caught");
    }
}
