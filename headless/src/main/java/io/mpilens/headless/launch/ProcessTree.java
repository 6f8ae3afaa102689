package io.mpilens.headless.launch;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Ends processes the launcher started, with everything they started in turn (also the tests' MPJ daemons across hosts). */
public final class ProcessTree {
    private ProcessTree() {
    }

    /** The roots and all their living descendants, leaves last. */
    public static Set<ProcessHandle> withDescendants(List<ProcessHandle> roots) {
        Set<ProcessHandle> out = new LinkedHashSet<>();
        for (ProcessHandle r : roots) {
            if (r == null) continue;
            out.add(r);
            r.descendants().forEach(out::add);
        }
        return out;
    }

    /**
     * Living processes whose command line contains {@code marker}: the ranks a dead daemon
     * left to init. The marker is a path unique to one job, so nothing else matches.
     */
    static List<ProcessHandle> byCommandLine(String marker) {
        List<ProcessHandle> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        Predicate<ProcessHandle> matches = p -> p.pid() != self
                && p.info().commandLine().map(c -> c.contains(marker)).orElse(false);
        ProcessHandle.allProcesses().filter(matches).forEach(out::add);
        return out;
    }

    /** SIGTERM to all, up to {@code graceMillis} to go, then SIGKILL to what is left. */
    public static void destroy(Set<ProcessHandle> processes, long graceMillis) {
        for (ProcessHandle p : processes) p.destroy();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
        for (ProcessHandle p : processes) {
            long left = deadline - System.nanoTime();
            if (left <= 0) break;
            try {
                p.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Exception e) {
                break; // still alive: killed below
            }
        }
        for (ProcessHandle p : processes) {
            if (p.isAlive()) p.destroyForcibly();
        }
        for (ProcessHandle p : processes) {
            try {
                p.onExit().get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                // a process that survives SIGKILL for 5 s is stuck in the kernel: nothing more to do
            }
        }
    }
}
