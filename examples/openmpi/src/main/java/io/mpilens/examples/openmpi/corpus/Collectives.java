package io.mpilens.examples.openmpi.corpus;

import static io.mpilens.examples.openmpi.corpus.Corpus.ints;
import static io.mpilens.examples.openmpi.corpus.Corpus.say;

import java.nio.IntBuffer;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.Request;
import mpi.UserFunction;

/** Blocking and nonblocking collectives, with a user-defined operation. */
public final class Collectives {
    private Collectives() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Intracomm world = MPI.COMM_WORLD;
            world.barrier();
            int[] v = {rank + 1};
            world.bcast(v, 1, MPI.INT, 0);
            say("bcast", v[0]);
            int[] sum = new int[1];
            world.allReduce(new int[] {rank}, sum, 1, MPI.INT, MPI.SUM);
            say("allReduce", sum[0]);
            int[] gathered = new int[size];
            world.gather(new int[] {rank * 2}, 1, MPI.INT, gathered, 1, MPI.INT, 0);
            if (rank == 0) say("gather", gathered);
            int[] part = new int[1];
            world.scatter(new int[] {5, 6, 7, 8}, 1, MPI.INT, part, 1, MPI.INT, 0);
            say("scatter", part[0]);
            int[] everyone = new int[size];
            world.allGather(new int[] {rank}, 1, MPI.INT, everyone, 1, MPI.INT);
            say("allGather", everyone);
            int[] swapped = new int[size];
            int[] mine = new int[size];
            for (int i = 0; i < size; i++) mine[i] = rank * 10 + i;
            world.allToAll(mine, 1, MPI.INT, swapped, 1, MPI.INT);
            say("allToAll", swapped);
            int[] scanned = new int[1];
            world.scan(new int[] {1}, scanned, 1, MPI.INT, MPI.SUM);
            say("scan", scanned[0]);
            int[] block = new int[1];
            world.reduceScatterBlock(mine, block, 1, MPI.INT, MPI.SUM);
            say("reduceScatterBlock", block[0]);

            // a user-defined operation: the maximum of absolute values
            Op absMax = new Op(new UserFunction() {
                @Override
                public void call(Object in, Object inOut, int count, Datatype type) {
                    int[] a = (int[]) in;
                    int[] b = (int[]) inOut;
                    for (int i = 0; i < count; i++) b[i] = Math.max(Math.abs(a[i]), Math.abs(b[i]));
                }
            }, true);
            int[] m = new int[1];
            world.reduce(new int[] {-rank * 3}, m, 1, MPI.INT, absMax, 0);
            if (rank == 0) say("user op reduce", m[0]);
            absMax.free();

            IntBuffer ib = MPI.newIntBuffer(1);
            IntBuffer ob = MPI.newIntBuffer(1);
            ib.put(0, rank);
            Request r1 = world.iAllReduce(ib, ob, 1, MPI.INT, MPI.MAX);
            Request r2 = world.iBarrier();
            Request.waitAll(new Request[] {r1, r2});
            say("iAllReduce", ob.get(0));
            IntBuffer all = MPI.newIntBuffer(size);
            Request r3 = world.iAllGather(ib, 1, MPI.INT, all, 1, MPI.INT);
            r3.waitFor();
            say("iAllGather", ints(all, size));
            IntBuffer bc = MPI.newIntBuffer(1);
            if (rank == 0) bc.put(0, 99);
            Request r4 = world.iBcast(bc, 1, MPI.INT, 0);
            while (!r4.test()) Thread.yield();
            say("iBcast", bc.get(0));
            IntBuffer sc = MPI.newIntBuffer(1);
            Request r5 = world.iScan(ib, sc, 1, MPI.INT, MPI.SUM);
            Request r6 = world.iReduce(ib, ob, 1, MPI.INT, MPI.SUM, 0);
            Request.waitAll(new Request[] {r5, r6});
            say("iScan", sc.get(0));
        });
    }
}
