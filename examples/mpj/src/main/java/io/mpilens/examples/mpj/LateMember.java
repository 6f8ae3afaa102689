package io.mpilens.examples.mpj;

import io.mpilens.examples.Tour;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;

/**
 * A collective on a communicator the application created, waiting for a late member: the ranks
 * split COMM_WORLD into {0, 2} and {1, 3}; rank 3 pauses at "late" before its {@code Allreduce}
 * on its half, so rank 1 waits inside that call (ranks 0 and 2 complete theirs and pause at "done").
 * Then each half is cloned into a twin with the same group, and rank 1 waits for a receive from
 * rank 3 on its twin while rank 3 pauses at "send": a request receiver, on a communicator that
 * only its identity tells apart from {@code half}.
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
        Intracomm twin = (Intracomm) half.clone();
        if (rank == 1) {
            int[] got = new int[1];
            Request recv = twin.Irecv(got, 0, 1, MPI.INT, 1, 5); // local rank 1 of {1, 3}: rank 3
            synchronized (System.out) {
                System.out.println("MPILENS-WAIT owner=" + rank);
                System.out.flush();
            }
            recv.Wait();
        } else if (rank == 3) {
            tour.pause("send");
            twin.Send(new int[] {rank}, 0, 1, MPI.INT, 0, 5);
        }
        tour.pause("done");
        MPI.Finalize();
    }
}
