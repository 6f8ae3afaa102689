package io.mpilens.examples.openmpi.corpus;

import static io.mpilens.examples.openmpi.corpus.Corpus.say;

import mpi.Datatype;
import mpi.MPI;

/** Every datatype constructor of the binding, zero counts included, used in a message and freed. */
public final class Datatypes {
    private Datatypes() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Datatype contig = Datatype.createContiguous(4, MPI.INT);
            Datatype contig0 = Datatype.createContiguous(0, MPI.INT);
            Datatype vector = Datatype.createVector(3, 1, 2, MPI.INT);
            Datatype vector0 = Datatype.createVector(0, 1, 2, MPI.INT);
            Datatype hvector = Datatype.createHVector(2, 2, 16, MPI.INT);
            Datatype indexed = Datatype.createIndexed(new int[] {1, 2}, new int[] {0, 3}, MPI.INT);
            Datatype indexed0 = Datatype.createIndexed(new int[0], new int[0], MPI.INT);
            Datatype hindexed = Datatype.createHIndexed(new int[] {1, 1}, new int[] {0, 8}, MPI.INT);
            Datatype struct = Datatype.createStruct(new int[] {1, 2}, new int[] {0, 8}, new Datatype[] {MPI.INT, MPI.DOUBLE});
            Datatype struct0 = Datatype.createStruct(new int[0], new int[0], new Datatype[0]);
            Datatype resized = Datatype.createResized(contig, 0, 32);
            Datatype dup = vector.dup();
            Datatype nested = Datatype.createContiguous(2, vector);
            Datatype[] made = {contig, contig0, vector, vector0, hvector, indexed, indexed0, hindexed, struct, struct0,
                resized, dup, nested};
            StringBuilder b = new StringBuilder();
            for (Datatype t : made) {
                t.commit();
                b.append(t.getSize()).append('/').append(t.getExtent()).append(' ');
            }
            say("size/extent", b.toString().trim());
            dup.setName("corpus-dup-type");
            say("named", dup.getName());
            // a vector's holes travel as holes
            int[] out = {1, 2, 3, 4, 5, 6};
            int[] in = new int[6];
            int peer = rank ^ 1;
            MPI.COMM_WORLD.sendRecv(out, 1, vector, peer, 3, in, 1, vector, peer, 3);
            say("vector exchange", in);
            // free a parent while a type built from it lives, then the child
            vector.free();
            say("nested after parent freed", nested.getSize());
            for (Datatype t : made) {
                if (t != vector) t.free();
            }
            say("done");
        });
    }
}
