package io.mpilens.examples.mpj;

import io.mpilens.examples.Tour;
import mpi.MPI;
import mpi.MPIException;

/**
 * What MPJ Express niodev does when a peer dies: every rank pauses at "ready" (the watcher kills
 * rank 2 meanwhile), then the survivors send to rank 2 until the device, which closed all its
 * channels when the peer's socket closed, raises an {@code MPIException}. Each survivor prints
 * {@code MPILENS-CAUGHT} and pauses at "caught", so the watcher can read what the agent recorded.
 */
public final class SendAfterPeerDeath {
    private static final long GIVE_UP_NANOS = 30_000_000_000L;

    private SendAfterPeerDeath() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        Tour tour = new Tour(rank);
        tour.pause("ready");
        int[] buf = {rank};
        long deadline = System.nanoTime() + GIVE_UP_NANOS;
        String outcome = "none";
        while (System.nanoTime() < deadline) {
            try {
                MPI.COMM_WORLD.Send(buf, 0, 1, MPI.INT, 2, 7);
            } catch (MPIException e) {
                outcome = e.getClass().getName();
                break;
            }
            Thread.sleep(50);
        }
        synchronized (System.out) {
            System.out.println("MPILENS-CAUGHT owner=" + rank + " exception=" + outcome);
            System.out.flush();
        }
        tour.pause("caught");
    }
}
