package io.mpilens.examples.openmpi.corpus;

import io.mpilens.examples.CorpusLines;
import io.mpilens.examples.Tour;
import mpi.MPI;

/**
 * What every program of the transparency corpus shares: MPI_Init, the "start" pause (where a
 * test attaches the agent late), one deterministic line per result, MPI_Finalize, the "end"
 * pause (where a test reads the agent's health). Errors stay MPI_ERRORS_ARE_FATAL throughout.
 */
final class Corpus {
    interface Body {
        void run(int rank, int size) throws Exception;
    }

    private static CorpusLines lines = new CorpusLines(-1);

    private Corpus() {
    }

    static void run(String[] args, Body body) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        lines = new CorpusLines(rank);
        int size = MPI.COMM_WORLD.getSize();
        Tour tour = new Tour(rank);
        tour.pause("start");
        body.run(rank, size);
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
        tour.pause("end");
    }

    /** One line of what the binding answered; ranks print in any order, each rank's lines in order. */
    static void say(String what, Object... values) {
        lines.say(what, values);
    }

    static int[] ints(java.nio.IntBuffer b, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) out[i] = b.get(i);
        return out;
    }
}
