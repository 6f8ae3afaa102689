package io.mpilens.agent.registry;

import io.mpilens.agent.jit.DontInline;
import io.mpilens.agent.jit.ForceInline;
import io.mpilens.agent.jit.Stable;
import io.mpilens.api.registry.RegistryLayout;
import java.util.Arrays;

/**
 * The request ring ({@link RegistryLayout#REQUEST_RING}): where requests that live in their
 * wrappers leave their facts for a reader, so the reader finds every pending request with a few
 * array reads instead of a heap walk. One {@code long[]}, four longs per slot (sequence, done,
 * peer and tag, holder id and call index); slot = creation sequence modulo {@link #SIZE}.
 * Creating a request writes its slot, completing or freeing it stores its sequence in the slot's
 * done word. No lock, no atomic instruction, no allocation, no reference store on either path
 * (the creating call is an index into {@code calls}, filled once per distinct call), and no
 * reference to the application's objects. 4,096 slots: 128 KB, which stays in the core's cache
 * while a message loop cycles through it.
 *
 * <p>A request still pending when its slot comes round again (after {@link #SIZE} newer
 * requests) moves to the overflow, under this object's lock: that is rare (a receive posted long
 * ago, a request the application dropped without completing it) and bounded
 * ({@link #OVERFLOW_LIMIT}; beyond it, requests are counted in {@code overflowLost} and not shown).
 *
 * <p>Under {@code MPI_THREAD_MULTIPLE} two threads can race on one slot (creation sequence
 * numbers are not atomic: one counter per JVM on Open MPI, one block per communicator on MPJ
 * Express; a completion can meet its slot's eviction): a request can then be shown pending after
 * it completed, be missing, or two requests that drew the same number share one slot, whose facts
 * are the last writer's. Never an error.
 */
@SuppressWarnings("unused") // the layout fields are read by debuggers, not by Java code
public final class RequestRing {
    static final int SIZE = 1 << 12;
    private static final int MASK = SIZE - 1;
    static final int OVERFLOW_LIMIT = 1 << 16;
    private static final int CALL_TABLE = 256;

    static final RequestRing RING = new RequestRing();

    // ---- published (layout REQUEST_RING_*)
    private final long[] slots = new long[SIZE * RegistryLayout.RING_STRIDE];
    private final String[] calls = new String[CALL_TABLE];
    private volatile int overflowStamp;
    private volatile int overflowCount;
    private long overflowLost;
    private long[] overflow = new long[0];

    /** Overflow position by sequence (under the lock). */
    private final LongSlotMap overflowAt = new LongSlotMap(64);

    // the hot path reads these: constants to the compiler; a slot of CALLS is written once (null to
    // the call's interned name), so @Stable lets the JIT fold an advice's lookup of its constant name
    // to the index (io.mpilens.agent.jit: where the JVM honours it)
    private static final long[] SLOTS = RING.slots;
    @Stable
    private static final String[] CALLS = RING.calls;

    static {
        HandleRegistry.INSTANCE.requestRing(RING);
    }

    private RequestRing() {
    }

    /** Request {@code s} (> 0) was created: its facts go into its slot. */
    @ForceInline
    static void created(long s, String creatingCall, long peerAndTag, long holderId) {
        long callAndHolder = (long) callIndex(creatingCall) << RegistryLayout.RING_CALL_SHIFT | holderId;
        int b = ((int) s & MASK) * RegistryLayout.RING_STRIDE;
        long previous = SLOTS[b];
        if (previous > 0 && SLOTS[b + 1] != previous) RING.evict(b, previous);
        SLOTS[b + 2] = peerAndTag;
        SLOTS[b + 3] = callAndHolder;
        Ordered.setRelease(SLOTS, b, s);
    }

    /** Request {@code s} completed (or was freed); 0 is no request of the ring. Idempotent. */
    @ForceInline
    static void done(long s) {
        if (s <= 0) return;
        int b = ((int) s & MASK) * RegistryLayout.RING_STRIDE;
        if (SLOTS[b] == s) {
            SLOTS[b + 1] = s;
        } else if (RING.overflowCount != 0) {
            RING.overflowDone(s);
        }
    }

    /**
     * The creating call's index in {@code calls} plus one (0: not recorded). The advice passes
     * the method's name, a constant string: found by identity at its position (from its length and
     * two of its characters), else by probing, else added.
     */
    @ForceInline
    private static int callIndex(String call) {
        if (call == null) return 0;
        // not hashCode(): a String's cached hash is no constant to the JIT, its length and bytes
        // are (final, stable), so for the advice's constant name this folds away (JMH, session 29:
        // +5.3 ns per request with hashCode(), +2.2 ns with this)
        int n = call.length();
        int h = n == 0 ? 0 : (n * 31 + call.charAt(1 % n)) * 31 + call.charAt(n - 1) & (CALL_TABLE - 1);
        if (CALLS[h] == call) return h + 1;
        return callIndexProbing(call, h);
    }

    /** {@link #callIndex} past its first look: out of line, so the hot path the JIT inlines stays small. */
    @DontInline
    private static int callIndexProbing(String call, int h) {
        for (int i = 0; i < CALL_TABLE; i++) {
            int j = (h + i) & (CALL_TABLE - 1);
            String c = CALLS[j];
            if (c == null) return RING.addCall(call, h);
            if (c.equals(call)) return j + 1;
        }
        return 0;
    }

    private synchronized int addCall(String call, int h) {
        for (int i = 0; i < CALL_TABLE; i++) {
            int j = (h + i) & (CALL_TABLE - 1);
            String c = calls[j];
            if (c == null) {
                // a String is safely published by its final fields; the fence keeps the store after
                // whatever this thread wrote before it (a VarHandle's release store did the same, at
                // the price of linking one at start-up: Ordered)
                String interned = call.intern();
                Ordered.storeStoreFence();
                calls[j] = interned;
                return j + 1;
            }
            if (c.equals(call)) return j + 1;
        }
        return 0;
    }

    /** Pending requests created on the handle with registry id {@code id} (off the hot path: a free, the reaper's sweep). */
    static int pendingOn(long id) {
        if (id == 0) return 0;
        int n = 0;
        for (int b = 0; b < SLOTS.length; b += RegistryLayout.RING_STRIDE) {
            long s = SLOTS[b];
            if (s > 0 && SLOTS[b + 1] != s && (SLOTS[b + 3] & RegistryLayout.RING_HOLDER_MASK) == id) n++;
        }
        synchronized (RING) {
            long[] o = RING.overflow;
            for (int j = 0; j < RING.overflowCount; j++) {
                if ((o[j * RegistryLayout.RING_STRIDE + 3] & RegistryLayout.RING_HOLDER_MASK) == id) n++;
            }
        }
        return n;
    }

    /** Moves the still-pending request {@code s} out of slot {@code b} before it is written again. */
    @DontInline
    private synchronized void evict(int b, long s) {
        if (SLOTS[b] != s) return; // another thread was first
        // a reader that meets the slot while it changes sees it empty, not s with another's facts
        SLOTS[b] = 0;
        Ordered.storeStoreFence();
        int n = overflowCount;
        if (n == OVERFLOW_LIMIT) {
            overflowLost++;
            return;
        }
        int stride = RegistryLayout.RING_STRIDE;
        if ((n + 1) * stride > overflow.length) {
            overflow = Arrays.copyOf(overflow, Math.min(OVERFLOW_LIMIT, Math.max(64, n * 2)) * stride);
        }
        overflowStamp++;
        System.arraycopy(SLOTS, b, overflow, n * stride, stride);
        overflow[n * stride] = s;
        overflowAt.put(s, n);
        overflowCount = n + 1;
        overflowStamp++;
    }

    @DontInline
    private synchronized void overflowDone(long s) {
        int j = overflowAt.get(s);
        if (j < 0) return;
        int last = overflowCount - 1;
        int stride = RegistryLayout.RING_STRIDE;
        overflowStamp++;
        overflowAt.remove(s);
        if (j != last) {
            System.arraycopy(overflow, last * stride, overflow, j * stride, stride);
            overflowAt.put(overflow[j * stride], j);
        }
        Arrays.fill(overflow, last * stride, last * stride + stride, 0L);
        overflowCount = last;
        overflowStamp++;
    }
}
