package io.mpilens.examples.openmpi;

import io.mpilens.examples.Tour;
import mpi.MPI;

/**
 * A hang without a failure, for {@code mpilens calls --confirm}: after the pause "ready", ranks
 * 0 and 1 each receive from the other first (a deadlock), rank 2 enters a barrier on COMM_WORLD
 * (stuck behind them), and ranks 3 and 4 play ping-pong forever (busy, never stuck, though a
 * single look often finds both inside {@code recv}). Five ranks; other ranks join the barrier.
 * With the argument {@code requests}, ranks 0 and 1 post an {@code iRecv} and wait for it with
 * {@code Request.waitAll} instead of a blocking {@code recv}.
 */
public final class Deadlock {
    private static final int TAG = 7;

    private Deadlock() {
    }

    public static void main(String[] args) throws Exception {
        boolean requests = args.length > 0 && args[0].equals("requests");
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        Tour tour = new Tour(rank);
        tour.pause("ready");
        int[] buf = new int[2];
        System.out.println("MPILENS-STUCK owner=" + rank);
        System.out.flush();
        if (rank == 0 || rank == 1) {
            int other = 1 - rank;
            if (requests) {
                java.nio.IntBuffer in = MPI.newIntBuffer(2);
                mpi.Request.waitAll(new mpi.Request[] {MPI.COMM_WORLD.iRecv(in, 2, MPI.INT, other, TAG)});
            } else {
                MPI.COMM_WORLD.recv(buf, 2, MPI.INT, other, TAG);
            }
            MPI.COMM_WORLD.send(buf, 2, MPI.INT, other, TAG);
        } else if (rank == 3 || rank == 4) {
            int other = rank == 3 ? 4 : 3;
            for (long i = 0; ; i++) {
                buf[0] = (int) i;
                if (rank == 3) {
                    MPI.COMM_WORLD.send(buf, 2, MPI.INT, other, TAG);
                    MPI.COMM_WORLD.recv(buf, 2, MPI.INT, other, TAG);
                } else {
                    MPI.COMM_WORLD.recv(buf, 2, MPI.INT, other, TAG);
                    MPI.COMM_WORLD.send(buf, 2, MPI.INT, other, TAG);
                }
            }
        } else {
            MPI.COMM_WORLD.barrier();
        }
        MPI.Finalize();
    }
}
