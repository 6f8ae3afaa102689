package io.mpilens.examples.mpj;

import java.util.Locale;
import mpi.MPI;

/**
 * {@code Allreduce} of 4 doubles with {@code MPI.SUM}, in a loop timed on rank 0: the collective
 * of MPJ Express that its {@code Reduce} and {@code Bcast} make in Java, with an {@code Op} worker
 * per call. Prints, as the JGF section 1 benchmarks print their timers,
 * {@code Loop:Allreduce:Double<TAB>calls/s<TAB> (calls/s)<TAB> Array Size = 4}, the time per call and
 * the bytes rank 0's thread allocated per call (what the agent adds shows there whatever the load).
 *
 * <p>Arguments: seconds to run the timed loop for (default 2).
 */
public final class AllreduceRate {
    private AllreduceRate() {
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        double seconds = rest != null && rest.length > 0 ? Double.parseDouble(rest[0]) : 2.0;
        int rank = MPI.COMM_WORLD.Rank();
        double[] in = {rank, 1, 2, 3};
        double[] out = new double[4];
        for (int i = 0; i < 5_000; i++) MPI.COMM_WORLD.Allreduce(in, 0, out, 0, 4, MPI.DOUBLE, MPI.SUM); // warm-up
        // batches of calls until the time is reached; rank 0 decides and tells the others
        long calls = 0;
        double[] stop = new double[1];
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        MPI.COMM_WORLD.Barrier();
        double start = MPI.Wtime();
        while (stop[0] == 0) {
            // batches of 100: the rate's resolution is 50 calls/s over 2 s (batches of 1,000 gave 500, ≈ 2.7 %)
            for (int i = 0; i < 100; i++) MPI.COMM_WORLD.Allreduce(in, 0, out, 0, 4, MPI.DOUBLE, MPI.SUM);
            calls += 100;
            if (rank == 0 && MPI.Wtime() - start >= seconds) stop[0] = 1;
            MPI.COMM_WORLD.Bcast(stop, 0, 1, MPI.DOUBLE, 0);
        }
        double elapsed = MPI.Wtime() - start;
        // what this rank's thread allocated per call: the binding's buffers, and whatever the agent adds
        double bytes = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - allocated) / (double) calls;
        if (rank == 0) {
            System.out.println(String.format(Locale.ROOT, "Loop:Allreduce:Double\t%.1f\t (calls/s)\t Array Size = 4",
                    calls / elapsed));
            System.out.println(String.format(Locale.ROOT, "Allreduce of 4 doubles: %.2f us per call, %d calls in %.3f s,"
                    + " %.0f bytes allocated per call on rank 0", elapsed / calls * 1e6, calls, elapsed, bytes));
        }
        MPI.Finalize();
    }
}
