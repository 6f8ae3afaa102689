package io.mpilens.headless.share;

import java.util.HashMap;
import java.util.Map;

/**
 * The suspensions one client of a share holds on the JVM: whole-VM suspensions ({@code
 * VirtualMachine.Suspend}, events with policy ALL) and per-thread ones ({@code
 * ThreadReference.Suspend}, events with policy EVENT_THREAD). JDWP counts suspensions; when the
 * client leaves, exactly these are undone, so another client's (a debugger stopped at a
 * breakpoint) stay as they are.
 */
final class Suspensions {
    private int vm;
    private final Map<Long, Integer> threads = new HashMap<>();

    synchronized void vmSuspended() {
        vm++;
    }

    /**
     * {@code VirtualMachine.Resume}: undoes one VM suspension of this client; without one, it
     * resumed each thread once (what the JVM does), so one of each of its thread suspensions goes.
     */
    synchronized void vmResumed() {
        if (vm > 0) {
            vm--;
            return;
        }
        threads.replaceAll((t, n) -> n - 1);
        threads.values().removeIf(n -> n <= 0);
    }

    synchronized void threadSuspended(long thread) {
        threads.merge(thread, 1, Integer::sum);
    }

    synchronized void threadResumed(long thread) {
        Integer n = threads.get(thread);
        if (n == null) return; // resumed a suspension of someone else's or of the JVM's: not ours to count
        if (n <= 1) threads.remove(thread);
        else threads.put(thread, n - 1);
    }

    synchronized int vm() {
        return vm;
    }

    /** Thread id to how many suspensions of it this client holds. */
    synchronized Map<Long, Integer> threads() {
        return Map.copyOf(threads);
    }

    /** Takes every suspension out (the client left): what must be resumed for it. */
    synchronized Suspensions drain() {
        Suspensions out = new Suspensions();
        out.vm = vm;
        out.threads.putAll(threads);
        vm = 0;
        threads.clear();
        return out;
    }
}
