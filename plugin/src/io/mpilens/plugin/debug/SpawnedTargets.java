package io.mpilens.plugin.debug;

import io.mpilens.headless.ft.Replacements;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.LocalProcesses;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IDebugTarget;

/**
 * FT-MPI's REBUILD in the debugger: the processes a job spawns ({@code MPI_Comm_spawn}, the
 * survivors' replacements of failed ranks) register in the job's records
 * ({@code spawned-<ns>-<r>.json}), not with the launch. Each one with a JDWP address becomes a
 * Java debug target of the job's launch, so the MPI views read it (the model places it as the
 * failed rank's next epoch) and breakpoints stop it. Blocks on JDWP: call it from the reading job.
 */
final class SpawnedTargets {
    private static final Duration ATTACH = Duration.ofSeconds(3);
    /** A record whose JVM could not be attached this often is left alone (another debugger holds it). */
    private static final int TRIES = 3;

    /** The job id (records directory) of each launch, found from its ranks' pids. */
    private final Map<ILaunch, String> jobOf = Collections.synchronizedMap(new WeakHashMap<>());
    /** Record files attached (or given up) per launch, with the tries so far. */
    private final Map<ILaunch, Map<Path, Integer>> tried = Collections.synchronizedMap(new WeakHashMap<>());
    private final Map<IDebugTarget, JobRecord> records = Collections.synchronizedMap(new WeakHashMap<>());

    /** The spawned process's record of a target attached here, or null for a rank the launcher started. */
    JobRecord recordOf(IDebugTarget t) {
        return records.get(t);
    }

    /**
     * Attaches the spawned processes of the launch's job (found by the pids of its ranks) that are
     * not debug targets yet; returns the new targets. Nothing when the job has no records here.
     */
    List<IDebugTarget> attachNew(ILaunch launch, Collection<Long> rankPids) {
        if (launch.isTerminated() || rankPids.isEmpty()) return List.of();
        JobDirectory directory = JobDirectory.forCurrentUser(System.getenv());
        try {
            String id = jobOf.get(launch);
            if (id == null) {
                for (JobDirectory.JobEntry j : directory.jobs()) {
                    if (j.records().stream().anyMatch(r -> !r.spawned() && rankPids.contains(r.pid()))) {
                        id = j.id();
                        break;
                    }
                }
                if (id == null) return List.of();
                jobOf.put(launch, id);
            }
            List<JobRecord> all = directory.job(id).records();
            Map<JobRecord, Integer> replacing = Replacements.replacing(all, LocalProcesses::ended);
            Map<Path, Integer> done = tried.computeIfAbsent(launch, l -> new HashMap<>());
            Set<Long> attachedPids = new HashSet<>();
            synchronized (records) {
                records.forEach((t, r) -> {
                    if (t.getLaunch() == launch) attachedPids.add(r.pid());
                });
            }
            List<IDebugTarget> out = new ArrayList<>();
            for (JobRecord r : all) {
                JdwpAddress a = r.jdwpAddress();
                if (!r.spawned() || a == null || attachedPids.contains(r.pid()) || LocalProcesses.ended(r)) continue;
                int n = done.merge(r.file(), 1, Integer::sum);
                if (n > TRIES) continue;
                Integer rank = replacing.get(r);
                String label = (rank != null ? "rank " + rank + " replacement" : "spawned process " + r.rank() + " of "
                        + r.namespace()) + " (pid " + r.pid() + ", " + a + ")";
                try {
                    for (IDebugTarget t : JobAttach.attachTargets(launch, List.of(a), List.of(label), ATTACH)) {
                        records.put(t, r);
                        out.add(t);
                    }
                    done.put(r.file(), TRIES + 1); // attached: never again
                } catch (CoreException e) {
                    // not listening yet, or another debugger holds it: tried again at the next read
                }
            }
            return out;
        } catch (IOException e) {
            return List.of(); // the records cannot be read: the views show the launch's own ranks
        }
    }
}
