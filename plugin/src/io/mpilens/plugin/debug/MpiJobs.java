package io.mpilens.plugin.debug;

import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.headless.MpiLens;
import io.mpilens.headless.ft.Liveness;
import io.mpilens.headless.ft.ProcessState;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.eclipse.core.runtime.Adapters;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.IDebugEventSetListener;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IDebugElement;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.jdt.internal.debug.core.model.JDIDebugTarget;

/**
 * The MPI job the views show: the launch of the debug context (one Java debug target per rank
 * JVM), read in a background {@link Job} whenever a rank suspends, resumes or terminates. The UI
 * thread never talks JDWP; views get each new {@link JobView} through a listener.
 */
public final class MpiJobs implements IDebugEventSetListener {
    /** Launch attribute naming the job in the views; otherwise the launch configuration's name. */
    public static final String ATTR_JOB_NAME = "io.mpilens.jobName";
    private static final long COALESCE_MILLIS = 150;
    private static final MpiJobs INSTANCE = new MpiJobs();
    private static final String PLUGIN_ID = "io.mpilens.plugin";

    private final List<Consumer<JobView>> listeners = new CopyOnWriteArrayList<>();
    /** Last snapshot per rank JVM: a rank that dies keeps showing what it held. */
    private final Map<IDebugTarget, List<ProcessSnapshot>> lastRead = new ConcurrentHashMap<>();
    /** The history of each followed launch (states as they changed from read to read). */
    // per launch, held weakly: a launch removed from the Debug view (with its targets, processes
    // and consoles) must not stay in memory for the rest of the Eclipse session because of us
    private final Map<ILaunch, Timeline> timelines = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    /** Resume events per launch (the MPI Calls view compares two suspensions only across a resume). */
    private final Map<ILaunch, Integer> resumes = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    /** Per launch that debugs some ranks of a shared job: the job's other ranks, and the JVMs its targets read. */
    private final Map<ILaunch, SharedJob> sharedJobs = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    private final Map<ILaunch, Set<Long>> debuggedPids = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    private final SpawnedTargets spawned = new SpawnedTargets();
    private final Job reader;
    private volatile ILaunch launch;
    private volatile JobView current = JobView.NONE;
    /** The views show a job that is not a launch (heap dumps, a job across hosts). */
    private volatile boolean showingOther;
    /** The job across hosts the views follow (each read a round of its collectors), null for none. */
    private volatile JobAcrossHosts acrossHosts;
    private boolean registered;

    private MpiJobs() {
        reader = Job.create("Reading MPI handles of the debugged job", this::read);
        reader.setSystem(true);
    }

    public static MpiJobs get() {
        return INSTANCE;
    }

    public JobView current() {
        return current;
    }

    public ILaunch launch() {
        return launch;
    }

    /** Listeners run in the reading job's thread; the current view is delivered at once. */
    public synchronized void addListener(Consumer<JobView> l) {
        if (!registered) {
            DebugPlugin.getDefault().addDebugEventListener(this);
            registered = true;
        }
        listeners.add(l);
        l.accept(current);
    }

    public void removeListener(Consumer<JobView> l) {
        listeners.remove(l);
    }

    /**
     * Follows the launch of a debug context element (launch, target, thread, frame, process).
     * With nothing selected the latest launch that has Java debug targets is shown.
     */
    public void follow(Object debugContext) {
        ILaunch l = launchOf(debugContext);
        if (l == null && launch == null && !showingOther) l = latestJavaLaunch();
        if (l == null || l == launch || !hasJavaTargets(l)) return;
        showingOther = false;
        stopFollowingAcrossHosts();
        launch = l;
        lastRead.clear();
        refresh();
    }

    /**
     * Shows a job read elsewhere (heap dumps) until the Debug view's selection names a launch
     * again; no debug events are followed meanwhile. Any thread.
     */
    public void show(JobView job) {
        showOther();
        current = job;
        for (Consumer<JobView> c : listeners) c.accept(job);
    }

    /**
     * Follows a job across hosts ({@link JobAcrossHosts}): read now, in the caller's thread (never
     * the UI thread: it waits for the collectors), and again at each Refresh, until the Debug view's
     * selection names a launch or other ranks are shown. Returns how the first round went: a warning
     * names the hosts that did not answer, or says that no rank of the job was found anywhere.
     */
    public IStatus follow(JobAcrossHosts job) {
        showOther();
        acrossHosts = job;
        return readAcrossHosts(job);
    }

    /** The job across hosts followed now, or null. */
    public JobAcrossHosts acrossHosts() {
        return acrossHosts;
    }

    /** The views leave the launch (and the job across hosts) they followed for another job. */
    private void showOther() {
        reader.cancel();
        stopFollowingAcrossHosts();
        launch = null;
        lastRead.clear();
        showingOther = true;
    }

    private void stopFollowingAcrossHosts() {
        JobAcrossHosts j = acrossHosts;
        acrossHosts = null;
        if (j != null) j.close();
    }

    public void refresh() {
        reader.cancel();
        reader.schedule(COALESCE_MILLIS);
    }

    /** Waits until the pending read, if any, is done (for tests and the Refresh action's callers). */
    public void join() throws InterruptedException {
        reader.join();
    }

    @Override
    public void handleDebugEvents(DebugEvent[] events) {
        for (DebugEvent e : events) {
            int k = e.getKind();
            if (k != DebugEvent.SUSPEND && k != DebugEvent.RESUME && k != DebugEvent.TERMINATE && k != DebugEvent.CREATE) {
                continue;
            }
            ILaunch l = launchOf(e.getSource());
            if (k == DebugEvent.RESUME && l != null) resumes.merge(l, 1, Integer::sum);
            if (l != null && l == launch) {
                refresh();
                return;
            }
            if (launch == null && !showingOther && l != null && hasJavaTargets(l)) {
                follow(l);
                return;
            }
        }
    }

    private IStatus read(IProgressMonitor monitor) {
        JobAcrossHosts across = acrossHosts;
        if (across != null) return readAcrossHosts(across);
        ILaunch l = launch;
        if (l == null) return Status.OK_STATUS;
        List<RankView> ranks = new ArrayList<>();
        for (IDebugTarget t : l.getDebugTargets()) {
            if (monitor.isCanceled()) return Status.CANCEL_STATUS;
            if (t instanceof JDIDebugTarget jt) ranks.addAll(readTarget(jt, spawned.recordOf(jt)));
        }
        // REBUILD: replacements the survivors spawned become debug targets of the launch too
        List<Long> pids = ranks.stream().filter(r -> r.process() != null && r.spawned() == null)
                .map(r -> r.process().pid()).toList();
        for (IDebugTarget t : spawned.attachNew(l, pids)) {
            if (t instanceof JDIDebugTarget jt) ranks.addAll(readTarget(jt, spawned.recordOf(jt)));
        }
        String name = jobName(l);
        SharedJob shared = sharedJob(l, ranks);
        if (shared != null) {
            // a launch debugging some ranks of a job through its share (a Remote Java Application on a
            // share's port): the job's other ranks read through the share too, so the views show the job
            try {
                ranks.addAll(shared.others(debuggedPids.getOrDefault(l, Set.of())));
            } catch (IOException | RuntimeException e) {
                return new Status(IStatus.WARNING, PLUGIN_ID, "cannot read the other ranks of job " + shared.jobId()
                        + " through its share: " + e.getMessage(), e);
            }
            name = "MPI job " + shared.jobId() + " (" + name + ")";
        }
        Timeline timeline = timelines.computeIfAbsent(l, x -> new Timeline());
        JobView job = JobView.of(name, ranks, LocalProcesses::parentOf, LocalProcesses::daemon, timeline,
                resumes.getOrDefault(l, 0));
        if (l != launch) return Status.OK_STATUS; // the user moved on meanwhile
        current = job;
        for (Consumer<JobView> c : listeners) c.accept(job);
        return Status.OK_STATUS;
    }

    /**
     * The job behind a launch that reads part of it (fewer ranks than their COMM_WORLD has) when a
     * share serves the rank JVMs it debugs, else null; found once per launch, looked for again at
     * each read until then. {@link #debuggedPids} keeps the JVMs the launch's targets read.
     */
    private SharedJob sharedJob(ILaunch l, List<RankView> read) {
        Set<Long> pids = new HashSet<>();
        int worldSize = 0, ranks = 0;
        for (RankView r : read) {
            if (r.process() == null || r.spawned() != null) continue;
            pids.add(r.process().pid());
            worldSize = Math.max(worldSize, r.worldSize());
            ranks++;
        }
        if (!pids.isEmpty()) debuggedPids.merge(l, pids, (a, b) -> {
            Set<Long> all = new HashSet<>(a);
            all.addAll(b);
            return all;
        });
        SharedJob known = sharedJobs.get(l);
        if (known != null || pids.isEmpty() || ranks >= worldSize) return known;
        try {
            SharedJob found = SharedJob.find(JobDirectory.forCurrentUser(System.getenv()), pids, JobAcrossHosts.TIMEOUT);
            if (found != null) sharedJobs.put(l, found);
            return found;
        } catch (IOException e) {
            return null; // no job directory: the launch's own ranks only
        }
    }

    /** One round of a job across hosts; a round that fails keeps what the views show and says why. */
    private IStatus readAcrossHosts(JobAcrossHosts across) {
        JobView job;
        List<String> problems;
        try {
            job = across.read();
            problems = across.problems();
        } catch (IOException | RuntimeException e) {
            return new Status(IStatus.WARNING, PLUGIN_ID, "cannot read " + across.name() + ": " + e.getMessage(), e);
        }
        if (across != acrossHosts) return Status.OK_STATUS; // the user moved on meanwhile
        current = job;
        for (Consumer<JobView> c : listeners) c.accept(job);
        if (job.ranks().isEmpty()) {
            return new Status(IStatus.WARNING, PLUGIN_ID, "no ranks of job '" + across.jobId() + "' on this host"
                    + (across.hosts().isEmpty() ? "" : " nor on " + String.join(", ", across.hosts()))
                    + " ('mpilens jobs --hosts H1,H2' lists the jobs there)"
                    + (problems.isEmpty() ? "" : "; " + String.join("; ", problems)));
        }
        return problems.isEmpty() ? Status.OK_STATUS : new Status(IStatus.WARNING, PLUGIN_ID, String.join("\n", problems));
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
            java.util.Map<Integer, List<BindingFrame>> byRank = all == null ? java.util.Map.of()
                    : io.mpilens.headless.ft.InFlightCalls.byRank(all, ps);
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

    static ILaunch launchOf(Object o) {
        if (o == null) return null;
        if (o instanceof ILaunch l) return l;
        if (o instanceof IDebugElement d) return d.getLaunch();
        if (o instanceof IProcess p) return p.getLaunch();
        IDebugElement d = Adapters.adapt(o, IDebugElement.class);
        if (d != null) return d.getLaunch();
        return Adapters.adapt(o, ILaunch.class);
    }

    private static boolean hasJavaTargets(ILaunch l) {
        for (IDebugTarget t : l.getDebugTargets()) {
            if (t instanceof JDIDebugTarget) return true;
        }
        return false;
    }

    private static ILaunch latestJavaLaunch() {
        ILaunch[] all = DebugPlugin.getDefault().getLaunchManager().getLaunches();
        for (int i = all.length - 1; i >= 0; i--) {
            if (hasJavaTargets(all[i])) return all[i];
        }
        return null;
    }

    private static String jobName(ILaunch l) {
        String n = l.getAttribute(ATTR_JOB_NAME);
        if (n != null) return n;
        return l.getLaunchConfiguration() != null ? l.getLaunchConfiguration().getName() : "MPI job";
    }

    private static String name(IDebugTarget t) {
        try {
            return t.getName();
        } catch (DebugException e) {
            return "debug target";
        }
    }
}
