package io.mpilens.plugin.launch;

import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.Launch;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.ISuspendResume;

/**
 * The launch of an MPI job: besides terminate, it suspends and resumes the whole job — every
 * rank JVM's debug target — so the Debug view's Suspend/Resume on the launch act on all ranks.
 */
public final class MpiLaunch extends Launch implements ISuspendResume {
    public MpiLaunch(ILaunchConfiguration config, String mode) {
        super(config, mode, null);
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
