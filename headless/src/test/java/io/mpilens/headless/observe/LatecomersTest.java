package io.mpilens.headless.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The deadline rule's wait: a call that never answers holds a round up only until the first
 * answer + the skew + 20% (at least the floor), never until the cap; the skew learnt in one round
 * is granted in the next.
 */
class LatecomersTest {
    /** A call in flight: answered {@code nanos} after the round's start, or not yet (an open future). */
    private record Call(CompletableFuture<Object> result, long nanos) {
        static Call answered(Duration after) {
            return new Call(CompletableFuture.completedFuture("snapshot"), after.toNanos());
        }

        static Call silent() {
            return new Call(new CompletableFuture<>(), -1);
        }
    }

    private static Duration await(Latecomers l, List<Call> calls, Duration floor, Duration cap) {
        long start = System.nanoTime();
        l.await(calls, Call::result, Call::nanos, floor, cap, start);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Test
    void aRankThatNeverAnswersIsCutAtTheFirstAnswerPlusTheFloorNotAtTheCap() {
        Latecomers l = new Latecomers();
        Duration waited = await(l, List.of(Call.answered(Duration.ofMillis(10)), Call.answered(Duration.ofMillis(110)),
                Call.silent()), Duration.ofMillis(300), Duration.ofSeconds(30));
        // 10 ms + max(300 ms, 1.2 × 100 ms)
        assertTrue(waited.compareTo(Duration.ofMillis(300)) >= 0, "waited " + waited);
        assertTrue(waited.compareTo(Duration.ofSeconds(10)) < 0, "waited " + waited + ": the cap, not the deadline");
        assertEquals(Duration.ofMillis(100), l.skew(), "the spread of this round's answers");
    }

    @Test
    void theSkewOfOneRoundIsGrantedInTheNext() {
        Latecomers l = new Latecomers();
        await(l, List.of(Call.answered(Duration.ZERO), Call.answered(Duration.ofMillis(900))), Duration.ZERO, Duration.ofSeconds(30));
        assertEquals(Duration.ofMillis(900), l.skew());
        // one answer at 0 ms this round: the silent one gets 1.2 × 900 ms, not the 0 ms floor
        Duration waited = await(l, List.of(Call.answered(Duration.ZERO), Call.silent()), Duration.ZERO, Duration.ofSeconds(30));
        assertTrue(waited.compareTo(Duration.ofMillis(1080)) >= 0, "waited " + waited);
        assertTrue(waited.compareTo(Duration.ofSeconds(10)) < 0, "waited " + waited);
        assertEquals(Duration.ofMillis(900), l.skew(), "a round of one answer leaves the skew as it was");
    }

    @Test
    void aRoundInWhichEveryCallEndedIsNotWaitedFor() {
        Latecomers l = new Latecomers();
        CompletableFuture<Object> failed = new CompletableFuture<>();
        failed.completeExceptionally(new IllegalStateException("refused"));
        Duration waited = await(l, List.of(Call.answered(Duration.ZERO), new Call(failed, 5_000_000)),
                Duration.ofSeconds(20), Duration.ofSeconds(30));
        assertTrue(waited.compareTo(Duration.ofSeconds(5)) < 0, "waited " + waited);
        assertEquals(Duration.ZERO, l.skew(), "a failed call is no answer");
    }
}
