package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.*;

import io.mpilens.api.model.HandleKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * MPJ Express's requests are numbered from blocks their communicator keeps: two ranks of one JVM
 * (the multicore device's threads), each on its own communicator, never get the same number, and
 * each rank's numbers come in runs of {@link WrapperRequests#BLOCK}, so each writes its own run of
 * ring slots. The wrappers are stand-ins for what the weaver makes of MPJ Express's classes; the
 * integration tests prove the requests' facts on the real binding.
 */
class SequenceBlocksTest {
    /** MPJ Express's {@code mpi.Request} as woven: the sequence field, the ring's key. */
    static final class Request implements RequestFacts {
        private transient long mpilens$seq;

        @Override public void mpilens$seq(long seq) { mpilens$seq = seq; }
        @Override public long mpilens$seq() { return mpilens$seq; }
    }

    /** A communicator as woven for MPJ Express: its id, and the block its requests are numbered from. */
    static final class Comm implements SequenceBlock {
        private transient long mpilens$id;
        private transient long next, end;

        @Override public long mpilens$id() { return mpilens$id; }
        @Override public long mpilens$next() { return next; }
        @Override public void mpilens$next(long v) { next = v; }
        @Override public long mpilens$end() { return end; }
        @Override public void mpilens$end(long v) { end = v; }
    }

    @Test
    void twoRanksTakingTurnsNeverShareANumberAndEachNumbersInRunsOfABlock() {
        HandleRegistry registry = new HandleRegistry(4, 16);
        registry.configure("test", "mpj", false);
        registry.requestRing(RequestRing.RING);
        int proc = registry.process(getClass().getClassLoader());
        registry.processInitialized(proc, 0, 2);
        // the ring is one per JVM, and a JVM has one binding: numbers far from those the Open MPI
        // counter gives other tests here, so that no request of theirs meets a slot done under its number
        WrapperRequests.SHARED_SEQ.addAndGet(1L << 40);
        Comm rank0 = comm(registry, proc), rank1 = comm(registry, proc);
        List<Request> made = new ArrayList<>();
        List<Long> of0 = new ArrayList<>(), of1 = new ArrayList<>();
        try {
            for (int i = 0; i < 3 * WrapperRequests.BLOCK; i++) {
                for (Comm c : List.of(rank0, rank1)) {
                    Request r = new Request();
                    WrapperRequests.createdSharingJvm(c, "Irecv", 1, i, r);
                    made.add(r);
                    (c == rank0 ? of0 : of1).add(r.mpilens$seq());
                }
            }
            Set<Long> all = new HashSet<>(of0);
            all.addAll(of1);
            assertEquals(made.size(), all.size(), "every request its own number");
            assertFalse(all.contains(0L), "0 is no request");
            for (List<Long> run : List.of(of0, of1)) {
                for (int i = 1; i < run.size(); i++) {
                    if (i % WrapperRequests.BLOCK != 0) {
                        assertEquals(run.get(i - 1) + 1, (long) run.get(i), "within a block, one after the other: " + run);
                    }
                }
            }
            Request again = made.get(0);
            long first = again.mpilens$seq();
            WrapperRequests.createdSharingJvm(rank1, "Irecv", 1, 0, again);
            assertEquals(first, again.mpilens$seq(), "a request already recorded keeps its first number");
            assertEquals(of0.size(), RequestRing.pendingOn(rank0.mpilens$id()), "rank 0's requests pending in the ring");
            assertEquals(of1.size(), RequestRing.pendingOn(rank1.mpilens$id()), "rank 1's requests pending in the ring");
        } finally {
            for (Request r : made) WrapperRequests.done(r);
        }
        assertEquals(0, RequestRing.pendingOn(rank0.mpilens$id()));
        assertEquals(0, RequestRing.pendingOn(rank1.mpilens$id()));
    }

    private static Comm comm(HandleRegistry registry, int proc) {
        Comm c = new Comm();
        RowSpec s = new RowSpec(HandleKind.COMMUNICATOR);
        s.proc = proc;
        s.name = "MPI.COMM_WORLD";
        s.call = "Init";
        s.bindingClass = "mpi.Intracomm";
        registry.add(c, s);
        assertNotEquals(0, c.mpilens$id(), "the registry wrote the wrapper's id");
        return c;
    }
}
