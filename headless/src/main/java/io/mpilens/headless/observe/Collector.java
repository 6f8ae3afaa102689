package io.mpilens.headless.observe;

import io.mpilens.api.job.HostName;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The collector's side of jobs across hosts ({@code mpilens collect}, started by the front end's
 * {@link HostCollectors}): this host's job records, and one job's ranks observed here over
 * loopback JDWP ({@link JobObserver}), as the {@link CollectorReport} it sends back.
 */
public final class Collector {
    private Collector() {
    }

    /**
     * This host's report: every job's records ({@code jobId} null), or one job's records, its ranks
     * read once (nothing when the job has no record here) and their daemons.
     */
    public static CollectorReport collect(JobDirectory dir, String jobId, Duration timeout) throws IOException {
        return collect(dir, jobId, timeout, false);
    }

    /**
     * The same, each answered rank with its snapshot ({@link RankStatus#snapshot()}, decoded here)
     * and with {@code frames} also the MPI call each of its threads is inside (each thread suspended
     * only while its frames are read, as {@code calls} without {@code --suspend}).
     */
    public static CollectorReport collect(JobDirectory dir, String jobId, Duration timeout, boolean frames) throws IOException {
        Map<Integer, List<BindingFrame>> threadFrames = Map.of();
        List<CollectorReport.Record> records = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        List<RankStatus> ranks = new ArrayList<>();
        List<HostView.Daemon> daemons = new ArrayList<>();
        for (JobDirectory.JobEntry j : dir.jobs()) {
            if (jobId != null && !j.id().equals(jobId)) continue;
            for (JobRecord r : j.records()) records.add(new CollectorReport.Record(r, LocalProcesses.processRunning(r)));
            refused.addAll(j.refused());
        }
        if (jobId != null && !records.isEmpty()) {
            JobObserver o = JobObserver.forJob(dir, jobId, timeout);
            if (frames) o.withFrames(false);
            JobModel m = o.observe();
            if (frames) threadFrames = o.frames();
            TreeSet<Long> parents = new TreeSet<>();
            for (RankStatus r : m.processes()) {
                ranks.add(r);
                if (r.parentPid() > 0) parents.add(r.parentPid());
            }
            for (long p : parents) {
                HostView.Daemon d = LocalProcesses.daemon(HostName.local(), p);
                if (d != null) daemons.add(d);
            }
        }
        return new CollectorReport(HostName.local(), jobId, records, ranks, daemons, refused, threadFrames);
    }
}
