package io.mpilens.it;

import java.util.ArrayList;
import java.util.List;

/**
 * An Open MPI rank that initializes MPI, duplicates COMM_WORLD and then runs out of heap (start
 * it with a small -Xmx). Calls the binding reflectively: the test class path has no mpi.jar at
 * compile time.
 */
public final class RunsOutOfHeap {
    public static void main(String[] args) throws Exception {
        Class<?> mpi = Class.forName("mpi.MPI");
        mpi.getMethod("Init", String[].class).invoke(null, (Object) args);
        Object world = mpi.getField("COMM_WORLD").get(null);
        Object dup = world.getClass().getMethod("dup").invoke(world);
        System.out.println("MPILENS-TEST dup=" + (dup != null));
        List<long[]> hog = new ArrayList<>();
        while (true) hog.add(new long[1 << 16]);
    }
}
