package io.mpilens.examples.mpj.corpus;

import io.mpilens.examples.Tour;
import java.util.Arrays;
import mpi.MPI;

/**
 * What every program of the MPJ Express transparency corpus shares (see the Open MPI corpus):
 * MPI_Init, pause "start", deterministic lines, MPI_Finalize, pause "end". Under multicore each
 * rank is a thread with its own class loader, so this class's state is per rank.
 */
final class Corpus {
    interface Body {
        void run(int rank, int size) throws Exception;
    }

    private static int rank;

    private Corpus() {
    }

    static void run(String[] args, Body body) throws Exception {
        MPI.Init(args);
        rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        Tour tour = new Tour(rank);
        tour.pause("start");
        body.run(rank, size);
        MPI.COMM_WORLD.Barrier();
        MPI.Finalize();
        tour.pause("end");
    }

    static void say(String what, Object... values) {
        StringBuilder b = new StringBuilder("rank ").append(rank).append(": ").append(what);
        for (Object v : values) b.append(' ').append(v instanceof int[] ? Arrays.toString((int[]) v) : String.valueOf(v));
        System.out.println(b);
    }

    /** A case of the corpus this binding cannot express: said once, by rank 0. */
    static void notInBinding(String what) {
        if (rank == 0) System.out.println("corpus: not in this binding: " + what);
    }
}
