package io.mpilens.headless.observe;

import io.mpilens.headless.ft.Liveness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The wait of the deadline rule ({@link Liveness#latecomerDeadline}): calls in flight (a rank's
 * read, a host's collector) are waited for until every one has ended or the latecomers' deadline
 * has passed, and the skew of the answers is kept from round to round. One per observer of a job's
 * ranks and one per set of collectors of other hosts.
 */
final class Latecomers {
    private Duration skew = Duration.ZERO;

    /** The largest spread of answers seen in one round so far. */
    Duration skew() {
        return skew;
    }

    /**
     * Waits until every call has ended or the deadline (set by the calls that answered, their
     * {@code answeredNanos} after {@code start}) has passed, then widens the skew to this round's
     * spread of answers. A call answered when its result completed normally.
     */
    <T> void await(Collection<T> calls, Function<T, CompletableFuture<?>> result, ToLongFunction<T> answeredNanos,
                   Duration floor, Duration cap, long start) {
        while (true) {
            List<Duration> answers = answers(calls, result, answeredNanos);
            boolean pending = calls.stream().anyMatch(c -> !result.apply(c).isDone());
            Duration deadline = Liveness.latecomerDeadline(answers, skew, floor, cap);
            if (!pending || Duration.ofNanos(System.nanoTime() - start).compareTo(deadline) >= 0) break;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<Duration> answered = answers(calls, result, answeredNanos);
        if (answered.size() > 1) {
            Duration spread = answered.stream().max(Duration::compareTo).orElseThrow()
                    .minus(answered.stream().min(Duration::compareTo).orElseThrow());
            if (spread.compareTo(skew) > 0) skew = spread;
        }
    }

    private static <T> List<Duration> answers(Collection<T> calls, Function<T, CompletableFuture<?>> result,
                                              ToLongFunction<T> answeredNanos) {
        List<Duration> out = new ArrayList<>();
        for (T c : calls) {
            CompletableFuture<?> r = result.apply(c);
            if (r.isDone() && !r.isCompletedExceptionally()) out.add(Duration.ofNanos(answeredNanos.applyAsLong(c)));
        }
        return out;
    }
}
