package io.mpilens.plugin.debug;

import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.headless.MpiLens;
import io.mpilens.headless.jdi.TargetChangedException;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.ProcessState;
import io.mpilens.plugin.model.RankView;
import java.util.ArrayList;
import java.util.List;
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
    private static final int READ_ATTEMPTS = 3;
    private static final long COALESCE_MILLIS = 150;
    private static final MpiJobs INSTANCE = new MpiJobs();

    private final List<Consumer<JobView>> listeners = new CopyOnWriteArrayList<>();
    /** Last snapshot per rank JVM: a rank that dies keeps showing what it held. */
    private final Map<IDebugTarget, List<ProcessSnapshot>> lastRead = new ConcurrentHashMap<>();
    private final Job reader;
    private volatile ILaunch launch;
    private volatile JobView current = JobView.NONE;
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
        if (l == null && launch == null) l = latestJavaLaunch();
        if (l == null || l == launch || !hasJavaTargets(l)) return;
        launch = l;
        lastRead.clear();
        refresh();
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
            if (l != null && l == launch) {
                refresh();
                return;
            }
            if (launch == null && l != null && hasJavaTargets(l)) {
                follow(l);
                return;
            }
        }
    }

    private IStatus read(IProgressMonitor monitor) {
        ILaunch l = launch;
        if (l == null) return Status.OK_STATUS;
        List<RankView> ranks = new ArrayList<>();
        for (IDebugTarget t : l.getDebugTargets()) {
            if (monitor.isCanceled()) return Status.CANCEL_STATUS;
            if (t instanceof JDIDebugTarget jt) ranks.addAll(readTarget(jt));
        }
        JobView job = new JobView(jobName(l), ranks);
        if (l != launch) return Status.OK_STATUS; // the user moved on meanwhile
        current = job;
        for (Consumer<JobView> c : listeners) c.accept(job);
        return Status.OK_STATUS;
    }

    private List<RankView> readTarget(JDIDebugTarget t) {
        String label = name(t);
        VirtualMachine vm = t.getVM();
        if (vm == null || t.isTerminated() || t.isDisconnected()) {
            return lost(t, label, t.isTerminated() ? "debug target terminated" : "debug target disconnected");
        }
        try {
            List<ProcessSnapshot> ps = decode(vm, label);
            lastRead.put(t, ps);
            List<RankView> out = new ArrayList<>();
            for (ProcessSnapshot p : ps) out.add(new RankView(label, p, ProcessState.of(false, true, p.mpiState()), t.isSuspended(), null));
            return out;
        } catch (RegistryNotFoundException e) {
            return List.of(new RankView(label, null, ProcessState.UNAVAILABLE, t.isSuspended(), e.getMessage()));
        } catch (VMDisconnectedException e) {
            return lost(t, label, "debug target disconnected while reading");
        } catch (RuntimeException e) { // no answer in time, or it died while we read
            if (t.isTerminated() || t.isDisconnected()) return lost(t, label, "debug target gone while reading");
            List<RankView> out = new ArrayList<>();
            String why = "not read: " + (e.getMessage() == null ? e.toString() : e.getMessage());
            for (ProcessSnapshot p : lastRead.getOrDefault(t, List.of())) {
                out.add(new RankView(label, p, ProcessState.UNAVAILABLE, t.isSuspended(), why));
            }
            if (out.isEmpty()) out.add(new RankView(label, null, ProcessState.UNAVAILABLE, t.isSuspended(), why));
            return out;
        }
    }

    /** Reads the registry of one JVM, again when it grew while being read. Blocks on JDWP. */
    static List<ProcessSnapshot> decode(VirtualMachine vm, String label) {
        for (int attempt = 1; ; attempt++) {
            try {
                return MpiLens.read(vm, label);
            } catch (TargetChangedException e) { // the registry grew while we read it
                if (attempt == READ_ATTEMPTS) throw e;
            }
        }
    }

    private List<RankView> lost(IDebugTarget t, String label, String why) {
        List<RankView> out = new ArrayList<>();
        for (ProcessSnapshot p : lastRead.getOrDefault(t, List.of())) out.add(new RankView(label, p, ProcessState.FAILED, false, why));
        if (out.isEmpty()) out.add(new RankView(label, null, ProcessState.FAILED, false, why));
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
