package io.mpilens.headless.observe;

import com.sun.jdi.VMDisconnectedException;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.headless.ft.FaultModel;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.InFlightCalls;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.Liveness;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.Replacements;
import io.mpilens.headless.ft.Timeline;
import io.mpilens.headless.ft.Transition;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Predicate;

/**
 * Follows a job round by round: reads every rank JVM in parallel (through {@link JobSnapshotter}),
 * waits for them by the deadline rule ({@link Latecomers}), reads again a rank whose listener moved
 * ({@link MovedListeners}), looks for evidence of death (process gone from this host,
 * {@link LocalProcesses}; VM disconnected), merges the other hosts' collectors and builds the
 * {@link JobModel}. Keeps the timeline, the observed skew and the last snapshot of each rank
 * across rounds. The ranks come from the job's records
 * ({@link #forJob}), or from bare JDWP addresses ({@link #forAddresses}: no pids, so no evidence
 * of death before the first answer).
 */
public final class JobObserver {
    private static final Duration FLOOR = Duration.ofSeconds(1);

    private final JobDirectory directory;
    private final String jobId;
    private final List<JdwpAddress> bareAddresses;
    private final Duration timeout;
    private final Clock clock;
    private final Timeline timeline = new Timeline();
    private final Map<Integer, ProcessSnapshot> views = new HashMap<>();
    private final Latecomers latecomers = new Latecomers();
    private boolean readFrames;
    private boolean suspendForFrames;
    /** Every rank gets the whole deadline ({@link #withWholeDeadline}), not the others' skew + 20%. */
    private boolean wholeDeadline;
    private final Map<Integer, List<BindingFrame>> frames = new HashMap<>();
    /** Collectors on other hosts ({@link #withHosts}), null for this host's ranks only. */
    private HostCollectors hosts;
    /** The launcher daemons the collectors reported in the last round, by host and pid. */
    private final Map<String, HostView.Daemon> remoteDaemons = new HashMap<>();
    private final List<String> remoteProblems = new ArrayList<>();

    private JobObserver(JobDirectory directory, String jobId, List<JdwpAddress> bareAddresses, Duration timeout, Clock clock) {
        this.directory = directory;
        this.jobId = jobId;
        this.bareAddresses = bareAddresses;
        this.timeout = timeout;
        this.clock = clock;
    }

    public static JobObserver forJob(JobDirectory directory, String jobId, Duration timeout) {
        return new JobObserver(directory, jobId, null, timeout, Clock.systemUTC());
    }

    public static JobObserver forAddresses(List<JdwpAddress> addresses, Duration timeout) {
        return new JobObserver(null, null, List.copyOf(addresses), timeout, Clock.systemUTC());
    }

    /**
     * Also read, in the same connection, the MPI call each thread is inside ({@link #frames()}).
     * {@code suspendVm}: suspend each rank's whole VM while reading it, for one consistent
     * picture; otherwise each thread is suspended only while its own frames are read.
     */
    public JobObserver withFrames(boolean suspendVm) {
        this.readFrames = true;
        this.suspendForFrames = suspendVm;
        return this;
    }

    /**
     * Also the job's ranks on these hosts, each round, through their collectors
     * ({@link HostCollectors}): merged into the same model, ranks of a host whose collector did not
     * answer in time {@code UNAVAILABLE}. Ranks on this host are still read here.
     */
    public JobObserver withHosts(HostCollectors collectors) {
        this.hosts = collectors;
        return this;
    }

    /**
     * A rank read here counts as not answering only once its own read gave up (its timeout to
     * connect, then to read), not when the others' skew + 20% has passed
     * ({@code status --wait-deadline}): Code_Aster's driver waits for its deadline the same way.
     */
    public JobObserver withWholeDeadline() {
        this.wholeDeadline = true;
        return this;
    }

    /**
     * From the second round on, also judge each rank's orphans and leaked handles against its last
     * answer: a count that grew is an alarm of the status word ({@link Timeline#judgeGrowth}).
     */
    public JobObserver judgingGrowth() {
        timeline.judgeGrowth();
        return this;
    }

    /** The binding frames of each rank that answered in the last round (ranks alone in their JVM only). */
    public Map<Integer, List<BindingFrame>> frames() {
        return Map.copyOf(frames);
    }

    /**
     * Each COMM_WORLD rank's snapshot from its last answer, in this round or an earlier one: what
     * a rank that died or stopped answering held (the model's views).
     */
    public Map<Integer, ProcessSnapshot> lastSnapshots() {
        return Map.copyOf(views);
    }

    /** Problems with the job's records (refused files), empty for bare addresses. */
    public List<String> refused() throws IOException {
        List<String> out = new ArrayList<>(directory == null || !hasLocalJob() ? List.of() : directory.job(jobId).refused());
        out.addAll(remoteProblems);
        return out;
    }

    /** Whether this host has records of the job (with collectors it may have none: every rank elsewhere). */
    private boolean hasLocalJob() {
        return hosts == null || Files.isDirectory(directory.root().resolve(jobId));
    }

    /** One round: every rank read once (within the deadline rule), the model rebuilt. */
    public JobModel observe() throws IOException {
        CompletableFuture<HostCollectors.Round> collecting = hosts == null || jobId == null ? null
                : hosts.collectAsync(jobId, timeout, readFrames);
        List<Target> targets = targets();
        Map<String, Attempt> byAddress = new LinkedHashMap<>();
        long start = System.nanoTime();
        for (Target t : targets) {
            if (t.address != null) byAddress.computeIfAbsent(t.address.toString(), a -> new Attempt(t.address, start));
        }
        awaitWithDeadline(byAddress.values(), start);

        List<RankStatus> ranks = new ArrayList<>();
        frames.clear();
        // a JVM of several ranks (MPJ Express multicore) is read once for all of them (MovedListeners)
        Map<String, Attempt> answeredByJvm = new HashMap<>();
        for (Target t : targets) {
            Attempt a = t.address == null ? null : byAddress.get(t.address.toString());
            if (a != null && a.outcome == Liveness.Outcome.ANSWERED && t.record != null) {
                answeredByJvm.putIfAbsent(MovedListeners.jvm(t.record), a);
            }
        }
        List<Replacements.Spawned> spawned = new ArrayList<>();
        List<JobRecord> onOtherHosts = new ArrayList<>();
        for (Target t : targets) {
            if (t.record != null && LocalProcesses.runsElsewhere(t.record)) {
                if (!t.record.spawned()) onOtherHosts.add(t.record);
                continue;
            }
            Attempt a = t.address == null ? null : byAddress.get(t.address.toString());
            if (t.record != null && t.record.spawned()) { // numbered by its own COMM_WORLD: placed below
                if (a != null && a.outcome == Liveness.Outcome.REFUSED && !LocalProcesses.ended(t.record)) {
                    a = followMovedListener(t, a);
                }
                for (RankStatus r : statuses(t, a)) spawned.add(new Replacements.Spawned(r, t.record.namespace()));
                continue;
            }
            if (a != null && a.outcome == Liveness.Outcome.REFUSED && t.record != null && !LocalProcesses.ended(t.record)) {
                Attempt same = answeredByJvm.get(MovedListeners.jvm(t.record));
                if (same != null && MovedListeners.readAlready(t.record.rank(), same.snapshots)) {
                    a = same;
                } else {
                    a = followMovedListener(t, a); // the JVM re-listens on a new port after a debugger detached
                    if (a.outcome == Liveness.Outcome.ANSWERED) answeredByJvm.putIfAbsent(MovedListeners.jvm(t.record), a);
                }
            }
            ranks.addAll(statuses(t, a));
        }
        if (collecting != null) mergeHosts(ranks, targets, collecting.join());
        elsewhere(ranks, onOtherHosts);
        // with the threads' calls read, a communicator whose survivors are rebuilding it is RECOVERING
        return FaultModel.observed(jobId != null ? jobId : "(addresses)", clock.instant(), ranks, Map.copyOf(views), spawned,
                this::daemon, timeline, readFrames ? Map.copyOf(frames) : null);
    }

    /**
     * Observes round after round, {@code pause} apart, until {@code done} holds for the model or
     * {@code limit} has passed; returns the last model either way (callers check what they need).
     */
    public JobModel observeUntil(Predicate<JobModel> done, Duration pause, Duration limit)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        JobModel m = observe();
        while (!done.test(m) && System.nanoTime() < deadline) {
            Thread.sleep(pause.toMillis());
            m = observe();
        }
        return m;
    }

    public List<Transition> timeline() {
        return timeline.transitions();
    }

    // ------------------------------------------------------------------ targets

    private record Target(JobRecord record, JdwpAddress address) {
    }

    private List<Target> targets() throws IOException {
        List<Target> out = new ArrayList<>();
        if (directory == null) {
            for (JdwpAddress a : bareAddresses) out.add(new Target(null, a));
            return out;
        }
        if (!hasLocalJob()) return out;
        for (JobRecord r : directory.job(jobId).records()) {
            // a record of another host (a job directory shared between hosts, MPILENS_JOBS): its JDWP
            // address is that host's loopback, which here is some other process's or nobody's
            out.add(new Target(r, LocalProcesses.runsElsewhere(r) ? null : r.jdwpAddress()));
        }
        return out;
    }

    /**
     * Adds the ranks the collectors observed on their hosts (not this one's: read here) to
     * {@code ranks}, and for every rank of the job that nobody reported, an {@code UNAVAILABLE}
     * one naming the hosts whose collectors did not answer.
     */
    private void mergeHosts(List<RankStatus> ranks, List<Target> targets, HostCollectors.Round round) {
        remoteDaemons.clear();
        remoteProblems.clear();
        int size = 0;
        for (Target t : targets) if (t.record != null) size = Math.max(size, t.record.size());
        for (CollectorReport r : round.reports()) {
            if (LocalProcesses.isLocal(r.host())) continue; // this host's ranks were read here
            for (CollectorReport.Record x : r.records()) if (!x.record().spawned()) size = Math.max(size, x.record().size());
            ranks.addAll(r.ranks());
            // the snapshots the collector decoded there: shown like the ones read here
            for (RankStatus x : r.ranks()) {
                if (x.snapshot() != null && x.rank() >= 0 && x.snapshot().rank() == x.rank()) views.put(x.rank(), x.snapshot());
            }
            if (readFrames) frames.putAll(r.frames());
            for (HostView.Daemon d : r.daemons()) remoteDaemons.put(r.host() + "/" + d.pid(), d);
            for (String why : r.refused()) remoteProblems.add("on " + r.host() + ": " + why);
        }
        for (Map.Entry<String, String> e : round.unanswered().entrySet()) {
            remoteProblems.add("host " + e.getKey() + ": " + e.getValue());
        }
        if (round.unanswered().isEmpty()) return;
        Set<Integer> known = new HashSet<>();
        for (RankStatus r : ranks) known.add(r.rank());
        String silent = String.join(", ", round.unanswered().keySet());
        String host = round.unanswered().size() == 1 ? silent : null;
        for (int rank = 0; rank < size; rank++) {
            if (known.contains(rank)) continue;
            ranks.add(new RankStatus(rank, 0, 0, 0, host, null, ProcessState.UNAVAILABLE,
                    "no report: the collector on " + silent + " did not answer in time", -1, null));
        }
    }

    /**
     * The ranks this host has records of that run on other hosts and that no collector reported
     * (none was asked for their host, or its name was spelt differently): {@code UNAVAILABLE},
     * saying how to read them. Never connected to from here.
     */
    private void elsewhere(List<RankStatus> ranks, List<JobRecord> onOtherHosts) {
        Set<Integer> known = new HashSet<>();
        for (RankStatus r : ranks) known.add(r.rank());
        for (JobRecord r : onOtherHosts) {
            if (!known.add(r.rank())) continue;
            ranks.add(new RankStatus(r.rank(), r.epoch(), r.pid(), r.parentPid(), r.host(),
                    r.jdwpAddress() == null ? null : r.host() + "/" + r.jdwpAddress(), ProcessState.UNAVAILABLE,
                    LocalProcesses.readElsewhere(r), -1, null));
        }
    }

    /** A launcher daemon on this host (looked up here) or on another (as its collector reported it). */
    private HostView.Daemon daemon(String host, Long pid) {
        return LocalProcesses.isLocal(host) ? LocalProcesses.daemon(host, pid) : remoteDaemons.get(host + "/" + pid);
    }

    /** A refused rank read again where its record names its JVM's listener now ({@link MovedListeners#follow}). */
    private Attempt followMovedListener(Target t, Attempt failed) throws IOException {
        return MovedListeners.follow(directory, jobId, t.record, t.address, failed, timeout, this::readAt,
                a -> a.outcome == Liveness.Outcome.REFUSED ? a.address : null);
    }

    // ------------------------------------------------------------------ reading

    private final class Attempt {
        final JdwpAddress address;
        final CompletableFuture<JobSnapshotter.Reading> result = new CompletableFuture<>();
        volatile long answeredNanos = -1;
        Liveness.Outcome outcome;
        String message;
        List<ProcessSnapshot> snapshots = List.of();
        List<BindingFrame> threadFrames = List.of();

        Attempt(JdwpAddress address, long start) {
            this.address = address;
            Thread t = new Thread(() -> {
                try {
                    JobSnapshotter.Reading s = new JobSnapshotter(timeout, readFrames && suspendForFrames)
                            .read(address, readFrames);
                    answeredNanos = System.nanoTime() - start;
                    result.complete(s);
                } catch (Throwable e) {
                    answeredNanos = System.nanoTime() - start;
                    result.completeExceptionally(e);
                }
            }, "mpilens-observe-" + address);
            t.setDaemon(true);
            t.start();
        }
    }

    /** One JVM read at {@code address}, within the deadline rule. */
    private Attempt readAt(JdwpAddress address) {
        long start = System.nanoTime();
        Attempt a = new Attempt(address, start);
        awaitWithDeadline(List.of(a), start);
        return a;
    }

    /** Waits for all attempts, cutting latecomers at {@link Liveness#latecomerDeadline}. */
    private void awaitWithDeadline(Collection<Attempt> attempts, long start) {
        Duration cap = timeout.multipliedBy(2).plusSeconds(1); // connect, then read, as JobSnapshotter allows
        latecomers.await(attempts, a -> a.result, a -> a.answeredNanos, wholeDeadline ? cap : FLOOR, cap, start);
        for (Attempt a : attempts) {
            if (!a.result.isDone()) {
                a.outcome = Liveness.Outcome.TIMED_OUT;
                a.message = "did not answer within the deadline";
                continue;
            }
            try {
                JobSnapshotter.Reading reading = a.result.getNow(null);
                a.snapshots = reading.processes();
                a.threadFrames = reading.frames();
                a.outcome = Liveness.Outcome.ANSWERED;
            } catch (CompletionException e) {
                Throwable c = e.getCause();
                a.outcome = outcomeOf(c);
                a.message = c.getMessage();
            }
        }
    }

    static Liveness.Outcome outcomeOf(Throwable e) {
        if (e instanceof RegistryNotFoundException) return Liveness.Outcome.NO_AGENT;
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof ConnectException) return Liveness.Outcome.REFUSED;
            if (c instanceof VMDisconnectedException) return Liveness.Outcome.DISCONNECTED;
        }
        String m = String.valueOf(e.getMessage());
        if (m.contains("disconnected")) return Liveness.Outcome.DISCONNECTED;
        return Liveness.Outcome.TIMED_OUT;
    }

    private List<RankStatus> statuses(Target t, Attempt a) {
        List<RankStatus> out = new ArrayList<>();
        long answerMillis = a != null && a.outcome == Liveness.Outcome.ANSWERED ? a.answeredNanos / 1_000_000 : -1;
        String address = a != null ? a.address.toString() : null;
        if (a != null && a.outcome == Liveness.Outcome.ANSWERED) {
            // ranks sharing a JVM (MPJ Express multicore): each frame by its class loader's COMM_WORLD
            for (Map.Entry<Integer, List<BindingFrame>> e : InFlightCalls.byRank(a.threadFrames, a.snapshots).entrySet()) {
                if (t.record != null && t.record.spawned()) break; // numbered by its own COMM_WORLD (frames of replacements: not yet)
                if (t.record == null || a.snapshots.size() == 1 || e.getKey() == t.record.rank()) {
                    frames.put(e.getKey(), e.getValue());
                }
            }
            for (ProcessSnapshot p : a.snapshots) {
                if (t.record != null && p.rank() != t.record.rank() && p.rank() >= 0) continue; // multicore: one record per rank
                Liveness.Verdict v = Liveness.judge(Liveness.Outcome.ANSWERED, p.mpiState(), true, false);
                boolean spawned = t.record != null && t.record.spawned();
                if (p.rank() >= 0 && !spawned) views.put(p.rank(), p);
                out.add(new RankStatus(spawned ? t.record.rank() : p.rank(), t.record != null ? t.record.epoch() : 0, p.pid(),
                        t.record != null ? t.record.parentPid() : 0, p.host(), address, v.state(), v.evidence(), answerMillis, p));
            }
            if (!out.isEmpty()) return out;
        }
        Liveness.Outcome outcome = a == null ? Liveness.Outcome.NO_ADDRESS
                : a.outcome == Liveness.Outcome.ANSWERED ? Liveness.Outcome.NO_AGENT : a.outcome;
        if (t.record == null) {
            out.add(new RankStatus(-1, 0, 0, 0, null, address, Liveness.judge(outcome, MpiState.INITIALIZED, null, false).state(),
                    a == null ? "no address" : a.message, -1, null));
            return out;
        }
        JobRecord r = t.record;
        Boolean alive = LocalProcesses.processRunning(r);
        // read before the process was found gone: it may have finalized and exited since (its mark is in the file)
        if (Boolean.FALSE.equals(alive) && !r.finalized() && directory != null) r = directory.reread(r);
        Liveness.Verdict v = Liveness.judge(outcome, null, alive, r.finalized());
        String evidence = v.evidence();
        if (v.state() == ProcessState.UNAVAILABLE && Boolean.TRUE.equals(alive) && LocalProcesses.stopped(r.pid())) {
            evidence += "; process " + r.pid() + " is stopped (SIGSTOP?)";
        }
        out.add(new RankStatus(r.rank(), r.epoch(), r.pid(), r.parentPid(), r.host(), address, v.state(), evidence, -1, null,
                alive));
        return out;
    }

    @Override
    public String toString() {
        return "JobObserver[" + Objects.requireNonNullElse(jobId, String.valueOf(bareAddresses)) + "]";
    }

}
