package io.mpilens.plugin.debug;

import io.mpilens.plugin.model.JobView;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.Launch;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.ISuspendResume;
import org.eclipse.debug.internal.ui.viewers.model.provisional.IElementLabelProvider;

/**
 * The launch of an MPI job. It holds the job's state for the MPI views ({@link MpiJob}: its
 * adapter, {@code getAdapter(MpiJob.class)}), and besides terminate it suspends and resumes the
 * whole job — every rank JVM's debug target — so the Debug view's Suspend/Resume on the launch act
 * on all ranks. A job only shown, not debugged (heap dumps, a job read across hosts), is a launch
 * too, without process or target: the Debug view lists it beside the others, Terminate stops its
 * collectors, and the views show it when it is selected.
 */
public final class MpiLaunch extends Launch implements ISuspendResume {
    private final MpiJob job = new MpiJob(this);
    /** A job only shown: no process, no debug target. */
    private final boolean readsOnly;
    /** What it is, said in the Debug view when it has no launch configuration ({@link #label()}). */
    private final String what;
    /** Such a launch was terminated. */
    private volatile boolean closed;

    /** The launch of {@code config}, or without one ({@code null}) the launch of a job attached to ({@link JobAttach}). */
    public MpiLaunch(ILaunchConfiguration config, String mode) {
        this(config, mode, false, "MPI job attached without a launch configuration");
    }

    private MpiLaunch(ILaunchConfiguration config, String mode, boolean readsOnly, String what) {
        super(config, mode, null);
        this.readsOnly = readsOnly;
        this.what = what;
    }

    /** A job read once elsewhere (heap dumps), named {@code job.name()}; add it to the launch manager to show it. */
    public static MpiLaunch showing(JobView shown) {
        MpiLaunch l = new MpiLaunch(null, ILaunchManager.RUN_MODE, true, "MPI job shown from heap dumps, without a launch configuration");
        l.setAttribute(MpiJob.ATTR_JOB_NAME, shown.name());
        l.job.show(shown);
        return l;
    }

    /** A running job read through collectors on its hosts ({@link JobAcrossHosts}); Terminate stops them. */
    public static MpiLaunch across(JobAcrossHosts collectors) {
        MpiLaunch l = new MpiLaunch(null, ILaunchManager.RUN_MODE, true, "MPI job read across hosts, without a launch configuration");
        l.setAttribute(MpiJob.ATTR_JOB_NAME, collectors.name());
        l.job.readElsewhere(collectors);
        return l;
    }

    /** The job as the MPI views show it. */
    public MpiJob job() {
        return job;
    }

    /**
     * Its name in the Debug view where it has no launch configuration (Eclipse would write {@code
     * <unknown>}): the job's name and what it is, as {@code "run-mode tour [MPI job attached
     * without a launch configuration]"}.
     */
    public String label() {
        String name = getAttribute(MpiJob.ATTR_JOB_NAME);
        return (name == null || name.isBlank() ? "MPI job" : name) + " [" + what + "]";
    }

    @Override
    public <T> T getAdapter(Class<T> type) {
        if (type == MpiJob.class) return type.cast(job);
        if (type == IElementLabelProvider.class) return type.cast(LaunchLabels.INSTANCE);
        return super.getAdapter(type);
    }

    @Override
    public boolean canTerminate() {
        return readsOnly ? !closed : super.canTerminate();
    }

    @Override
    public boolean isTerminated() {
        return readsOnly ? closed : super.isTerminated();
    }

    @Override
    public void terminate() throws DebugException {
        if (!readsOnly) {
            super.terminate();
            return;
        }
        closed = true;
        job.close();
        fireTerminate();
    }

    /** The job ended: its collectors on other hosts, if any, end too. */
    @Override
    protected void fireTerminate() {
        job.close();
        super.fireTerminate();
    }

    @Override
    public void launchRemoved(ILaunch launch) {
        if (launch == this) job.close();
        super.launchRemoved(launch);
    }

    @Override
    public boolean canResume() {
        for (IDebugTarget t : getDebugTargets()) if (t.canResume()) return true;
        return false;
    }

    @Override
    public boolean canSuspend() {
        for (IDebugTarget t : getDebugTargets()) if (t.canSuspend()) return true;
        return false;
    }

    /** Every live rank JVM is suspended. */
    @Override
    public boolean isSuspended() {
        boolean any = false;
        for (IDebugTarget t : getDebugTargets()) {
            if (t.isTerminated() || t.isDisconnected()) continue;
            if (!t.isSuspended()) return false;
            any = true;
        }
        return any;
    }

    @Override
    public void resume() throws DebugException {
        DebugException first = null;
        for (IDebugTarget t : getDebugTargets()) {
            try {
                if (t.canResume()) t.resume();
            } catch (DebugException e) {
                if (first == null) first = e; // the other ranks still go on
            }
        }
        if (first != null) throw first;
    }

    @Override
    public void suspend() throws DebugException {
        DebugException first = null;
        for (IDebugTarget t : getDebugTargets()) {
            try {
                if (t.canSuspend()) t.suspend();
            } catch (DebugException e) {
                if (first == null) first = e;
            }
        }
        if (first != null) throw first;
    }
}
