package io.mpilens.headless.observe;

import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A job read at the addresses its records named, again where a rank's JVM listens elsewhere
 * now: the one "listener moved" rule of the observer layer ({@link JobObserver#movedListeners}
 * decides which ranks moved; the CLI's one-shot commands and {@code watch} use it alike).
 */
public final class MovedListeners {
    private MovedListeners() {
    }

    /** {@code read} without its failures at {@code addresses} (stale addresses of ranks read at another). */
    private static JobSnapshotter.WithAgentless without(JobSnapshotter.WithAgentless read, Set<String> addresses) {
        List<JobSnapshot.Failure> failures = new ArrayList<>();
        for (JobSnapshot.Failure f : read.job().failures()) if (!addresses.contains(f.address())) failures.add(f);
        return new JobSnapshotter.WithAgentless(new JobSnapshot(read.job().ranks(), failures), read.agentless());
    }

    /**
     * Reads once more the ranks of job {@code jobId} whose address failed and whose record now
     * names another one: a JVM started with {@code address=...:0} listens on a new port after a
     * debugger (another mpilens, Eclipse) detached, and its agent updates the record. Returns
     * {@code read} with those ranks read again, or as it was; failures at addresses of ranks that
     * were read at another address are dropped.
     *
     * @param tried rank to the address {@code read} tried for it
     */
    public static JobSnapshotter.WithAgentless retry(JobDirectory directory, String jobId, JobSnapshotter snapshotter,
                                                     JobSnapshotter.WithAgentless read, Map<Integer, JdwpAddress> tried) {
        if (read.job().failures().isEmpty()) return read;
        Set<String> failed = new HashSet<>();
        for (JobSnapshot.Failure f : read.job().failures()) failed.add(f.address());
        // ranks read already: under MPJ Express multicore one JVM holds several ranks, and while its
        // agent rewrites their records after its listener moved, some may still name the old address
        Set<Integer> have = new HashSet<>();
        for (JobSnapshot.Rank r : read.job().ranks()) if (r.process().rank() >= 0) have.add(r.process().rank());
        Map<Integer, JdwpAddress> triedAndFailed = new LinkedHashMap<>();
        Set<String> covered = new HashSet<>(failed); // failed addresses whose every rank was read at another
        for (Map.Entry<Integer, JdwpAddress> e : tried.entrySet()) {
            if (!failed.contains(e.getValue().toString())) continue;
            if (!have.contains(e.getKey())) {
                triedAndFailed.put(e.getKey(), e.getValue());
                covered.remove(e.getValue().toString());
            }
        }
        covered.removeIf(a -> tried.values().stream().noneMatch(t -> t.toString().equals(a)));
        if (triedAndFailed.isEmpty()) return covered.isEmpty() ? read : without(read, covered);
        Map<String, JdwpAddress> moved = new LinkedHashMap<>(); // failed address -> where that rank listens now
        try {
            JobObserver.movedListeners(directory, jobId, triedAndFailed,
                    JobObserver.LISTENER_MOVE_COMMAND).forEach((rank, now) -> moved.put(triedAndFailed.get(rank).toString(), now));
        } catch (IOException e) {
            return read;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return read;
        }
        if (moved.isEmpty()) return covered.isEmpty() ? read : without(read, covered);
        JobSnapshotter.WithAgentless again = snapshotter.snapshotWithAgentless(new ArrayList<>(new LinkedHashSet<>(moved.values())));
        List<JobSnapshot.Rank> ranks = new ArrayList<>(read.job().ranks());
        for (JobSnapshot.Rank r : again.job().ranks()) if (!have.contains(r.process().rank())) ranks.add(r);
        List<JobSnapshot.Failure> failures = new ArrayList<>();
        for (JobSnapshot.Failure f : read.job().failures()) {
            if (!moved.containsKey(f.address()) && !covered.contains(f.address())) failures.add(f);
        }
        failures.addAll(again.job().failures());
        List<AgentlessProcess> agentless = new ArrayList<>(read.agentless());
        agentless.addAll(again.agentless());
        return new JobSnapshotter.WithAgentless(new JobSnapshot(ranks, failures), agentless);
    }

}
