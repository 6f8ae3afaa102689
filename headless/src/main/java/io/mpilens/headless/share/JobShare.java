package io.mpilens.headless.share;

import io.mpilens.api.job.HostName;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.job.ProcessStart;
import io.mpilens.headless.job.ShareRecords;
import io.mpilens.headless.json.JsonWriter;
import io.mpilens.headless.observe.LocalProcesses;
import io.mpilens.headless.text.RankRanges;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A job's share on this host: a {@link RankShare} for every rank JVM of the job that runs here,
 * as their records appear, each for as long as its JVM lives; the ports written beside the
 * job's records ({@link ShareRecords}) while they serve. One per host and job.
 */
public final class JobShare implements AutoCloseable {
    /** How often the records are read again for ranks that registered or ended. */
    static final Duration ROUND = Duration.ofMillis(250);
    /** How long a rank that could not be shared waits before it is tried again. */
    static final Duration RETRY = Duration.ofSeconds(5);

    private final JobDirectory directory;
    private final String jobId;
    private final String host;
    private final int basePort;
    private final Duration timeout;
    private final Consumer<String> log;
    /** Rank JVM pid to its share. */
    private final Map<Long, Served> served = new LinkedHashMap<>();
    private final Map<Long, Long> retryAt = new HashMap<>();
    private final Map<Long, String> lastProblem = new HashMap<>();
    private volatile boolean closed;
    private boolean sawRecords;

    /**
     * One rank JVM being served: the label ("rank 2", "ranks 0-3" for MPJ Express multicore's
     * ranks in one JVM, or a spawned process's), its ranks, its share.
     */
    public record Served(String label, List<Integer> ranks, long pid, RankShare share) {
        /** Its first rank (of a spawned process: in its own COMM_WORLD). */
        public int rank() {
            return ranks.get(0);
        }

        /** Its ranks as a list of runs: "2", "0-3". */
        public String rankList() {
            return RankRanges.format(ranks, ",");
        }

        public boolean spawned() {
            return label.startsWith("spawned");
        }
    }

    /**
     * @param basePort 0: free ports; otherwise rank r gets {@code basePort + r}
     * @param log      one line per rank shared, not shared (with why) or ended
     */
    public JobShare(JobDirectory directory, String jobId, int basePort, Duration timeout, Consumer<String> log) {
        this.directory = directory;
        this.jobId = jobId;
        this.host = HostName.local();
        this.basePort = basePort;
        this.timeout = timeout;
        this.log = log;
    }

    /** Fails with the reason when another share of this job runs on this host. */
    public void checkNoOtherShare() throws IOException {
        for (JobRecord r : directory.job(jobId).records()) {
            if (r.share() != null && LocalProcesses.isLocal(r.host())) {
                throw new IOException("job " + jobId + " is already shared on this host (rank " + r.rank() + " at " + r.share()
                        + "): attach to those ports, or end that 'mpilens share' first");
            }
        }
    }

    /**
     * One round: shares the JVMs that registered since, forgets the ones that ended; returns
     * whether the set of shared ranks changed.
     */
    public synchronized boolean round() throws IOException {
        if (closed) return false;
        boolean changed = false;
        for (Map.Entry<Long, Served> e : new ArrayList<>(served.entrySet())) {
            if (e.getValue().share().vm().ended().isDone()) {
                served.remove(e.getKey());
                log.accept(e.getValue().label() + " ended (" + e.getValue().share().vm().ended().getNow("") + ")");
                changed = true;
            }
        }
        JobDirectory.JobEntry job;
        try {
            job = directory.job(jobId);
        } catch (IOException e) {
            if (!sawRecords) return changed; // not registered yet: ranks register when MPI_Init returns
            throw e;
        }
        for (JobRecord r : job.records()) {
            sawRecords = true;
            if (served.containsKey(r.pid()) || LocalProcesses.runsElsewhere(r) || LocalProcesses.ended(r)) continue;
            JdwpAddress jvm = r.jvmAddress();
            List<Integer> ranks = new ArrayList<>();
            for (JobRecord same : job.records()) if (same.pid() == r.pid() && same.spawned() == r.spawned()) ranks.add(same.rank());
            String label = r.spawned() ? "spawned pid " + r.pid()
                    : (ranks.size() == 1 ? "rank " : "ranks ") + RankRanges.format(ranks, ",");
            if (jvm == null) {
                problem(r.pid(), label + " is not shared: its JVM has no JDWP listener (start it with -agentlib:jdwp=...)");
                continue;
            }
            Long at = retryAt.get(r.pid());
            if (at != null && System.nanoTime() < at) continue;
            try {
                int port = basePort > 0 && !r.spawned() ? basePort + r.rank() : 0;
                RankShare share = RankShare.open(jvm, port, timeout, label.replace(' ', '-'));
                served.put(r.pid(), new Served(label, List.copyOf(ranks), r.pid(), share));
                retryAt.remove(r.pid());
                lastProblem.remove(r.pid());
                changed = true;
            } catch (IOException e) {
                retryAt.put(r.pid(), System.nanoTime() + RETRY.toNanos());
                problem(r.pid(), label + " is not shared: " + e.getMessage());
            }
        }
        if (changed) publish(job);
        return changed;
    }

    private void problem(long pid, String line) {
        if (!line.equals(lastProblem.put(pid, line))) log.accept(line);
    }

    private void publish(JobDirectory.JobEntry job) throws IOException {
        StringBuilder lines = new StringBuilder();
        long me = ProcessHandle.current().pid(), start = ShareRecords.thisProcessStart(), ticks = ProcessStart.ticksOfThisProcess();
        for (Served s : served.values()) {
            lines.append(new JsonWriter().beginObject().field("schema", ShareRecords.SCHEMA).field("sharePid", me)
                    .field("shareStart", start).field("shareTicks", ticks).field("host", host).field("rank", s.rank()).field("pid", s.pid())
                    .field("jvm", s.share().jvm().toString()).field("port", s.share().address().toString()).endObject())
                    .append('\n');
        }
        if (served.isEmpty()) ShareRecords.remove(job.dir(), host);
        else ShareRecords.write(job.dir(), host, lines.toString());
    }

    /** The JVMs served now, in the order they were shared. */
    public synchronized List<Served> served() {
        return List.copyOf(served.values());
    }

    /**
     * Whether the job is over here: it registered, and every rank of it on this host has ended and
     * no share serves any more.
     */
    public synchronized boolean jobEnded() throws IOException {
        if (!sawRecords || !served.isEmpty()) return false;
        for (JobRecord r : directory.job(jobId).records()) {
            if (!LocalProcesses.runsElsewhere(r) && !LocalProcesses.ended(r)) return false;
        }
        return true;
    }

    /** Rounds until the job ends here or {@link #close()} is called. */
    public void serve(Runnable onChange) throws IOException, InterruptedException {
        while (!closed) {
            if (round()) onChange.run();
            if (jobEnded()) return;
            Thread.sleep(ROUND.toMillis());
        }
    }

    /** Ends every rank's share (their debuggers are dropped) and removes the ports from beside the records. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        for (Served s : served.values()) s.share().close();
        served.clear();
        try {
            ShareRecords.remove(directory.root().resolve(jobId), host);
        } catch (IOException ignored) {
            // the directory went with the job
        }
    }
}
