package io.mpilens.examples.mpj.corpus;

import io.mpilens.examples.CorpusLines;
import io.mpilens.examples.Tour;
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

    private static CorpusLines lines = new CorpusLines(-1);

    private Corpus() {
    }

    static void run(String[] args, Body body) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        lines = new CorpusLines(rank);
        int size = MPI.COMM_WORLD.Size();
        Tour tour = new Tour(rank);
        tour.pause("start");
        body.run(rank, size);
        MPI.COMM_WORLD.Barrier();
        MPI.Finalize();
        tour.pause("end");
    }

    static void say(String what, Object... values) {
        lines.say(what, values);
    }

    /** A case of the corpus this binding cannot express: said once, by rank 0. */
    static void notInBinding(String what) {
        lines.notInBinding(what);
    }
}
