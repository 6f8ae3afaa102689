package io.mpilens.agent.registry;

import io.mpilens.api.registry.RegistryLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The request ring ({@link RegistryLayout#REQUEST_RING}): where requests that live in their
 * wrappers leave their facts for a reader, so the reader finds every pending request with a few
 * array reads instead of a heap walk. Slot = creation sequence modulo {@link #SIZE}; creating a
 * request writes its slot, completing or freeing it stores its sequence in {@code done}. No lock,
 * no atomic instruction, no allocation on either path, and no reference to the application's
 * objects (the creating call's name is a constant string).
 *
 * <p>A request still pending when its slot comes round again (after {@link #SIZE} newer requests)
 * moves to the overflow, under this object's lock: that is rare (a receive posted long ago, a
 * request the application dropped without completing it) and bounded ({@link #OVERFLOW_LIMIT};
 * beyond it, requests are counted in {@code overflowLost} and not shown).
 *
 * <p>Under {@code MPI_THREAD_MULTIPLE} two threads can race on one slot (creation sequence
 * numbers are not atomic; a completion can meet its slot's eviction): a request can then be shown
 * pending after it completed, or be missing. Never an error, never a wrong call or peer.
 */
@SuppressWarnings("unused") // the layout fields are read by debuggers, not by Java code
public final class RequestRing {
    static final int SIZE = 1 << 14;
    private static final int MASK = SIZE - 1;
    static final int OVERFLOW_LIMIT = 1 << 16;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    static final RequestRing RING = new RequestRing();

    // ---- published (layout REQUEST_RING_*)
    private final long[] seq = new long[SIZE];
    private final long[] done = new long[SIZE];
    private final String[] call = new String[SIZE];
    private final long[] peerTag = new long[SIZE];
    private final long[] holder = new long[SIZE];
    private final long[] handle = new long[SIZE];
    private volatile int overflowStamp;
    private int overflowCount;
    private long overflowLost;
    private long[] overflowSeq = new long[0];
    private String[] overflowCall = new String[0];
    private long[] overflowPeerTag = new long[0];
    private long[] overflowHolder = new long[0];
    private long[] overflowHandle = new long[0];

    // the hot path reads these: constants to the compiler
    private static final long[] SEQ = RING.seq;
    private static final long[] DONE = RING.done;
    private static final String[] CALL = RING.call;
    private static final long[] PEER_TAG = RING.peerTag;
    private static final long[] HOLDER = RING.holder;
    private static final long[] HANDLE = RING.handle;

    static {
        HandleRegistry.INSTANCE.requestRing(RING);
    }

    private RequestRing() {
    }

    /** Request {@code s} (> 0) was created: its facts go into its slot. */
    static void created(long s, String creatingCall, long peerAndTag, long holderId, long nativeHandle) {
        int i = (int) s & MASK;
        long previous = SEQ[i];
        if (previous > 0 && DONE[i] != previous) RING.evict(i, previous);
        SEQ[i] = -s;
        VarHandle.storeStoreFence(); // a reader sees the slot changing before it sees new facts
        CALL[i] = creatingCall;
        PEER_TAG[i] = peerAndTag;
        HOLDER[i] = holderId;
        HANDLE[i] = nativeHandle;
        LONGS.setRelease(SEQ, i, s);
    }

    /** Request {@code s} completed (or was freed); 0 is no request of the ring. Idempotent. */
    static void done(long s) {
        if (s <= 0) return;
        int i = (int) s & MASK;
        if (SEQ[i] == s) {
            DONE[i] = s;
        } else {
            RING.overflowDone(s);
        }
    }

    /** Pending requests created on the handle with registry id {@code id} (off the hot path: a free, a collected wrapper). */
    static int pendingOn(long id) {
        if (id == 0) return 0;
        int n = 0;
        for (int i = 0; i < SIZE; i++) {
            long s = SEQ[i];
            if (s > 0 && DONE[i] != s && HOLDER[i] == id) n++;
        }
        synchronized (RING) {
            for (int j = 0; j < RING.overflowCount; j++) if (RING.overflowHolder[j] == id) n++;
        }
        return n;
    }

    private synchronized void evict(int i, long s) {
        if (SEQ[i] != s) return; // another thread was first
        if (overflowCount == OVERFLOW_LIMIT) {
            overflowLost++;
            return;
        }
        if (overflowCount == overflowSeq.length) {
            int n = Math.min(OVERFLOW_LIMIT, Math.max(64, overflowCount * 2));
            overflowSeq = Arrays.copyOf(overflowSeq, n);
            overflowCall = Arrays.copyOf(overflowCall, n);
            overflowPeerTag = Arrays.copyOf(overflowPeerTag, n);
            overflowHolder = Arrays.copyOf(overflowHolder, n);
            overflowHandle = Arrays.copyOf(overflowHandle, n);
        }
        int j = overflowCount;
        overflowStamp++;
        overflowSeq[j] = s;
        overflowCall[j] = CALL[i];
        overflowPeerTag[j] = PEER_TAG[i];
        overflowHolder[j] = HOLDER[i];
        overflowHandle[j] = HANDLE[i];
        overflowCount = j + 1;
        overflowStamp++;
    }

    private synchronized void overflowDone(long s) {
        for (int j = 0; j < overflowCount; j++) {
            if (overflowSeq[j] != s) continue;
            int last = overflowCount - 1;
            overflowStamp++;
            overflowSeq[j] = overflowSeq[last];
            overflowCall[j] = overflowCall[last];
            overflowPeerTag[j] = overflowPeerTag[last];
            overflowHolder[j] = overflowHolder[last];
            overflowHandle[j] = overflowHandle[last];
            overflowCall[last] = null;
            overflowCount = last;
            overflowStamp++;
            return;
        }
    }
}
