package io.mpilens.examples.mpj;

import io.mpilens.examples.Tour;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Requests as the agent keeps them on MPJ Express by default: in their wrappers and the request
 * ring (the same story as the Open MPI example of this name). Each rank posts three receives from
 * itself: one it keeps (tag 5), one whose wrapper it drops at once (tag 6, still pending in MPI),
 * and one on a duplicate of COMM_WORLD, with the send that matches it, before it frees the
 * duplicate (tag 7: the freed communicator is held by both; MPJ Express has no
 * {@code Request.Cancel()}, which the Open MPI example uses instead of the send). Pauses: {@code pending} (all three posted, garbage collected), {@code done} (all
 * three matched; the two kept ones waited for), {@code collected} (the kept wrappers dropped and
 * garbage collected), {@code end} (before MPI_Finalize).
 */
public final class RequestsInWrappers {
    private RequestsInWrappers() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        Tour tour = new Tour(rank);
        int[] a = new int[1], b = new int[1], c = new int[1];
        Request kept = MPI.COMM_WORLD.Irecv(a, 0, 1, MPI.INT, rank, 5);
        postAndDrop(b, rank);
        Intracomm dup = (Intracomm) MPI.COMM_WORLD.clone();
        Request onDup = dup.Irecv(c, 0, 1, MPI.INT, rank, 7);
        Request sendOnDup = dup.Isend(new int[] {7}, 0, 1, MPI.INT, rank, 7);
        dup.Free();
        Tour.collectGarbage();
        tour.pause("pending");

        for (int tag : new int[] {5, 6}) MPI.COMM_WORLD.Send(new int[] {tag}, 0, 1, MPI.INT, rank, tag);
        sendOnDup.Wait();
        onDup.Wait();
        kept.Wait();
        Tour.collectGarbage();
        tour.pause("done");

        kept = null;
        onDup = null;
        sendOnDup = null;
        dup = null;
        Tour.collectGarbage();
        tour.pause("collected");
        System.out.println("rank " + rank + ": " + a[0]);
        tour.pause("end");
        MPI.Finalize();
    }

    private static void postAndDrop(int[] b, int rank) throws MPIException {
        MPI.COMM_WORLD.Irecv(b, 0, 1, MPI.INT, rank, 6); // the wrapper is dropped here; MPI still has the receive
    }
}
