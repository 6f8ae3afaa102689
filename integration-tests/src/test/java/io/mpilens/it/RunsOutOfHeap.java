package io.mpilens.it;

import java.util.ArrayList;
import java.util.List;

/**
 * An Open MPI rank that initializes MPI, duplicates COMM_WORLD and then runs out of heap (start
 * it with a small -Xmx).
 */
public final class RunsOutOfHeap {
    public static void main(String[] args) throws Exception {
        DiesAfterInit.initAndDup(args);
        List<long[]> hog = new ArrayList<>();
        while (true) hog.add(new long[1 << 16]);
    }
}
