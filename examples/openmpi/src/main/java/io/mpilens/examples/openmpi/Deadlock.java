package io.mpilens.examples.openmpi;

import io.mpilens.examples.Tour;
import mpi.MPI;

/**
 * A hang without a failure, for {@code mpilens calls --confirm}: after the pause "ready", ranks 0
 * and 1 each receive from the other first (a deadlock), rank 2 enters a barrier on COMM_WORLD
 * (stuck behind them), and ranks 3 and 4 play ping-pong forever (busy, never stuck, though a
 * single look often finds both inside {@code recv}). Five ranks; other ranks join the barrier.
 * With the argument {@code requests}, ranks 0 and 1 post an {@code iRecv} and wait for it with
 * {@code Request.waitAll} instead of a blocking {@code recv}. With {@code anysource}, ranks 0 and
 * 1 use a communicator {@code pair} of the two (split from COMM_WORLD before the pause): rank 0
 * receives from {@code MPI.ANY_SOURCE}, rank 1 from rank 0 with {@code MPI.ANY_TAG}. With {@code
 * tags}, rank 0 receives tag 7 from rank 1 while rank 1 sits in a synchronous send of tag 8 to
 * rank 0: the message is there, the tags do not match. With {@code sendrecv}, ranks 0 and 1 each
 * {@code sendRecv} with the other, sending tag 7 and receiving tag 8: both sends arrive, neither
 * receive matches. With {@code intercomm}, ranks 0 and 1 receive from each other over an
 * intercommunicator {@code bridge} between the groups [0, 3] and [4, 1] (made before the pause):
 * rank 0 names the other as remote rank 1, rank 1 as remote rank 0 — read through the local group
 * instead of the remote one, those would be the busy ranks 3 and 4.
 */
public final class Deadlock {
    private static final int TAG = 7;
    private static final int OTHER_TAG = 8;

    private Deadlock() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        mpi.Intracomm pair = null;
        if (mode.equals("anysource")) {
            pair = MPI.COMM_WORLD.split(rank < 2 ? 0 : 1, rank);
            pair.setName(rank < 2 ? "pair" : "others");
        }
        mpi.Intercomm bridge = mode.equals("intercomm") ? bridge(rank) : null;
        Tour tour = new Tour(rank);
        tour.pause("ready");
        int[] buf = new int[2];
        System.out.println("MPILENS-STUCK owner=" + rank);
        System.out.flush();
        if (rank == 0 || rank == 1) {
            int other = 1 - rank;
            if (mode.equals("requests")) {
                java.nio.IntBuffer in = MPI.newIntBuffer(2);
                mpi.Request.waitAll(new mpi.Request[] {MPI.COMM_WORLD.iRecv(in, 2, MPI.INT, other, TAG)});
            } else if (bridge != null) {
                bridge.recv(buf, 2, MPI.INT, rank == 0 ? 1 : 0, TAG);
            } else if (pair != null) {
                pair.recv(buf, 2, MPI.INT, rank == 0 ? MPI.ANY_SOURCE : 0, rank == 0 ? TAG : MPI.ANY_TAG);
            } else if (mode.equals("tags") && rank == 1) {
                MPI.COMM_WORLD.sSend(buf, 2, MPI.INT, other, OTHER_TAG);
            } else if (mode.equals("sendrecv")) {
                int[] in = new int[2];
                MPI.COMM_WORLD.sendRecv(buf, 2, MPI.INT, other, TAG, in, 2, MPI.INT, other, OTHER_TAG);
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

    /**
     * The intercommunicator between [0, 3] and [4, 1] (leaders 0 and 4; made on the peer
     * communicator, COMM_WORLD, as the binding wants); rank 2 gets none.
     */
    private static mpi.Intercomm bridge(int rank) throws mpi.MPIException {
        int color = rank == 0 || rank == 3 ? 0 : rank == 1 || rank == 4 ? 1 : 2;
        mpi.Intracomm local = MPI.COMM_WORLD.split(color, rank == 1 || rank == 3 ? 1 : 0);
        if (color == 2) return null;
        mpi.Intercomm bridge = MPI.COMM_WORLD.createIntercomm(local, 0, color == 0 ? 4 : 0, 99);
        bridge.setName("bridge");
        return bridge;
    }
}
