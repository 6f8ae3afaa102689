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
 * <p>Arguments: seconds of timed loop (default 5), cut into 5 equal windows after a warm-up of 2 s (so
 * the compiler is done with the loop on both sides); the rate printed is the median window's, so a
 * window in which the 2 CPUs were taken by something else does not decide it.
 */
public final class AllreduceRate {
    private static final int WINDOWS = 5;

    private AllreduceRate() {
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        double seconds = rest != null && rest.length > 0 ? Double.parseDouble(rest[0]) : 5.0;
        int rank = MPI.COMM_WORLD.Rank();
        double[] in = {rank, 1, 2, 3};
        double[] out = new double[4];
        loop(in, out, rank, 2.0); // warm-up, by time
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        long calls = 0;
        double elapsed = 0;
        double[] rates = new double[WINDOWS];
        for (int w = 0; w < WINDOWS; w++) {
            MPI.COMM_WORLD.Barrier();
            double start = MPI.Wtime();
            long n = loop(in, out, rank, seconds / WINDOWS);
            double took = MPI.Wtime() - start;
            rates[w] = n / took;
            calls += n;
            elapsed += took;
        }
        // what this rank's thread allocated per call: the binding's buffers, and whatever the agent adds
        double bytes = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - allocated) / (double) calls;
        java.util.Arrays.sort(rates);
        double median = rates[WINDOWS / 2];
        if (rank == 0) {
            System.out.println(String.format(Locale.ROOT, "Loop:Allreduce:Double\t%.1f\t (calls/s)\t Array Size = 4",
                    median));
            System.out.println(String.format(Locale.ROOT, "Allreduce of 4 doubles: %.2f us per call (median of %d windows,"
                    + " %.0f-%.0f calls/s), %d calls in %.3f s, %.0f bytes allocated per call on rank 0",
                    1e6 / median, WINDOWS, rates[0], rates[WINDOWS - 1], calls, elapsed, bytes));
        }
        MPI.Finalize();
    }

    /** Batches of 100 calls until rank 0 has seen {@code seconds} pass; every rank returns its count. */
    private static long loop(double[] in, double[] out, int rank, double seconds) throws Exception {
        long calls = 0;
        double[] stop = new double[1];
        double start = MPI.Wtime();
        while (stop[0] == 0) {
            // batches of 100: the rate's resolution is 100 calls per window
            for (int i = 0; i < 100; i++) MPI.COMM_WORLD.Allreduce(in, 0, out, 0, 4, MPI.DOUBLE, MPI.SUM);
            calls += 100;
            if (rank == 0 && MPI.Wtime() - start >= seconds) stop[0] = 1;
            MPI.COMM_WORLD.Bcast(stop, 0, 1, MPI.DOUBLE, 0);
        }
        return calls;
    }
}
