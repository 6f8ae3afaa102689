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
 * from rank 0 with {@code MPI.ANY_TAG}. With {@code tags}, rank 0 receives tag 7 from rank 1 while
 * rank 1 sits in a synchronous send ({@code Ssend}) of tag 8 to rank 0. With {@code sendrecv},
 * ranks 0 and 1 each {@code Sendrecv} with the other, sending tag 7 and receiving tag 8. With
 * {@code intercomm}, ranks 0 and 1 receive from each other over an intercommunicator between the
 * groups [0, 3] and [4, 1] (made before the pause): rank 0 names the other as remote rank 1, rank
 * 1 as remote rank 0.
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
        mpi.Intercomm bridge = mode.equals("intercomm") ? bridge(rank) : null;
        Tour tour = new Tour(rank);
        tour.pause("ready");
        int[] buf = new int[2];
        System.out.println("MPILENS-STUCK owner=" + rank);
        System.out.flush();
        if (rank == 0 || rank == 1) {
            int other = 1 - rank;
            if (mode.equals("requests")) {
                mpi.Request.Waitall(new mpi.Request[] {MPI.COMM_WORLD.Irecv(buf, 0, 2, MPI.INT, other, TAG)});
            } else if (bridge != null) {
                bridge.Recv(buf, 0, 2, MPI.INT, rank == 0 ? 1 : 0, TAG);
            } else if (pair != null) {
                pair.Recv(buf, 0, 2, MPI.INT, rank == 0 ? MPI.ANY_SOURCE : 0, rank == 0 ? TAG : MPI.ANY_TAG);
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

    /**
     * The intercommunicator between [0, 3] and [4, 1] (leaders 0 and 4; made on the peer
     * communicator, COMM_WORLD, as the binding wants); rank 2 gets none.
     */
    private static mpi.Intercomm bridge(int rank) throws mpi.MPIException {
        int color = rank == 0 || rank == 3 ? 0 : rank == 1 || rank == 4 ? 1 : 2;
        mpi.Intracomm local = MPI.COMM_WORLD.Split(color, rank == 1 || rank == 3 ? 1 : 0);
        return color == 2 ? null : MPI.COMM_WORLD.Create_intercomm(local, 0, color == 0 ? 4 : 0, 99);
    }
}
