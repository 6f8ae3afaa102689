package io.mpilens.examples.openmpi.apps;

import java.util.Locale;
import java.util.Random;
import mpi.MPI;

/**
 * Sparse matrix times vector, the Java Grande Forum's section 2 SparseMatmult kernel as a real
 * application runs it on Open MPI: a random N x N matrix of nz entries, each rank multiplies its
 * share of the entries and an {@code allReduce} gives every rank the whole product, once per
 * iteration. Rank 0 prints the timer as the JGF benchmarks do:
 * {@code Section2:SparseMatmult:Kernel:SizeA<TAB>t (s)<TAB>perf (Iterations/s)}.
 *
 * <p>Arguments: {@code A} or {@code B} (N 50,000 or 100,000 with nz 250,000 or 500,000, as the JGF
 * sizes), iterations (default 200).
 */
public final class SparseMatmult {
    private SparseMatmult() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        String size = args.length > 0 ? args[0] : "A";
        int n = size.equals("B") ? 100_000 : 50_000;
        int nz = size.equals("B") ? 500_000 : 250_000;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int rank = MPI.COMM_WORLD.getRank();
        int np = MPI.COMM_WORLD.getSize();
        // every rank draws the same matrix and keeps its share of the entries
        Random random = new Random(10101010L);
        double[] x = new double[n];
        for (int i = 0; i < n; i++) x[i] = random.nextDouble();
        int from = (int) ((long) nz * rank / np);
        int to = (int) ((long) nz * (rank + 1) / np);
        int[] row = new int[to - from];
        int[] col = new int[to - from];
        double[] val = new double[to - from];
        for (int k = 0; k < nz; k++) {
            int r = Math.abs(random.nextInt()) % n;
            int c = Math.abs(random.nextInt()) % n;
            double v = random.nextDouble();
            if (k >= from && k < to) {
                row[k - from] = r;
                col[k - from] = c;
                val[k - from] = v;
            }
        }
        double[] partial = new double[n];
        double[] y = new double[n];
        MPI.COMM_WORLD.barrier();
        double start = MPI.wtime();
        for (int it = 0; it < iterations; it++) {
            for (int k = 0; k < val.length; k++) partial[row[k]] += x[col[k]] * val[k];
            MPI.COMM_WORLD.allReduce(partial, y, n, MPI.DOUBLE, MPI.SUM);
        }
        MPI.COMM_WORLD.barrier();
        double seconds = MPI.wtime() - start;
        if (rank == 0) {
            double total = 0;
            for (double v : y) total += v;
            System.out.println(String.format(Locale.ROOT, "Section2:SparseMatmult:Kernel:Size%s\t%.3f (s) \t %.5f\t (Iterations/s)", size,
                    seconds, iterations / seconds));
            System.out.println(String.format(Locale.ROOT, "SparseMatmult y total %.9e", total));
        }
        MPI.Finalize();
    }
}
