package io.mpilens.examples.mpj;

import io.mpilens.examples.Tour;
import java.util.ArrayList;
import java.util.List;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.Prequest;

/**
 * MPJ Express's collectives are Java code in the binding: each {@code Reduce} with a predefined
 * operation makes an {@code Op} worker ({@code SumDouble}, {@code MaxInt}, …) and sends and
 * receives on the binding's own communicator. The program runs many of them, makes its own
 * handles (one operation, many datatypes from one line, one from another line, two persistent
 * requests started many times), then pauses at "collectives" and prints on each rank {@code
 * MPILENS-SITES op=LINE types=LINE other=LINE count=N send=LINE recv=LINE}: what the agent must
 * show, and nothing of the binding's temporaries.
 */
public final class CollectiveTemporaries {
    static final int ROUNDS = 300;
    static final int TYPES = 40;

    private CollectiveTemporaries() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.Rank();
        Tour tour = new Tour(rank);
        Op maxAbs = new Op(new HandleTour.MaxAbs(), true); int opLine = Tour.here();
        double[] d = {rank, 1, 2, 3};
        double[] dsum = new double[4];
        int[] i = {rank};
        int[] imax = new int[1];
        for (int r = 0; r < ROUNDS; r++) {
            world.Allreduce(d, 0, dsum, 0, 4, MPI.DOUBLE, MPI.SUM);
            world.Reduce(i, 0, imax, 0, 1, MPI.INT, MPI.MAX, 0);
            world.Scan(i, 0, imax, 0, 1, MPI.INT, MPI.SUM);
            world.Allreduce(i, 0, imax, 0, 1, MPI.INT, maxAbs);
            world.Barrier();
        }
        // persistent requests: MPJ Express's Start makes a request with Isend (Irecv) each time and keeps its inner handle
        int peer = (rank + 1) % world.Size();
        int from = (rank - 1 + world.Size()) % world.Size();
        int[] out = {rank};
        int[] in = new int[1];
        Prequest send = world.Send_init(out, 0, 1, MPI.INT, peer, 5); int sendLine = Tour.here();
        Prequest recv = world.Recv_init(in, 0, 1, MPI.INT, from, 5); int recvLine = Tour.here();
        for (int r = 0; r < ROUNDS; r++) {
            recv.Start();
            send.Start();
            recv.Wait();
            send.Wait();
        }
        List<Datatype> kept = new ArrayList<>();
        int typesLine = 0;
        for (int t = 0; t < TYPES; t++) {
            kept.add(Datatype.Contiguous(t + 1, MPI.INT)); typesLine = Tour.here();
        }
        Datatype other = Datatype.Vector(2, 1, 3, MPI.INT); int otherLine = Tour.here();
        Tour.collectGarbage();
        System.out.println("MPILENS-SITES owner=" + rank + " op=" + opLine + " types=" + typesLine + " other=" + otherLine
                + " count=" + kept.size() + " send=" + sendLine + " recv=" + recvLine + " sum=" + dsum[0]);
        tour.pause("collectives");
        world.Barrier();
        other.Commit();
        // a Prequest has no free in MPJ Express: the two are dropped with the program
        maxAbs.free();
        MPI.Finalize();
    }
}
