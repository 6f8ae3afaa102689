package io.mpilens.examples.mpj;

import io.mpilens.examples.Tour;
import mpi.MPI;

/**
 * The MPJ Express twin of {@code examples.openmpi.Deadlock}: after the pause "ready", ranks 0 and
 * 1 each receive from the other first (a deadlock), rank 2 enters a barrier on COMM_WORLD (stuck
 * behind them), ranks 3 and 4 play ping-pong forever. Five ranks; other ranks join the barrier.
 * With the argument {@code requests}, ranks 0 and 1 post an {@code Irecv} and wait for it with
 * {@code Request.Waitall}. With {@code anysource}, ranks 0 and 1 use a communicator of the two
 * (split from COMM_WORLD before the pause): rank 0 receives from {@code MPI.ANY_SOURCE}, rank 1
 * from rank 0. With {@code tags}, rank 0 receives tag 7 from rank 1 while rank 1 sits in a
 * synchronous send ({@code Ssend}) of tag 8 to rank 0. With {@code sendrecv}, ranks 0 and 1 each
 * {@code Sendrecv} with the other, sending tag 7 and receiving tag 8.
 */
public final class Deadlock {
    private static final int TAG = 7;
    private static final int OTHER_TAG = 8;

    private Deadlock() {
    }

    public static void main(String[] args) throws Exception {
        // MPJ Express passes its own arguments first: MPI.Init returns the application's
        String[] app = MPI.Init(args);
        String mode = app.length > 0 ? app[0] : "";
        int rank = MPI.COMM_WORLD.Rank();
        mpi.Intracomm pair = mode.equals("anysource") ? MPI.COMM_WORLD.Split(rank < 2 ? 0 : 1, rank) : null;
        Tour tour = new Tour(rank);
        tour.pause("ready");
        int[] buf = new int[2];
        System.out.println("MPILENS-STUCK owner=" + rank);
        System.out.flush();
        if (rank == 0 || rank == 1) {
            int other = 1 - rank;
            if (mode.equals("requests")) {
                mpi.Request.Waitall(new mpi.Request[] {MPI.COMM_WORLD.Irecv(buf, 0, 2, MPI.INT, other, TAG)});
            } else if (pair != null) {
                pair.Recv(buf, 0, 2, MPI.INT, rank == 0 ? MPI.ANY_SOURCE : 0, TAG);
            } else if (mode.equals("tags") && rank == 1) {
                MPI.COMM_WORLD.Ssend(buf, 0, 2, MPI.INT, other, OTHER_TAG);
            } else if (mode.equals("sendrecv")) {
                int[] in = new int[2];
                MPI.COMM_WORLD.Sendrecv(buf, 0, 2, MPI.INT, other, TAG, in, 0, 2, MPI.INT, other, OTHER_TAG);
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
