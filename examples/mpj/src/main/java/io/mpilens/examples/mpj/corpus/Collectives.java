package io.mpilens.examples.mpj.corpus;

import static io.mpilens.examples.mpj.corpus.Corpus.say;

import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.User_function;

/** Collectives of MPJ Express with a user-defined operation. */
public final class Collectives {
    private Collectives() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Intracomm world = MPI.COMM_WORLD;
            world.Barrier();
            int[] v = {rank + 1};
            world.Bcast(v, 0, 1, MPI.INT, 0);
            say("bcast", v[0]);
            int[] sum = new int[1];
            world.Allreduce(new int[] {rank}, 0, sum, 0, 1, MPI.INT, MPI.SUM);
            say("allreduce", sum[0]);
            int[] gathered = new int[size];
            world.Allgather(new int[] {rank}, 0, 1, MPI.INT, gathered, 0, 1, MPI.INT);
            say("allgather", gathered);
            int[] part = new int[1];
            world.Scatter(new int[] {5, 6, 7, 8}, 0, 1, MPI.INT, part, 0, 1, MPI.INT, 0);
            say("scatter", part[0]);
            int[] scanned = new int[1];
            world.Scan(new int[] {1}, 0, scanned, 0, 1, MPI.INT, MPI.SUM);
            say("scan", scanned[0]);
            Op absMax = new Op(new User_function() {
                @Override
                public void Call(Object in, int inOffset, Object inOut, int inOutOffset, int count, Datatype type) {
                    int[] a = (int[]) in;
                    int[] b = (int[]) inOut;
                    for (int i = 0; i < count; i++) {
                        b[inOutOffset + i] = Math.max(Math.abs(a[inOffset + i]), Math.abs(b[inOutOffset + i]));
                    }
                }
            }, true);
            int[] m = new int[1];
            world.Reduce(new int[] {-rank * 3}, 0, m, 0, 1, MPI.INT, absMax, 0);
            if (rank == 0) say("user op reduce", m[0]);
            absMax.free();
            Corpus.notInBinding("windows, info, files (MPJ Express 0.44 has no one-sided communication, MPI_Info or MPI-IO)");
        });
    }
}
