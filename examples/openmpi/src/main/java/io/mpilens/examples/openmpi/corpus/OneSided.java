package io.mpilens.examples.openmpi.corpus;

import static io.mpilens.examples.openmpi.corpus.Corpus.say;

import java.nio.IntBuffer;
import mpi.Group;
import mpi.Info;
import mpi.MPI;
import mpi.Request;
import mpi.Win;

/** Windows of every constructor (size 0 included), fence and lock epochs, request-based RMA. */
public final class OneSided {
    private OneSided() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            int right = (rank + 1) % size;
            IntBuffer base = MPI.newIntBuffer(4);
            Win win = new Win(base, 4, 1, MPI.INFO_NULL, MPI.COMM_WORLD);
            win.setName("corpus-win");
            say("win", win.getName());
            IntBuffer one = MPI.newIntBuffer(1);
            one.put(0, rank);
            win.fence(0);
            win.put(one, 1, MPI.INT, right, 0, 1, MPI.INT);
            win.fence(0);
            say("fence put", base.get(0));
            win.lock(MPI.LOCK_SHARED, right, 0);
            IntBuffer back = MPI.newIntBuffer(1);
            win.get(back, 1, MPI.INT, right, 0, 1, MPI.INT);
            win.unlock(right);
            say("lock get", back.get(0));
            win.lockAll(0);
            Request rp = win.rPut(one, 1, MPI.INT, right, 1, 1, MPI.INT);
            rp.waitFor();
            Request rg = win.rGet(back, 1, MPI.INT, right, 1, 1, MPI.INT);
            rg.waitFor();
            win.unlockAll();
            MPI.COMM_WORLD.barrier();
            say("rPut/rGet", back.get(0));
            Group g = win.getGroup();
            say("win group", g.getSize());
            g.free();

            Win empty = new Win(MPI.newIntBuffer(1), 0, 1, MPI.INFO_NULL, MPI.COMM_WORLD);
            say("size 0 window");
            IntBuffer allocBase = MPI.newIntBuffer(4);
            Win allocated = new Win(16, 4, MPI.INFO_NULL, MPI.COMM_WORLD, allocBase, Win.FLAVOR_PRIVATE);
            Win allocated0 = new Win(0, 4, MPI.INFO_NULL, MPI.COMM_WORLD, MPI.newIntBuffer(1), Win.FLAVOR_PRIVATE);
            say("allocate");
            Info info = new Info();
            Win dynamic = new Win(info, MPI.COMM_WORLD);
            IntBuffer dyn = MPI.newIntBuffer(2);
            dynamic.attach(dyn, 8);
            dynamic.detach(dyn);
            say("dynamic");
            for (Win w : new Win[] {win, empty, allocated, allocated0, dynamic}) w.free();
            info.free();
            say("done");
        });
    }
}
