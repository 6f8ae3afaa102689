package io.mpilens.plugin.debug;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.observe.LocalProcesses;
import io.mpilens.plugin.model.RankView;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The rest of a job whose rank a launch debugs through a share ({@code mpilens share}; a plain
 * <i>Remote Java Application</i> attached to a share's port): the job's other ranks on this host,
 * read through the share's ports as the {@code --job} commands read them, so the MPI views show
 * the whole job beside the rank in the debugger. Blocks on JDWP: never on the UI thread.
 */
final class SharedJob {
    private final String jobId;
    private final JobObserver observer;

    private SharedJob(String jobId, JobObserver observer) {
        this.jobId = jobId;
        this.observer = observer;
    }

    /**
     * The job of one of the rank JVMs {@code pids} (on this host) when a running share serves that
     * JVM (its record names the share's port), else null: a JVM attached directly is not shared,
     * and reading its job's other ranks without a share would move their JDWP listeners.
     */
    static SharedJob find(JobDirectory dir, Collection<Long> pids, Duration timeout) throws IOException {
        for (JobDirectory.JobEntry j : dir.jobs()) {
            for (JobRecord r : j.records()) {
                if (r.share() != null && pids.contains(r.pid()) && LocalProcesses.isLocal(r.host())) {
                    // each rank suspended only while its own threads' frames are read (a debugger's stop stays)
                    return new SharedJob(j.id(), JobObserver.forJob(dir, j.id(), timeout).withFrames(false));
                }
            }
        }
        return null;
    }

    String jobId() {
        return jobId;
    }

    /** One round over the job: its ranks in JVMs other than {@code debugged} (read by the launch's targets). */
    List<RankView> others(Collection<Long> debugged) throws IOException {
        JobModel m = observer.observe();
        Map<Integer, List<BindingFrame>> frames = observer.frames();
        Map<Integer, ProcessSnapshot> last = observer.lastSnapshots();
        List<RankView> out = new ArrayList<>();
        for (RankStatus r : m.processes()) {
            if (debugged.contains(r.pid())) continue;
            // a rank that died or stopped answering keeps showing what it held at its last answer
            ProcessSnapshot p = r.snapshot() != null ? r.snapshot() : last.get(r.rank());
            String where = r.address() == null || r.address().isEmpty() ? "" : " (through the share, " + r.address() + ")";
            out.add(new RankView("rank " + r.rank() + where, p, r.state(), false,
                    r.state() == ProcessState.OK ? null : r.evidence(), frames.get(r.rank())));
        }
        return out;
    }
}
