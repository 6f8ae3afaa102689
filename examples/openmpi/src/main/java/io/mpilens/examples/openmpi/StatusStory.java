package io.mpilens.examples.openmpi;

import io.mpilens.examples.Tour;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * A job whose status word goes through its states: every rank pauses at "ready" (a test reads it
 * OK, stops and continues a rank, kills one), then rank 0 makes a call MPI refuses — a send to a
 * rank that does not exist, under {@code MPI_ERRORS_RETURN} — and catches the {@code MPIException},
 * and every rank pauses at "raised", then finalizes. Arguments: {@code clean} (no error),
 * {@code linger=MS} (stay that long before {@code MPI_Finalize}, for a reader that looks every
 * second). Needs no particular number of ranks; run with {@code orte_abort_on_non_zero_status 0}
 * when a rank is killed.
 */
public final class StatusStory {
    private StatusStory() {
    }

    public static void main(String[] args) throws Exception {
        boolean clean = false;
        long linger = 0;
        for (String a : args) {
            if (a.equals("clean")) clean = true;
            else if (a.startsWith("linger=")) linger = Long.parseLong(a.substring("linger=".length()));
        }
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        world.setErrhandler(MPI.ERRORS_RETURN);
        Tour tour = new Tour(rank);
        tour.pause("ready");
        if (rank == 0 && !clean) {
            try {
                world.send(new int[] {1}, 1, MPI.INT, world.getSize() + 7, 5);
                System.out.println("MPILENS-RAISED owner=0 none");
            } catch (MPIException e) {
                System.out.println("MPILENS-RAISED owner=0 class=" + e.getErrorClass());
            }
            System.out.flush();
        }
        tour.pause("raised");
        if (linger > 0) Thread.sleep(linger);
        MPI.Finalize();
    }
}
