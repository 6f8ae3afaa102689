package io.mpilens.examples.mpj.corpus;

import static io.mpilens.examples.mpj.corpus.Corpus.say;

import mpi.Datatype;
import mpi.MPI;

/** Every datatype constructor of MPJ Express, zero counts included, committed, used and freed. */
public final class Datatypes {
    private Datatypes() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Datatype contig = Datatype.Contiguous(4, MPI.INT);
            Datatype contig0 = Datatype.Contiguous(0, MPI.INT);
            Datatype vector = Datatype.Vector(3, 1, 2, MPI.INT);
            Datatype hvector = Datatype.Hvector(2, 1, 3, MPI.INT);
            Datatype indexed = Datatype.Indexed(new int[] {1, 2}, new int[] {0, 3}, MPI.INT);
            Datatype hindexed = Datatype.Hindexed(new int[] {1, 1}, new int[] {0, 2}, MPI.INT);
            Datatype struct = Datatype.Struct(new int[] {1, 1}, new int[] {0, 1}, new Datatype[] {MPI.INT, MPI.INT});
            Datatype[] made = {contig, contig0, vector, hvector, indexed, hindexed, struct};
            StringBuilder b = new StringBuilder();
            for (Datatype t : made) {
                t.Commit();
                b.append(t.Size()).append('/').append(t.Extent()).append(' ');
            }
            say("size/extent", b.toString().trim());
            int[] out = {1, 2, 3, 4, 5, 6};
            int[] in = new int[6];
            int peer = rank ^ 1;
            MPI.COMM_WORLD.Sendrecv(out, 0, 1, vector, peer, 3, in, 0, 1, vector, peer, 3);
            say("vector exchange", in);
            for (Datatype t : made) t.free();
            say("done");
        });
    }
}
