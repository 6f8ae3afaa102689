package io.mpilens.examples.openmpi;

import io.mpilens.examples.Tour;
import java.nio.IntBuffer;
import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Requests as the agent keeps them on Open MPI by default: in their wrappers and the request ring. Each rank posts
 * three receives from itself: one it keeps (tag 5), one whose wrapper it drops at once (tag 6,
 * still pending in MPI), and one on a duplicate of COMM_WORLD that it frees right away (tag 7:
 * the freed communicator is held by it). Pauses: {@code pending} (all three posted, garbage
 * collected), {@code done} (all three matched; the two kept ones waited for), {@code collected}
 * (the kept wrappers dropped and garbage collected), {@code end} (before MPI_Finalize).
 */
public final class RequestsInWrappers {
    private RequestsInWrappers() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        Tour tour = new Tour(rank);
        IntBuffer a = MPI.newIntBuffer(1), b = MPI.newIntBuffer(1), c = MPI.newIntBuffer(1);
        Request kept = MPI.COMM_WORLD.iRecv(a, 1, MPI.INT, rank, 5);
        postAndDrop(b, rank);
        Comm dup = MPI.COMM_WORLD.dup();
        Request onDup = dup.iRecv(c, 1, MPI.INT, rank, 7);
        dup.free();
        Tour.collectGarbage();
        tour.pause("pending");

        for (int tag : new int[] {5, 6}) MPI.COMM_WORLD.send(new int[] {tag}, 1, MPI.INT, rank, tag);
        // nothing can be sent on the freed duplicate any more: its receive is cancelled
        onDup.cancel();
        onDup.waitFor();
        kept.waitFor();
        Tour.collectGarbage();
        tour.pause("done");

        kept = null;
        onDup = null;
        dup = null;
        Tour.collectGarbage();
        tour.pause("collected");
        System.out.println("rank " + rank + ": " + a.get(0));
        tour.pause("end");
        MPI.Finalize();
    }

    private static void postAndDrop(IntBuffer b, int rank) throws MPIException {
        MPI.COMM_WORLD.iRecv(b, 1, MPI.INT, rank, 6); // the wrapper is dropped here; MPI still has the receive
    }
}
