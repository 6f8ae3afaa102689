package io.mpilens.agent.registry;

import io.mpilens.agent.jit.ForceInline;

/**
 * Requests recorded in their wrappers: the creation, completion and free paths, called from advice
 * inlined into the binding's request methods. The wrapper gets its creation sequence number; the
 * facts go into the {@link RequestRing}. No table, no lock, no atomic instruction, no allocation.
 * Never throws (the advice suppresses anything besides).
 */
public final class WrapperRequests {
    /**
     * Creation sequence, per JVM: racy on purpose (no atomic instruction); see {@link RequestRing} on
     * races. An int, as the field the wrapper carries ({@link RequestFacts}): a long field made
     * each of Open MPI's and MPJ Express's request objects 8 bytes larger, an int fits in the
     * padding they already have. It counts 1 .. {@link Integer#MAX_VALUE} and starts again at 1,
     * so after 2^31 requests a number is reused; a request still pending by then has long since
     * left its slot for the overflow, where the newer one's completion may mark it done.
     */
    static int seq;
    /**
     * Creation sequence where several MPI processes share the JVM (MPJ Express multicore: ranks are
     * threads, creating requests at the same time as a rule): each communicator (window, file) the
     * requests are made on takes blocks of {@link #BLOCK} numbers with one atomic add
     * ({@link SequenceBlock}) and numbers its requests from its block, so two ranks never get the
     * same number, and each writes its own run of ring slots (numbers taken in turns would put two
     * ranks' requests side by side, in the same cache lines).
     */
    static final java.util.concurrent.atomic.AtomicLong SHARED_SEQ = new java.util.concurrent.atomic.AtomicLong();
    static final int BLOCK = 64;
    /** Numbers {@link #SHARED_SEQ} hands out before it starts again at 1: whole blocks, all below 2^31. */
    static final long SHARED_RANGE = (Integer.MAX_VALUE / BLOCK - 1) * (long) BLOCK;
    /** The binding's null request handle (Open MPI writes it back into a completed request's wrapper); set at MPI init. */
    private static long nullHandle;

    private WrapperRequests() {
    }

    /** {@code self}: the wrapper the call was made on: a communicator, window or file holds the request. */
    @ForceInline
    public static void created(Object self, String call, int peer, int tag, Object result) {
        if (!(result instanceof RequestFacts)) return;
        RequestFacts r = (RequestFacts) result;
        long holder = self instanceof RequestHolder ? ((RequestHolder) self).mpilens$id() : 0;
        int s = seq + 1;
        if (s < 0) s = 1;
        seq = s;
        r.mpilens$seq(s);
        RequestRing.created(s, call, HandleRegistry.peerTag(peer, tag), holder);
    }

    /**
     * {@link #created} for a binding whose ranks can share the JVM (MPJ Express multicore): the
     * sequence number comes from the block of the communicator (window, file) the request is made
     * on ({@link #SHARED_SEQ}), and only requests made
     * on a communicator (window, file) the registry knows are recorded: the binding's own
     * communicators (MPJ Express's collectives run on an internal one) make requests of the
     * binding, not of the application, which the request tables never showed either. A request
     * already recorded (a public creating call inside another) keeps its first record.
     */
    @ForceInline
    public static void createdSharingJvm(Object self, String call, int peer, int tag, Object result) {
        if (!(result instanceof RequestFacts) || !(self instanceof SequenceBlock)) return;
        SequenceBlock block = (SequenceBlock) self;
        long holder = block.mpilens$id();
        RequestFacts r = (RequestFacts) result;
        if (holder == 0 || r.mpilens$seq() != 0) return;
        int s = block.mpilens$next();
        if (s == block.mpilens$end()) {
            s = (int) (SHARED_SEQ.getAndAdd(BLOCK) % SHARED_RANGE) + 1;
            block.mpilens$end(s + BLOCK);
        }
        block.mpilens$next(s + 1);
        r.mpilens$seq(s);
        RequestRing.created(s, call, HandleRegistry.peerTag(peer, tag), holder);
    }

    /**
     * A wait on this request returned, or the application freed it (then it is no longer one the
     * application can complete): its ring slot is done. Returns whether the request lives in its
     * wrapper (persistent requests and requests in tables do not).
     */
    @ForceInline
    public static boolean done(Object request) {
        if (!(request instanceof RequestFacts)) return false;
        int s = ((RequestFacts) request).mpilens$seq();
        if (s == 0) return false;
        RequestRing.done(s);
        return true;
    }

    /** A test on this request returned {@code result}: true, or a status, means complete. */
    @ForceInline
    public static void tested(Object request, Object result) {
        if (result != null && !Boolean.FALSE.equals(result)) done(request);
    }

    /**
     * Entry of the binding's array write-back (Open MPI's {@code setHandles}, after
     * {@code waitAll}, {@code testAny}, ...): a request whose new handle is the null request completed.
     */
    @ForceInline
    public static void writtenBack(Object requests, Object newHandles) {
        if (!(requests instanceof Object[]) || !(newHandles instanceof long[])) return;
        Object[] rs = (Object[]) requests;
        long[] hs = (long[]) newHandles;
        long none = nullHandle;
        for (int i = 0, n = Math.min(rs.length, hs.length); i < n; i++) {
            if ((hs[i] == none || hs[i] == 0) && rs[i] instanceof RequestFacts) {
                RequestRing.done(((RequestFacts) rs[i]).mpilens$seq());
            }
        }
    }

    /** The binding's null request handle, known at MPI init. */
    public static void nullHandle(long handle) {
        nullHandle = handle;
    }

    /** Whether this request lives in its wrapper (not in a request table). */
    public static boolean inWrapper(Object request) {
        return request instanceof RequestFacts && ((RequestFacts) request).mpilens$seq() != 0;
    }
}
