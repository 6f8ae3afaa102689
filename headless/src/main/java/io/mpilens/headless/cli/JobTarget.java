package io.mpilens.headless.cli;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.ft.Replacements;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.observe.CollectorReport;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.LocalProcesses;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.observe.JobSnapshotter;
import io.mpilens.headless.observe.MovedListeners;
import io.mpilens.headless.text.RankRanges;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code --job ID} or {@code --attach HOST:PORT,…}: which ranks a command reads. */
final class JobTarget {
    private JobTarget() {
    }

    static final class Choice {
        @Option(names = "--attach", split = ",", paramLabel = "HOST:PORT",
                converter = HandlesCommand.AddressConverter.class, description = "JDWP addresses of the ranks, comma-separated.")
        List<JdwpAddress> addresses;

        @Option(names = "--job", paramLabel = "ID", description = "A job listed by 'mpilens jobs': all its ranks.")
        String job;
    }

    /**
     * Exactly one source of ranks: a live job ({@code --job}/{@code --attach}) or, for commands
     * that take them, heap dumps; anything else is a usage error naming what to give.
     */
    static void requireOneSource(CommandSpec spec, Choice target, boolean dumpsGiven) {
        if (target != null && dumpsGiven) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give either a live job (--job, --attach) or heap dump files, not both");
        }
        if (target == null && !dumpsGiven) {
            throw new CommandLine.ParameterException(spec.commandLine(), spec.positionalParameters().isEmpty()
                    ? "give --job ID or --attach HOST:PORT,..." : "give --job ID, --attach HOST:PORT,... or heap dump files");
        }
    }

    /**
     * The distinct JDWP addresses to read (one per rank JVM), and with {@code --job} each live
     * rank's address, both from one reading of the records: an agent rewrites its record when its
     * JVM's listener moves, so two readings can disagree, and a failure at an address the second
     * no longer names could not be retried ({@link #retryMoved}).
     *
     * @param toRead    the distinct addresses, one per rank JVM
     * @param byRank    with {@code --job}, each live rank's address
     * @param replacing the pid of each spawned process placed as a failed rank's replacement, with that rank
     *                  (by pid: it may be read again at a new address after its listener moved)
     * @param size      the job's size, -1 when unknown (bare addresses)
     */
    record Addresses(List<JdwpAddress> toRead, Map<Integer, JdwpAddress> byRank, Map<Long, Integer> replacing, int size) {
        Addresses(List<JdwpAddress> toRead, Map<Integer, JdwpAddress> byRank) {
            this(toRead, byRank, Map.of(), -1);
        }

        /**
         * {@code job} with each replacement's snapshot under the rank it replaces (of the job's
         * {@code size}), not under its own one-process COMM_WORLD.
         */
        JobSnapshot placed(JobSnapshot job) {
            if (replacing.isEmpty()) return job;
            List<JobSnapshot.Rank> ranks = new ArrayList<>();
            for (JobSnapshot.Rank r : job.ranks()) {
                ProcessSnapshot p = r.process();
                Integer rank = replacing.get(p.pid());
                ranks.add(rank == null ? r : new JobSnapshot.Rank(r.address(), new ProcessSnapshot(rank, size, p.pid(), p.host(),
                        p.binding(), p.mpiState(), p.layoutVersion(), p.agentHealth(), p.handles(), p.released(),
                        p.tornRows(), p.errors())));
            }
            return new JobSnapshot(ranks, job.failures());
        }
    }

    /**
     * With {@code --job}, reads once more the ranks whose address failed and whose record now
     * names another one ({@link MovedListeners#retry}, the observer layer's rule, which
     * {@code watch} and {@code cominfo} follow too). Returns {@code read} with those ranks read
     * again, or as it was.
     *
     * @param tried {@link Addresses#byRank} of the addresses {@code read} was taken from
     */
    static JobSnapshotter.WithAgentless retryMoved(Choice choice, Map<String, String> env, JobSnapshotter snapshotter,
                                                   JobSnapshotter.WithAgentless read, Map<Integer, JdwpAddress> tried) {
        if (choice.job == null) return read;
        return MovedListeners.retry(JobDirectory.forCurrentUser(env), choice.job, snapshotter, read, tried);
    }

    /**
     * The {@link Addresses} of the JVMs that hold these ranks ({@code ranks} null: all); ranks that
     * cannot be read (process gone from this host, no JDWP address) are left out, with one line
     * each in {@code problems}. With {@code --job}, a rank the job has no record of is one line in
     * {@code problems}; with {@code --attach} the ranks are known only once read, so every address
     * is returned and none by rank.
     */
    static Addresses addresses(Choice choice, Map<String, String> env, Set<Integer> ranks, List<String> problems)
            throws IOException {
        return addresses(choice, env, ranks, false, problems);
    }

    /**
     * The same; a rank whose record says it runs on another host (a job directory shared between
     * hosts) is never read here: with {@code othersCollected} its host's collector reports it,
     * otherwise it is one line in {@code problems} saying how to read it.
     */
    static Addresses addresses(Choice choice, Map<String, String> env, Set<Integer> ranks, boolean othersCollected,
                               List<String> problems) throws IOException {
        if (choice.addresses != null) return new Addresses(choice.addresses, Map.of());
        JobDirectory.JobEntry job = JobDirectory.forCurrentUser(env).job(choice.job);
        problems.addAll(job.refused());
        Map<JobRecord, Integer> replaces = Replacements.replacing(job.records(), LocalProcesses::ended);
        if (ranks != null) {
            Set<Integer> missing = new java.util.TreeSet<>(ranks);
            for (JobRecord r : job.records()) missing.remove(r.rank());
            if (!missing.isEmpty()) {
                problems.add("job " + job.id() + " has no rank " + RankRanges.format(
                        new ArrayList<>(missing), ",") + " (" + job.records().size() + " ranks registered: "
                        + RankRanges.format(job.records().stream().map(JobRecord::rank).toList(), ",")
                        + ")");
            }
        }
        LinkedHashSet<JdwpAddress> out = new LinkedHashSet<>();
        Map<Integer, JdwpAddress> byRank = new HashMap<>();
        Map<Long, Integer> replacing = new HashMap<>();
        for (JobRecord r : job.records()) {
            if (LocalProcesses.runsElsewhere(r)) {
                if (!othersCollected && !r.spawned() && (ranks == null || ranks.contains(r.rank()))) {
                    problems.add("rank " + r.rank() + " of job " + job.id() + " " + LocalProcesses.readElsewhere(r));
                }
                continue;
            }
            if (r.spawned()) { // read under the rank it replaces; one that replaces none is not a rank of the job
                Integer rank = replaces.get(r);
                if (rank == null || ranks != null && !ranks.contains(rank) || r.jdwpAddress() == null || LocalProcesses.ended(r)) continue;
                out.add(r.jdwpAddress());
                replacing.put(r.pid(), rank);
                byRank.put(rank, r.jdwpAddress()); // retried under that rank when its listener moved
                continue;
            }
            if (ranks != null && !ranks.contains(r.rank())) continue;
            if (LocalProcesses.ended(r)) {
                problems.add("rank " + r.rank() + " of job " + job.id() + " (pid " + r.pid() + ") has ended: its"
                        + " process is gone; if it left a heap dump, read it with 'mpilens dump FILE'");
            } else if (r.jdwpAddress() != null) {
                out.add(r.jdwpAddress());
                byRank.put(r.rank(), r.jdwpAddress());
            } else problems.add("rank " + r.rank() + " of job " + job.id() + " registered no JDWP address:"
                    + " start its JVM with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0");
        }
        if (job.records().isEmpty()) throw new IOException("job " + job.id() + " has no readable rank record");
        return new Addresses(new ArrayList<>(out), byRank, replacing, job.size());
    }

    /** What {@link #read} found: every rank read here and on the other hosts, and the JVMs here without the agent. */
    record Read(JobSnapshot job, List<AgentlessProcess> agentless, boolean problems) {
    }

    /**
     * The ranks of {@code choice}: this host's read with {@code snapshotter} ({@code only}: just
     * these ranks, when no other host is read), while the {@code collectors} (null: none) read
     * theirs; a rank a record or a collector could not give is a failure of the snapshot, a record
     * that could not be read a line on {@code err}. Null after a line on {@code err} when there is
     * nothing to read: no such job (exit code 2).
     */
    static Read read(Choice choice, Map<String, String> env, HostCollectors collectors, Set<Integer> only,
                     JobSnapshotter snapshotter, Duration timeout, PrintWriter err) {
        // the other hosts' collectors read their ranks while this host's are read here
        CompletableFuture<HostCollectors.Round> collecting = collectors == null || choice.job == null ? null
                : collectors.collectAsync(choice.job, timeout, false);
        List<String> problems = new ArrayList<>();
        boolean localJob = collecting == null
                || java.nio.file.Files.isDirectory(JobDirectory.forCurrentUser(env).root().resolve(choice.job));
        Addresses addresses;
        try {
            // with other hosts, their ranks are not this host's records: all of this host's are read, then filtered
            addresses = localJob ? addresses(choice, env, collecting == null ? only : null, collecting != null, problems)
                    : new Addresses(List.of(), Map.of());
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return null;
        }
        for (String p : problems) err.println("mpilens: " + p);
        JobSnapshotter.WithAgentless read = snapshotter.snapshotWithAgentless(addresses.toRead());
        if (localJob) read = retryMoved(choice, env, snapshotter, read, addresses.byRank());
        JobSnapshot job = addresses.placed(read.job());
        if (collecting != null) {
            job = withHosts(job, collecting.join());
            if (!localJob && job.ranks().isEmpty() && job.failures().isEmpty()) {
                err.println("mpilens: no job '" + choice.job + "' on this host nor on " + String.join(", ", collectors.hosts()));
                return null;
            }
        }
        return new Read(job, read.agentless(), !problems.isEmpty());
    }

    /**
     * {@code job} plus the ranks the collectors on other hosts read there (each with the snapshot it
     * decoded, under {@code HOST/ADDRESS}); a rank of theirs that did not answer and a host whose
     * collector did not answer are failures.
     */
    static JobSnapshot withHosts(JobSnapshot job, HostCollectors.Round round) {
        List<JobSnapshot.Rank> ranks = new ArrayList<>(job.ranks());
        List<JobSnapshot.Failure> failures = new ArrayList<>(job.failures());
        for (CollectorReport r : round.reports()) {
            if (LocalProcesses.isLocal(r.host())) continue; // read here
            for (RankStatus x : r.ranks()) {
                String where = r.host() + "/" + x.address();
                if (x.snapshot() != null) ranks.add(new JobSnapshot.Rank(where, x.snapshot()));
                else failures.add(new JobSnapshot.Failure(where, "rank " + x.rank() + " on " + r.host() + ": " + x.state()
                        + (x.evidence() == null ? "" : " (" + x.evidence() + ")")));
            }
        }
        for (Map.Entry<String, String> e : round.unanswered().entrySet()) {
            failures.add(new JobSnapshot.Failure("host " + e.getKey(), "host " + e.getKey() + ": " + e.getValue()));
        }
        return new JobSnapshot(ranks, failures);
    }
}
