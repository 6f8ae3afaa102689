package io.mpilens.examples.openmpi.apps;

import java.util.Locale;
import java.util.Random;
import mpi.MPI;

/**
 * Successive over-relaxation on an N x N grid, the Java Grande Forum's section 2 SOR kernel as
 * a real application runs it on Open MPI: the grid's rows split in blocks, red-black sweeps, one
 * halo exchange with each neighbour ({@code sendRecv}) after each half sweep, a barrier around
 * the timed part. Written for Open MPI's Java API (no offsets: one array per row). Rank 0 prints
 * the timer as the JGF benchmarks do, each line in one write (mpirun tags every write): {@code Section2:SOR:Kernel:SizeA<TAB>t (s)<TAB>perf (Iterations/s)}.
 *
 * <p>Arguments: {@code A} or {@code B} (grid 1000 or 1500, as the JGF sizes), iterations (default 100).
 */
public final class Sor {
    private static final double OMEGA = 1.25;

    private Sor() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        String size = args.length > 0 ? args[0] : "A";
        int n = size.equals("B") ? 1500 : size.equals("C") ? 2000 : 1000;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rank = MPI.COMM_WORLD.getRank();
        int np = MPI.COMM_WORLD.getSize();
        int first = n * rank / np;
        int last = n * (rank + 1) / np; // rows [first, last) are this rank's
        double[][] g = new double[last - first + 2][]; // plus one halo row on each side
        Random random = new Random(10101010L);
        for (int row = 0; row < n; row++) {
            double[] values = new double[n];
            for (int j = 0; j < n; j++) values[j] = random.nextDouble() * 1e-6;
            if (row >= first && row < last) g[row - first + 1] = values;
        }
        g[0] = new double[n];
        g[g.length - 1] = new double[n];
        MPI.COMM_WORLD.barrier();
        double start = MPI.wtime();
        for (int it = 0; it < iterations; it++) {
            for (int colour = 0; colour < 2; colour++) {
                sweep(g, first, n, colour);
                exchange(g, rank, np, n);
            }
        }
        MPI.COMM_WORLD.barrier();
        double seconds = MPI.wtime() - start;
        double[] local = {0};
        for (int i = 1; i < g.length - 1; i++) for (double v : g[i]) local[0] += v;
        double[] total = new double[1];
        MPI.COMM_WORLD.reduce(local, total, 1, MPI.DOUBLE, MPI.SUM, 0);
        if (rank == 0) {
            System.out.println(String.format(Locale.ROOT, "Section2:SOR:Kernel:Size%s\t%.3f (s) \t %.5f\t (Iterations/s)", size, seconds,
                    iterations / seconds));
            System.out.println(String.format(Locale.ROOT, "SOR grid total %.9e", total[0]));
        }
        MPI.Finalize();
    }

    /** One colour of the red-black sweep over this rank's interior points. */
    private static void sweep(double[][] g, int first, int n, int colour) {
        double quarter = OMEGA / 4;
        double keep = 1 - OMEGA;
        for (int i = 1; i < g.length - 1; i++) {
            int row = first + i - 1;
            if (row == 0 || row == n - 1) continue; // the grid's boundary stays as it is
            double[] up = g[i - 1];
            double[] here = g[i];
            double[] down = g[i + 1];
            for (int j = 1 + ((row + colour) & 1); j < n - 1; j += 2) {
                here[j] = quarter * (up[j] + down[j] + here[j - 1] + here[j + 1]) + keep * here[j];
            }
        }
    }

    /** This rank's edge rows to its neighbours, their edge rows into the halo. */
    private static void exchange(double[][] g, int rank, int np, int n) throws Exception {
        int last = g.length - 1;
        if (rank + 1 < np) {
            MPI.COMM_WORLD.sendRecv(g[last - 1], n, MPI.DOUBLE, rank + 1, 1, g[last], n, MPI.DOUBLE, rank + 1, 2);
        }
        if (rank > 0) {
            MPI.COMM_WORLD.sendRecv(g[1], n, MPI.DOUBLE, rank - 1, 2, g[0], n, MPI.DOUBLE, rank - 1, 1);
        }
    }
}
