package io.mpilens.headless.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The share's readers' poll before they sleep: only for a packet that is due, at most the
 * budget, caught as soon as it is there, and not again after a wait that ran past the budget
 * until a due packet comes fast again.
 */
class BoundedPollTest {
    private static final long BUDGET = TimeUnit.MILLISECONDS.toNanos(300);
    private final LongAdder caught = new LongAdder();
    private final LongAdder missed = new LongAdder();
    private final BoundedPoll poll = new BoundedPoll(caught, missed);

    /** A socket's input as its reader sees it: nothing until {@code at} (System.nanoTime), then a byte. */
    private static final class Arriving extends InputStream {
        volatile long at = Long.MAX_VALUE;
        volatile int asked;

        @Override
        public int available() {
            asked++;
            return System.nanoTime() - at >= 0 ? 1 : 0;
        }

        @Override
        public int read() throws IOException {
            throw new IOException("the poll only asks what is there");
        }
    }

    private static long millisSince(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    @Test
    void nothingDueIsAwaitedAsleep() throws IOException {
        Arriving in = new Arriving();
        long t0 = System.nanoTime();
        poll.before(in, false, BUDGET);
        assertEquals(0, in.asked, "not even asked");
        poll.before(in, true, 0);
        assertEquals(0, in.asked, "a budget of 0: no polling");
        assertTrue(millisSince(t0) < 100);
        assertEquals(0, caught.sum() + missed.sum());
    }

    @Test
    void aDuePacketIsCaughtAsSoonAsItIsThere() throws IOException {
        Arriving in = new Arriving();
        long t0 = System.nanoTime();
        in.at = t0 + TimeUnit.MILLISECONDS.toNanos(20);
        poll.before(in, true, BUDGET);
        long ms = millisSince(t0);
        assertTrue(ms >= 20 && ms < 300, "returned when it came, not at the budget: " + ms + " ms");
        assertEquals(1, caught.sum());
        assertEquals(0, missed.sum());
    }

    @Test
    void noMoreReadersPollAtOnceThanHalfTheCpus() throws Exception {
        List<Arriving> busy = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < BoundedPoll.MAX_POLLING; i++) {
            Arriving in = new Arriving();
            busy.add(in);
            BoundedPoll other = new BoundedPoll(new LongAdder(), new LongAdder());
            Thread t = new Thread(() -> {
                try {
                    other.before(in, true, TimeUnit.SECONDS.toNanos(30));
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
            threads.add(t);
            t.start();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (busy.stream().anyMatch(in -> in.asked < 2) && System.nanoTime() < deadline) Thread.sleep(1);
        try {
            assertTrue(!BoundedPoll.mayPoll(), BoundedPoll.MAX_POLLING + " readers poll");
            Arriving in = new Arriving();
            long t0 = System.nanoTime();
            poll.before(in, true, BUDGET);
            assertEquals(1, in.asked, "asked once, then off to sleep in the read: others poll");
            assertTrue(millisSince(t0) < 300);
            assertEquals(0, caught.sum() + missed.sum());
        } finally {
            for (Arriving in : busy) in.at = System.nanoTime();
            for (Thread t : threads) t.join();
        }
        assertTrue(BoundedPoll.mayPoll(), "their polls ended");
    }

    @Test
    void aPollThatRunsOutTurnsTheNextOffUntilADuePacketComesFastAgain() throws IOException {
        Arriving in = new Arriving();
        long t0 = System.nanoTime();
        poll.before(in, true, BUDGET); // nothing comes
        assertTrue(millisSince(t0) >= 300, "polled the whole budget");
        assertEquals(1, missed.sum());
        poll.after(); // the read came later still

        int asked = in.asked;
        long t1 = System.nanoTime();
        poll.before(in, true, BUDGET);
        assertEquals(asked + 1, in.asked, "asked once, then off to sleep in the read");
        assertTrue(millisSince(t1) < 300);
        in.at = System.nanoTime();
        poll.after(); // this one came at once

        in.at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        poll.before(in, true, BUDGET);
        assertEquals(1, caught.sum(), "polling again, and caught");
    }
}
