package io.mpilens.headless.share;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A share reader's sleep before its poll: only when wanted and nothing is there to read, woken as
 * soon as the packet is due, at most the budget, and not at all right after a sleep that ran out.
 */
class DueWaitTest {
    private static final long BUDGET = TimeUnit.MILLISECONDS.toNanos(300);
    private final AtomicBoolean due = new AtomicBoolean();
    private final DueWait wait = new DueWait(due::get);
    private final InputStream nothing = new ByteArrayInputStream(new byte[0]);

    private static long millisSince(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    @Test
    void sleepsOnlyWhenWantedWithABudgetAndNothingToRead() throws IOException {
        long t0 = System.nanoTime();
        assertFalse(wait.await(false, nothing, BUDGET), "not wanted");
        assertFalse(wait.await(true, nothing, 0), "no budget");
        assertFalse(wait.await(true, new ByteArrayInputStream(new byte[1]), BUDGET), "something there to read");
        assertTrue(millisSince(t0) < 100, "none of them slept");
        due.set(true);
        assertTrue(wait.await(true, nothing, BUDGET), "already due");
    }

    @Test
    void wakesAsSoonAsThePacketIsDue() throws Exception {
        Thread sleeper = Thread.currentThread();
        Thread maker = new Thread(() -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            due.set(true);
            LockSupport.unpark(sleeper);
        });
        long t0 = System.nanoTime();
        maker.start();
        boolean came = wait.await(true, nothing, BUDGET);
        long ms = millisSince(t0);
        maker.join();
        assertTrue(came, "due within the budget");
        assertTrue(ms >= 20 && ms < 300, "woken when it was due, not at the budget: " + ms + " ms");
    }

    @Test
    void afterALatePacketTheNextWaitDoesNotSleepAndTheOneAfterDoes() throws IOException {
        long t0 = System.nanoTime();
        assertFalse(wait.await(true, nothing, BUDGET), "never due");
        assertTrue(millisSince(t0) >= 300, "slept the whole budget");

        long t1 = System.nanoTime();
        assertFalse(wait.await(true, nothing, BUDGET), "late last time");
        assertTrue(millisSince(t1) < 100, "did not sleep");

        long t2 = System.nanoTime();
        assertFalse(wait.await(true, nothing, BUDGET));
        assertTrue(millisSince(t2) >= 300, "sleeps again");
    }
}
