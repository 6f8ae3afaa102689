package io.mpilens.plugin.debug;

import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.headless.MpiLens;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.InFlightCalls;
import io.mpilens.headless.ft.Liveness;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.Timeline;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.ThreadFrames;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.LocalProcesses;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.eclipse.core.runtime.Adapters;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IDebugEventSetListener;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.jdt.internal.debug.core.model.JDIDebugTarget;

/**
 * The MPI job of one launch as the MPI views show it: the ranks its Java debug targets read (one
 * per rank JVM), and where the launch debugs part of a job, the rest of it (the other ranks of a
 * share; the ranks on other hosts, read by their collectors), merged into one {@link JobView}; or a
 * job read once (heap dumps). Reached from the launch and its debug elements by adapters
 * ({@link #of}): an {@link MpiLaunch} holds its own, {@link MpiJobAdapters} makes one for another
 * launch with Java debug targets. While a view listens, every suspend, resume, terminate or create
 * of the launch's elements schedules a read in a background {@link Job}: the UI thread never talks
 * JDWP nor waits for a collector.
 */
public final class MpiJob implements IDebugEventSetListener {
    /** Launch attribute naming the job in the views; otherwise the launch configuration's name. */
    public static final String ATTR_JOB_NAME = "io.mpilens.jobName";
    private static final long COALESCE_MILLIS = 150;
    private static final String PLUGIN_ID = "io.mpilens.plugin";

    private final ILaunch launch;
    private final List<Consumer<JobView>> listeners = new CopyOnWriteArrayList<>();
    /** Last snapshot per rank JVM: a rank that dies keeps showing what it held. */
    private final Map<IDebugTarget, List<ProcessSnapshot>> lastRead = new ConcurrentHashMap<>();
    /** The job's history (states as they changed from read to read). */
    private final Timeline timeline = new Timeline();
    /** Resume events (the MPI Calls view compares two suspensions only across a resume). */
    private final AtomicInteger resumes = new AtomicInteger();
    /** The JVMs the launch's targets read (a share's other ranks are the rest). */
    private final Set<Long> debuggedPids = ConcurrentHashMap.newKeySet();
    private final SpawnedTargets spawned = new SpawnedTargets();
    private final Job reader;
    /** The job behind a launch that debugs some ranks of a shared job, once found. */
    private volatile SharedJob shared;
    /** The ranks read by collectors on other hosts, null for none. */
    private volatile JobAcrossHosts elsewhere;
    /** Their last round: shown on after the launch ended and the collectors were stopped. */
    private volatile JobView lastElsewhere;
    /** A job read once (heap dumps), not read again. */
    private volatile JobView fixed;
    private volatile JobView current;
    private boolean listening;

    MpiJob(ILaunch launch) {
        this.launch = launch;
        reader = Job.create("Reading MPI handles of the debugged job", this::read);
        reader.setSystem(true);
    }

    /**
     * The MPI job of a debug context element (launch, debug target, thread, frame, process), by
     * adapters; null when it has none (no MPI launch, no Java debug target).
     */
    public static MpiJob of(Object element) {
        return element == null ? null : Adapters.adapt(element, MpiJob.class);
    }

    /** The launch of a debug context element, by adapters; null for none. */
    public static ILaunch launchOf(Object element) {
        return element == null ? null : Adapters.adapt(element, ILaunch.class);
    }

    /** The launch whose job this is. */
    public ILaunch launch() {
        return launch;
    }

    /** The job as last read (before the first read: the job's name, no ranks). */
    public JobView current() {
        JobView c = current;
        return c != null ? c : new JobView(name() + " (not read yet)", List.of());
    }

    /** The collectors' side of a launch with ranks on other hosts, else null. */
    public JobAcrossHosts elsewhere() {
        return elsewhere;
    }

    /** Shows this job, read once elsewhere (heap dumps), and nothing else. */
    void show(JobView job) {
        fixed = job;
        current = job;
    }

    /**
     * Reads the ranks on other hosts through {@code collectors} too, from now on; the launch's
     * debug targets read the ranks on this host (a launch without targets shows the collectors'
     * job alone). Stopped with the launch.
     */
    public void readElsewhere(JobAcrossHosts collectors) {
        elsewhere = collectors;
    }

    /**
     * Listeners run in the reading job's thread; the job as last read, if it was, is delivered at
     * once (a job not read yet is not: a view keeps what it shows, expansion included, until then).
     */
    public synchronized void addListener(Consumer<JobView> l) {
        if (!listening) {
            DebugPlugin.getDefault().addDebugEventListener(this);
            listening = true;
        }
        listeners.add(l);
        JobView read = current;
        if (read != null) l.accept(read);
    }

    public synchronized void removeListener(Consumer<JobView> l) {
        listeners.remove(l);
        if (listeners.isEmpty() && listening) {
            DebugPlugin.getDefault().removeDebugEventListener(this);
            listening = false;
        }
    }

    /** Reads the job again soon, in the background (several calls within 150 ms read once). */
    public void refresh() {
        reader.cancel();
        reader.schedule(COALESCE_MILLIS);
    }

    /** Waits until the pending read, if any, is done (tests). */
    public void join() throws InterruptedException {
        reader.join();
    }

    /**
     * Reads the job now, in the caller's thread (never the UI thread: it waits for JDWP and the
     * collectors), and delivers it; returns how the read went (a host that did not answer, …).
     */
    public IStatus readNow() {
        return read(new NullProgressMonitor());
    }

    /**
     * Stops the collectors (the launch ended or was removed): their last round stays shown, and the
     * launch's own targets are still read (a last read after they terminated shows how).
     */
    public void close() {
        JobAcrossHosts e = elsewhere;
        elsewhere = null;
        if (e != null) e.close();
    }

    @Override
    public void handleDebugEvents(DebugEvent[] events) {
        boolean ours = false;
        for (DebugEvent e : events) {
            int k = e.getKind();
            if (k != DebugEvent.SUSPEND && k != DebugEvent.RESUME && k != DebugEvent.TERMINATE && k != DebugEvent.CREATE) {
                continue;
            }
            if (launchOf(e.getSource()) != launch) continue;
            if (k == DebugEvent.RESUME) resumes.incrementAndGet();
            ours = true;
        }
        if (ours) refresh();
    }

    private IStatus read(IProgressMonitor monitor) {
        JobView once = fixed;
        if (once != null) return deliver(once);
        List<RankView> ranks = new ArrayList<>();
        for (IDebugTarget t : launch.getDebugTargets()) {
            if (monitor.isCanceled()) return Status.CANCEL_STATUS;
            if (t instanceof JDIDebugTarget jt) ranks.addAll(readTarget(jt, spawned.recordOf(jt)));
        }
        // REBUILD: replacements the survivors spawned become debug targets of the launch too
        List<Long> pids = ranks.stream().filter(r -> r.process() != null && r.spawned() == null)
                .map(r -> r.process().pid()).toList();
        for (IDebugTarget t : spawned.attachNew(launch, pids)) {
            if (t instanceof JDIDebugTarget jt) ranks.addAll(readTarget(jt, spawned.recordOf(jt)));
        }
        JobAcrossHosts across = elsewhere;
        if (across != null || lastElsewhere != null) return readWithElsewhere(ranks, across);
        String name = name();
        SharedJob s = sharedJob(ranks);
        if (s != null) {
            // a launch debugging some ranks of a job through its share (a Remote Java Application on a
            // share's port): the job's other ranks read through the share too, so the views show the job
            try {
                ranks.addAll(s.others(Set.copyOf(debuggedPids)));
            } catch (IOException | RuntimeException e) {
                return new Status(IStatus.WARNING, PLUGIN_ID, "cannot read the other ranks of job " + s.jobId()
                        + " through its share: " + e.getMessage(), e);
            }
            name = "MPI job " + s.jobId() + " (" + name + ")";
        }
        return deliver(JobView.of(name, ranks, LocalProcesses::parentOf, LocalProcesses::daemon, timeline, resumes.get()));
    }

    /**
     * The launch's ranks here (its debug targets, {@code here}) and the ranks on other hosts as
     * their collectors read them, in one job: one model over both, each rank's launcher daemon and
     * parent taken where the rank runs. Without a rank here (all elsewhere, or Show MPI Job Across
     * Hosts) the collectors' job as they read it.
     */
    private IStatus readWithElsewhere(List<RankView> here, JobAcrossHosts across) {
        Set<Integer> ranksHere = new HashSet<>();
        for (RankView r : here) if (r.rank() >= 0) ranksHere.add(r.rank());
        JobView there = lastElsewhere;
        List<String> problems = List.of();
        if (across != null) {
            try {
                // a rank here is read by its debug target, not by (nor for want of) a collector
                there = across.read(ranksHere);
                problems = across.problems();
            } catch (IOException | RuntimeException e) {
                return new Status(IStatus.WARNING, PLUGIN_ID, "cannot read " + across.name() + ": " + e.getMessage(), e);
            }
            lastElsewhere = there;
        }
        JobView job = there;
        if (!here.isEmpty()) {
            List<RankView> all = new ArrayList<>(here);
            for (RankView r : there.ranks()) if (r.rank() < 0 || !ranksHere.contains(r.rank())) all.add(r);
            Map<String, Long> parents = new HashMap<>();
            Map<String, HostView.Daemon> daemons = new HashMap<>();
            for (RankStatus r : there.model().processes()) parents.put(r.host() + "/" + r.pid(), r.parentPid());
            for (HostView h : there.model().hosts()) for (HostView.Daemon d : h.daemons()) daemons.put(h.host() + "/" + d.pid(), d);
            String hosts = across != null ? String.join(", ", across.hosts()) : "other hosts";
            job = JobView.of(name() + " on this host and " + hosts, all,
                    (host, pid) -> LocalProcesses.isLocal(host) ? LocalProcesses.parentOf(pid)
                            : parents.getOrDefault(host + "/" + pid, 0L),
                    (host, pid) -> LocalProcesses.isLocal(host) ? LocalProcesses.daemon(host, pid) : daemons.get(host + "/" + pid),
                    timeline, resumes.get());
        }
        IStatus done = deliver(job);
        if (!done.isOK() || problems.isEmpty()) return done;
        return new Status(IStatus.WARNING, PLUGIN_ID, String.join("\n", problems));
    }

    private IStatus deliver(JobView job) {
        current = job;
        for (Consumer<JobView> c : listeners) c.accept(job);
        if (job.ranks().isEmpty() && elsewhere != null) {
            JobAcrossHosts e = elsewhere;
            return new Status(IStatus.WARNING, PLUGIN_ID, "no ranks of job '" + e.jobId() + "' on this host"
                    + (e.hosts().isEmpty() ? "" : " nor on " + String.join(", ", e.hosts()))
                    + " ('mpilens jobs --hosts H1,H2' lists the jobs there)");
        }
        return Status.OK_STATUS;
    }

    /**
     * The job behind a launch that reads part of it (fewer ranks than their COMM_WORLD has) when a
     * share serves the rank JVMs it debugs, else null; found once, looked for again at each read
     * until then. {@link #debuggedPids} keeps the JVMs the launch's targets read.
     */
    private SharedJob sharedJob(List<RankView> read) {
        Set<Long> pids = new HashSet<>();
        int worldSize = 0, ranks = 0;
        for (RankView r : read) {
            if (r.process() == null || r.spawned() != null) continue;
            pids.add(r.process().pid());
            worldSize = Math.max(worldSize, r.worldSize());
            ranks++;
        }
        debuggedPids.addAll(pids);
        SharedJob known = shared;
        if (known != null || pids.isEmpty() || ranks >= worldSize) return known;
        try {
            SharedJob found = SharedJob.find(JobDirectory.forCurrentUser(System.getenv()), pids, JobAcrossHosts.TIMEOUT);
            if (found != null) shared = found;
            return found;
        } catch (IOException e) {
            return null; // no job directory: the launch's own ranks only
        }
    }

    /** @param spawned the job record of a process the job spawned, null for a rank the launcher started */
    private List<RankView> readTarget(JDIDebugTarget t, JobRecord spawned) {
        String label = name(t);
        VirtualMachine vm = t.getVM();
        if (vm == null || t.isTerminated() || t.isDisconnected()) {
            return lost(t, label, Liveness.Outcome.DISCONNECTED, spawned);
        }
        try {
            List<ProcessSnapshot> ps = decode(vm, label);
            lastRead.put(t, ps);
            boolean suspended = t.isSuspended();
            // the calls of a suspended JVM's threads; of several ranks (MPJ Express multicore) each
            // thread's by its class loader's COMM_WORLD
            List<BindingFrame> all = suspended
                    ? ThreadFrames.read(vm, true, ThreadFrames.registryIds(JdiTargetReader.wrap(vm, label)), ps.size() > 1)
                    : null;
            Map<Integer, List<BindingFrame>> byRank = all == null ? Map.of() : InFlightCalls.byRank(all, ps);
            List<RankView> out = new ArrayList<>();
            for (ProcessSnapshot p : ps) {
                Liveness.Verdict v = Liveness.judge(Liveness.Outcome.ANSWERED, p.mpiState(), null, false);
                out.add(new RankView(label, p, v.state(), suspended, v.state() == ProcessState.OK ? null : v.evidence(),
                        byRank.get(p.rank()), spawned));
            }
            return out;
        } catch (RegistryNotFoundException e) {
            Liveness.Verdict v = Liveness.judge(Liveness.Outcome.NO_AGENT, null, null, false);
            return List.of(new RankView(label, null, v.state(), t.isSuspended(), v.evidence() + ": " + e.getMessage(),
                    null, spawned));
        } catch (VMDisconnectedException e) {
            return lost(t, label, Liveness.Outcome.DISCONNECTED, spawned);
        } catch (RuntimeException e) { // no answer in time, or it died while we read
            if (t.isTerminated() || t.isDisconnected()) return lost(t, label, Liveness.Outcome.DISCONNECTED, spawned);
            return lost(t, label, Liveness.Outcome.TIMED_OUT, spawned);
        }
    }

    /** Reads the registry of one JVM ({@link MpiLens#read} reads again when it grew meanwhile). Blocks on JDWP. */
    static List<ProcessSnapshot> decode(VirtualMachine vm, String label) {
        return MpiLens.read(vm, label);
    }

    /**
     * A rank JVM that did not answer: its state by {@link Liveness} from how the read ended and
     * whether its process still exists here; its last snapshot stays visible.
     */
    private List<RankView> lost(IDebugTarget t, String label, Liveness.Outcome outcome, JobRecord spawned) {
        List<RankView> out = new ArrayList<>();
        for (ProcessSnapshot p : lastRead.getOrDefault(t, List.of())) {
            Boolean alive = LocalProcesses.isLocal(p.host()) ? LocalProcesses.alive(p.pid()) : null;
            Liveness.Verdict v = Liveness.judge(outcome, null, alive, p.mpiState() == MpiState.FINALIZED);
            out.add(new RankView(label, p, v.state(), false, v.evidence(), null, spawned));
        }
        if (out.isEmpty()) {
            Liveness.Verdict v = Liveness.judge(outcome, null, null, false);
            out.add(new RankView(label, null, v.state(), false, v.evidence(), null, spawned));
        }
        return out;
    }

    /** Whether a launch has a Java debug target (a rank JVM, perhaps, of a launch that is not an MPI launch). */
    static boolean hasJavaTargets(ILaunch l) {
        for (IDebugTarget t : l.getDebugTargets()) {
            if (t instanceof JDIDebugTarget) return true;
        }
        return false;
    }

    private String name() {
        String n = launch.getAttribute(ATTR_JOB_NAME);
        if (n != null) return n;
        return launch.getLaunchConfiguration() != null ? launch.getLaunchConfiguration().getName() : "MPI job";
    }

    private static String name(IDebugTarget t) {
        try {
            return t.getName();
        } catch (DebugException e) {
            return "debug target";
        }
    }
}
