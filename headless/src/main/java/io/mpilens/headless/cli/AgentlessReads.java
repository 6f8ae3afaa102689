package io.mpilens.headless.cli;

import io.mpilens.headless.JobSnapshot;
import io.mpilens.headless.agentless.Agentless;
import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.api.target.TargetReadException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Agentless reads of live ranks, in parallel, each with its own deadline (connect, then read). */
record AgentlessReads(List<AgentlessProcess> processes, List<JobSnapshot.Failure> failures) {
    static AgentlessReads live(List<JdwpAddress> addresses, Duration timeout) {
        List<CompletableFuture<List<AgentlessProcess>>> reads = new ArrayList<>();
        for (JdwpAddress a : addresses) {
            CompletableFuture<List<AgentlessProcess>> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    f.complete(Agentless.readLive(a, timeout));
                } catch (Throwable e) {
                    f.completeExceptionally(e);
                }
            }, "mpilens-agentless-" + a);
            t.setDaemon(true);
            t.start();
            reads.add(f);
        }
        List<AgentlessProcess> processes = new ArrayList<>();
        List<JobSnapshot.Failure> failures = new ArrayList<>();
        long deadline = System.nanoTime() + 2 * timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        for (int i = 0; i < addresses.size(); i++) {
            String address = addresses.get(i).toString();
            try {
                processes.addAll(reads.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                failures.add(new JobSnapshot.Failure(address, address + " did not finish answering within "
                        + JdiTargetReader.seconds(timeout.multipliedBy(2)) + ": is the rank stopped (SIGSTOP) or"
                        + " overloaded? Try again, or with a longer --timeout"));
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                failures.add(new JobSnapshot.Failure(address, c instanceof TargetReadException ? c.getMessage()
                        : "reading " + address + " failed: " + c + " (please report this to the mpilens developers)"));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failures.add(new JobSnapshot.Failure(address, "interrupted while reading " + address));
            }
        }
        return new AgentlessReads(processes, failures);
    }
}
