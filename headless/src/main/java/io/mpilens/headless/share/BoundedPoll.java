package io.mpilens.headless.share;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A bounded poll of one socket before its reader goes to sleep in a read. A round trip through
 * the share costs two thread wake-ups more than a direct one (the share's two readers); when a
 * packet is due within microseconds (a reply to a command that is out; a client's next command
 * right after its reply), the reader polls for it, at most the budget, instead of sleeping and
 * being woken. It polls only while the previous due packet came within the budget: a loaded
 * machine or a slow command turns it off until one comes fast again, so it never spins long for
 * nothing. Packets nobody knows the time of (events, a debugger's next click) are awaited asleep.
 * At most {@link #MAX_POLLING} readers of the process poll at once (half the CPUs, at least one):
 * a read of every rank of a job at once does not spin a thread per rank beside the ranks. One
 * per socket, used by that socket's one reader.
 */
final class BoundedPoll {
    /** The share's budget in microseconds (0: never poll), a system property. */
    static final String PROPERTY = "mpilens.share.pollMicros";
    /**
     * On a quiet machine 50 µs brings a relayed round trip from 1.6× to 1.1× a direct one; on a
     * loaded one it neither helps nor hurts (docs/performance.md, the share). Its CPU is bounded:
     * only while a debugger's commands come back to back, and by {@link #MAX_POLLING}.
     */
    static final long DEFAULT_MICROS = 50;
    static final int MAX_POLLING = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    private static final AtomicInteger POLLING = new AtomicInteger();

    private final LongAdder caught;
    private final LongAdder missed;
    /** How long the previous due packet took to come (from the start of its wait). */
    private long lastWaitNanos;
    private long waitStart;
    private boolean waiting;

    /** @param caught, missed the share's counts of polls that caught their packet, and that came to nothing */
    BoundedPoll(LongAdder caught, LongAdder missed) {
        this.caught = caught;
        this.missed = missed;
    }

    /** The budget from {@link #PROPERTY}, else {@link #DEFAULT_MICROS}. */
    static long configuredMicros() {
        return Math.max(0, Long.getLong(PROPERTY, DEFAULT_MICROS));
    }

    /**
     * Before a read of {@code in} that may block: when a packet is {@code due} and nothing has
     * arrived yet, polls for at most {@code budgetNanos} (if the previous due packet came within
     * it). Whether input came is only a hint: the read follows anyway.
     */
    void before(InputStream in, boolean due, long budgetNanos) throws IOException {
        waiting = false;
        if (!due || budgetNanos <= 0 || in.available() > 0) return;
        long start = System.nanoTime();
        waitStart = start;
        waiting = true;
        if (lastWaitNanos > budgetNanos || !startPolling()) return;
        try {
            do {
                Thread.onSpinWait();
                if (in.available() > 0) {
                    caught.increment();
                    return;
                }
            } while (System.nanoTime() - start < budgetNanos);
            missed.increment();
        } finally {
            POLLING.decrementAndGet();
        }
    }

    /** Whether a reader could poll now (fewer than {@link #MAX_POLLING} do): before it sleeps to be woken for a poll. */
    static boolean mayPoll() {
        return POLLING.get() < MAX_POLLING;
    }

    private static boolean startPolling() {
        for (int n = POLLING.get(); n < MAX_POLLING; n = POLLING.get()) {
            if (POLLING.compareAndSet(n, n + 1)) return true;
        }
        return false;
    }

    /** After the read: how long a due packet took decides whether the next wait polls. */
    void after() {
        if (waiting) {
            lastWaitNanos = System.nanoTime() - waitStart;
            waiting = false;
        }
    }
}
