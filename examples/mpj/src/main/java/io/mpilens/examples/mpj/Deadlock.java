package io.mpilens.examples.mpj;

import io.mpilens.examples.Tour;
import mpi.MPI;

/**
 * The MPJ Express twin of {@code examples.openmpi.Deadlock}: after the pause "ready", ranks 0 and
 * 1 each receive from the other first (a deadlock), rank 2 enters a barrier on COMM_WORLD (stuck
 * behind them), ranks 3 and 4 play ping-pong forever. Five ranks; other ranks join the barrier.
 * With the argument {@code requests}, ranks 0 and 1 post an {@code Irecv} and wait for it with
 * {@code Request.Waitall}.
 */
public final class Deadlock {
    private static final int TAG = 7;

    private Deadlock() {
    }

    public static void main(String[] args) throws Exception {
        // MPJ Express passes its own arguments first: MPI.Init returns the application's
        String[] app = MPI.Init(args);
        boolean requests = app.length > 0 && app[0].equals("requests");
        int rank = MPI.COMM_WORLD.Rank();
        Tour tour = new Tour(rank);
        tour.pause("ready");
        int[] buf = new int[2];
        System.out.println("MPILENS-STUCK owner=" + rank);
        System.out.flush();
        if (rank == 0 || rank == 1) {
            int other = 1 - rank;
            if (requests) {
                mpi.Request.Waitall(new mpi.Request[] {MPI.COMM_WORLD.Irecv(buf, 0, 2, MPI.INT, other, TAG)});
            } else {
                MPI.COMM_WORLD.Recv(buf, 0, 2, MPI.INT, other, TAG);
            }
            MPI.COMM_WORLD.Send(buf, 0, 2, MPI.INT, other, TAG);
        } else if (rank == 3 || rank == 4) {
            int other = rank == 3 ? 4 : 3;
            for (long i = 0; ; i++) {
                buf[0] = (int) i;
                if (rank == 3) {
                    MPI.COMM_WORLD.Send(buf, 0, 2, MPI.INT, other, TAG);
                    MPI.COMM_WORLD.Recv(buf, 0, 2, MPI.INT, other, TAG);
                } else {
                    MPI.COMM_WORLD.Recv(buf, 0, 2, MPI.INT, other, TAG);
                    MPI.COMM_WORLD.Send(buf, 0, 2, MPI.INT, other, TAG);
                }
            }
        } else {
            MPI.COMM_WORLD.Barrier();
        }
        MPI.Finalize();
    }
}
