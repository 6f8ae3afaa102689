package io.mpilens.headless.observe;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.ft.Replacements;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The one "listener moved" rule, for every reader of a job: the CLI's one-shot commands
 * ({@link #retry}), and through the job's observer ({@link #follow}) {@code watch}, the
 * collectors and the Eclipse views. A JVM started with {@code address=...:0} listens on a new
 * port after a debugger (another mpilens, Eclipse) detached, and its agent rewrites the job record
 * (it looks every 250 ms): a rank refused at the address its record named is read again where the
 * record names it now ({@link #moved}). Under MPJ Express multicore one JVM holds several ranks,
 * whose records its agent rewrites one by one: a rank refused at a stale address is read already
 * when a reading of its JVM that answered holds it ({@link #readAlready}), and is not connected to
 * once more (every connection of ours moves the listener again).
 */
public final class MovedListeners {
    /** How long a round of the observer waits for a refused rank's record to name a new listener (it tries again next round). */
    static final Duration ROUND = Duration.ofMillis(400);
    /** The same for a one-shot command ({@code handles --job}): there is no next round. */
    private static final Duration COMMAND = Duration.ofSeconds(3);

    private MovedListeners() {
    }

    /**
     * Whether a reading that answered ({@code read}: the snapshots of the JVM that holds the rank,
     * or of every JVM read) holds {@code rank} of the job: a rank refused at a stale address of its
     * JVM takes its snapshot from there (MPJ Express multicore).
     */
    static boolean readAlready(int rank, Collection<ProcessSnapshot> read) {
        return rank >= 0 && read.stream().anyMatch(p -> p.rank() == rank);
    }

    /** The JVM a record's rank runs in: host and pid (one for every rank under MPJ Express multicore). */
    static String jvm(JobRecord r) {
        return r.host() + "/" + r.pid();
    }

    /**
     * Follows the listener of {@code record}'s JVM, refused at {@code tried}: reads the JVM where
     * its record names it now, and again while it keeps moving, within {@code timeout}. Another
     * reader (a {@code watch}, its collector, Eclipse) attaches and detaches meanwhile, and each
     * detach moves the listener; one retry lost that race often against a watch every 0.5 s.
     *
     * @param failed    the reading refused at {@code tried}
     * @param read      reads the JVM at an address
     * @param refusedAt the address at which a reading was refused, null when it was not
     * @return the last reading; {@code failed} when the record named no new address
     */
    static <A> A follow(JobDirectory directory, String jobId, JobRecord record, JdwpAddress tried, A failed,
                        Duration timeout, Function<JdwpAddress, A> read, Function<A, JdwpAddress> refusedAt)
            throws IOException {
        long until = System.nanoTime() + timeout.toNanos();
        A last = failed;
        JdwpAddress at = tried;
        while (true) {
            JdwpAddress now;
            try {
                now = record.spawned() ? moved(directory, jobId, record, at, ROUND)
                        : moved(directory, jobId, Map.of(record.rank(), at), ROUND).get(record.rank());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return last;
            }
            if (now == null) return last;
            last = read.apply(now);
            at = refusedAt.apply(last);
            if (at == null || System.nanoTime() >= until || LocalProcesses.ended(record)) return last;
        }
    }

    /**
     * The ranks among {@code tried} (rank → the JDWP address that failed) whose JVM listens
     * elsewhere now. Waits for the agents to say so: the records are read again every 100 ms until
     * every rank in {@code tried} has moved or ended, for at most {@code maxWait} (a loaded node
     * delays both the JVM's new listener and the agent's thread; a command's one fixed wait of
     * 400 ms was missed there). Rank → new address; empty when none moved. A spawned process is
     * tried under the rank it replaces.
     */
    public static Map<Integer, JdwpAddress> moved(JobDirectory directory, String jobId,
                                                  Map<Integer, JdwpAddress> tried, Duration maxWait)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            Thread.sleep(100);
            Map<Integer, JdwpAddress> out = new LinkedHashMap<>();
            int settled = 0;
            List<JobRecord> records = directory.job(jobId).records();
            Map<JobRecord, Integer> replaces = Replacements.replacing(records, LocalProcesses::ended);
            for (JobRecord r : records) {
                if (!r.spawned() && replaces.containsValue(r.rank())) continue; // the failed one: its replacement answers for it
                Integer rank = r.spawned() ? replaces.get(r) : Integer.valueOf(r.rank());
                JdwpAddress then = rank == null ? null : tried.get(rank);
                if (then == null) continue;
                if (LocalProcesses.ended(r)) {
                    settled++;
                } else if (r.jdwpAddress() != null && !r.jdwpAddress().equals(then)) {
                    out.put(rank, r.jdwpAddress());
                    settled++;
                }
            }
            if (settled >= tried.size() || System.nanoTime() > deadline) return out;
        }
    }

    /** {@link #moved(JobDirectory, String, Map, Duration)} for one record, found again by its file (a spawned process's rank is not the job's). */
    private static JdwpAddress moved(JobDirectory directory, String jobId, JobRecord record, JdwpAddress tried,
                                     Duration maxWait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (System.nanoTime() <= deadline) {
            Thread.sleep(100);
            for (JobRecord r : directory.job(jobId).records()) {
                if (!r.file().equals(record.file())) continue;
                if (LocalProcesses.ended(r)) return null;
                if (r.jdwpAddress() != null && !r.jdwpAddress().equals(tried)) return r.jdwpAddress();
            }
        }
        return null;
    }

    /** {@code read} without its failures at {@code addresses} (stale addresses of ranks read at another). */
    private static JobSnapshotter.WithAgentless without(JobSnapshotter.WithAgentless read, Set<String> addresses) {
        List<JobSnapshot.Failure> failures = new ArrayList<>();
        for (JobSnapshot.Failure f : read.job().failures()) if (!addresses.contains(f.address())) failures.add(f);
        return new JobSnapshotter.WithAgentless(new JobSnapshot(read.job().ranks(), failures), read.agentless());
    }

    /**
     * A one-shot command's reading of job {@code jobId}, with the ranks whose address failed and
     * whose record now names another one read once more ({@link #moved}, waiting up to 3 s).
     * Returns {@code read} with those ranks read again, or as it was; failures at addresses whose
     * every rank was read at another ({@link #readAlready}) are dropped.
     *
     * @param tried rank to the address {@code read} tried for it
     */
    public static JobSnapshotter.WithAgentless retry(JobDirectory directory, String jobId, JobSnapshotter snapshotter,
                                                     JobSnapshotter.WithAgentless read, Map<Integer, JdwpAddress> tried) {
        if (read.job().failures().isEmpty()) return read;
        Set<String> failed = new HashSet<>();
        for (JobSnapshot.Failure f : read.job().failures()) failed.add(f.address());
        List<ProcessSnapshot> have = read.job().ranks().stream().map(JobSnapshot.Rank::process).toList();
        Map<Integer, JdwpAddress> triedAndFailed = new LinkedHashMap<>();
        Set<String> covered = new HashSet<>(failed); // failed addresses whose every rank was read at another
        for (Map.Entry<Integer, JdwpAddress> e : tried.entrySet()) {
            if (!failed.contains(e.getValue().toString())) continue;
            if (!readAlready(e.getKey(), have)) {
                triedAndFailed.put(e.getKey(), e.getValue());
                covered.remove(e.getValue().toString());
            }
        }
        covered.removeIf(a -> tried.values().stream().noneMatch(t -> t.toString().equals(a)));
        if (triedAndFailed.isEmpty()) return covered.isEmpty() ? read : without(read, covered);
        Map<String, JdwpAddress> moved = new LinkedHashMap<>(); // failed address -> where that rank listens now
        try {
            moved(directory, jobId, triedAndFailed, COMMAND)
                    .forEach((rank, now) -> moved.put(triedAndFailed.get(rank).toString(), now));
        } catch (IOException e) {
            return read;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return read;
        }
        if (moved.isEmpty()) return covered.isEmpty() ? read : without(read, covered);
        JobSnapshotter.WithAgentless again = snapshotter.snapshotWithAgentless(new ArrayList<>(new LinkedHashSet<>(moved.values())));
        List<JobSnapshot.Rank> ranks = new ArrayList<>(read.job().ranks());
        for (JobSnapshot.Rank r : again.job().ranks()) if (!readAlready(r.process().rank(), have)) ranks.add(r);
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
