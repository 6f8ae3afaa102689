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
        private transient int mpilens$seq;

        @Override public void mpilens$seq(int seq) { mpilens$seq = seq; }
        @Override public int mpilens$seq() { return mpilens$seq; }
    }

    /** A communicator as woven for MPJ Express: its id, and the block its requests are numbered from. */
    static final class Comm implements SequenceBlock {
        private transient long mpilens$id;
        private transient int next, end;

        @Override public long mpilens$id() { return mpilens$id; }
        @Override public int mpilens$next() { return next; }
        @Override public void mpilens$next(int v) { next = v; }
        @Override public int mpilens$end() { return end; }
        @Override public void mpilens$end(int v) { end = v; }
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
        WrapperRequests.SHARED_SEQ.addAndGet(1L << 30);
        Comm rank0 = comm(registry, proc), rank1 = comm(registry, proc);
        List<Request> made = new ArrayList<>();
        List<Long> of0 = new ArrayList<>(), of1 = new ArrayList<>();
        try {
            for (int i = 0; i < 3 * WrapperRequests.BLOCK; i++) {
                for (Comm c : List.of(rank0, rank1)) {
                    Request r = new Request();
                    WrapperRequests.createdSharingJvm(c, "Irecv", 1, i, r);
                    made.add(r);
                    (c == rank0 ? of0 : of1).add((long) r.mpilens$seq());
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
            int first = again.mpilens$seq();
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

    /**
     * The numbers are ints (the field fits in the request objects' padding): both counters start
     * again at 1 after 2^31 - 1, never give 0 or a negative number, and a block never crosses the end.
     */
    @Test
    void numbersStartAgainAtOneAfterTheLastInt() {
        int savedSeq = WrapperRequests.seq;
        long savedShared = WrapperRequests.SHARED_SEQ.get();
        HandleRegistry registry = new HandleRegistry(4, 16);
        registry.configure("test", "mpj", false);
        registry.requestRing(RequestRing.RING);
        int proc = registry.process(getClass().getClassLoader());
        registry.processInitialized(proc, 0, 1);
        Comm c = comm(registry, proc);
        List<Request> made = new ArrayList<>();
        try {
            WrapperRequests.seq = Integer.MAX_VALUE - 1;
            List<Integer> perJvm = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Request r = new Request();
                WrapperRequests.created(c, "iRecv", 1, i, r);
                made.add(r);
                perJvm.add(r.mpilens$seq());
            }
            assertEquals(List.of(Integer.MAX_VALUE, 1, 2), perJvm, "the per-JVM counter after its last int");
            // done before the shared counter draws 1 and 2 too: a JVM has one of the two counters
            for (Request r : made) WrapperRequests.done(r);
            made.clear();

            WrapperRequests.SHARED_SEQ.set(WrapperRequests.SHARED_RANGE - WrapperRequests.BLOCK);
            List<Integer> shared = new ArrayList<>();
            for (int i = 0; i < 2 * WrapperRequests.BLOCK; i++) {
                Request r = new Request();
                WrapperRequests.createdSharingJvm(c, "Irecv", 1, i, r);
                made.add(r);
                shared.add(r.mpilens$seq());
            }
            assertEquals((int) WrapperRequests.SHARED_RANGE - WrapperRequests.BLOCK + 1, shared.get(0), "the last block");
            assertEquals((int) WrapperRequests.SHARED_RANGE, shared.get(WrapperRequests.BLOCK - 1), "its last number");
            assertEquals(1, shared.get(WrapperRequests.BLOCK), "then from 1 again");
            assertTrue(shared.stream().allMatch(s -> s > 0), "never 0 or negative: " + shared);
        } finally {
            for (Request r : made) WrapperRequests.done(r);
            WrapperRequests.seq = savedSeq;
            WrapperRequests.SHARED_SEQ.set(savedShared);
        }
        assertEquals(0, RequestRing.pendingOn(c.mpilens$id()), "every one of them marked done in the ring");
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
