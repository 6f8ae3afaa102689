package io.mpilens.examples.openmpi.corpus;

import static io.mpilens.examples.openmpi.corpus.Corpus.say;

import java.nio.IntBuffer;
import mpi.Datatype;
import mpi.Errhandler;
import mpi.File;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.Request;
import mpi.Status;
import mpi.UserFunction;

/** Info objects, operations, errhandlers read back, and MPI-IO files with blocking and nonblocking I/O. */
public final class InfoOpsFiles {
    private InfoOpsFiles() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Info info = new Info();
            info.set("corpus_key", "v" + rank);
            info.set("other", "x");
            info.delete("other");
            Info copy = info.dup();
            say("info", copy.size(), copy.get("corpus_key"), copy.getKey(0), info.get("other") == null);
            copy.free();
            Op op = new Op(new UserFunction() {
                @Override
                public void call(Object in, Object inOut, int count, Datatype type) {
                    // never applied: the operation is only created and freed
                }
            }, false);
            say("op commutative", op.isCommutative());
            op.free();
            Intracomm dup = MPI.COMM_WORLD.dup();
            Errhandler eh = dup.getErrhandler();
            say("errhandler read back", eh != null);
            dup.free();

            String dir = System.getProperty("java.io.tmpdir");
            String name = dir + "/mpilens-corpus-" + System.getenv().getOrDefault("OMPI_COMM_WORLD_NODE_RANK", "x")
                    .hashCode() + "-" + ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L) + ".dat";
            // every rank must name the same file: rank 0 picks it and tells the others
            char[] chosen = new char[256];
            if (rank == 0) name.getChars(0, name.length(), chosen, 0);
            int[] len = {name.length()};
            MPI.COMM_WORLD.bcast(len, 1, MPI.INT, 0);
            MPI.COMM_WORLD.bcast(chosen, 256, MPI.CHAR, 0);
            String path = new String(chosen, 0, len[0]);
            File f = new File(MPI.COMM_WORLD, path, MPI.MODE_CREATE | MPI.MODE_RDWR, info);
            int[] mine = {rank * 100};
            f.writeAt(rank * 4L, mine, 1, MPI.INT);
            IntBuffer nb = MPI.newIntBuffer(1);
            nb.put(0, rank * 100 + 1);
            Request w = f.iWriteAt((size + rank) * 4L, nb, 1, MPI.INT);
            w.waitFor();
            f.sync();
            MPI.COMM_WORLD.barrier();
            f.sync();
            int[] read = new int[1];
            Status st = f.readAt(((rank + 1) % size) * 4L, read, 1, MPI.INT);
            IntBuffer rb = MPI.newIntBuffer(1);
            Request r = f.iReadAt((size + (rank + 1) % size) * 4L, rb, 1, MPI.INT);
            r.waitFor();
            say("file", read[0], rb.get(0), st.getCount(MPI.INT), f.getAMode() == (MPI.MODE_CREATE | MPI.MODE_RDWR));
            Info used = f.getInfo();
            used.free();
            f.close();
            MPI.COMM_WORLD.barrier();
            if (rank == 0) File.delete(path);
            info.free();
            say("done");
        });
    }
}
