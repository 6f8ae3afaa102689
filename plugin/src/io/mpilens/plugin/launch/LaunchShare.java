package io.mpilens.plugin.launch;

import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.share.JobShare;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchesListener2;

/**
 * The share of an MPI Java Application launch that asked for one
 * ({@link MpiLaunchSettings#ATTR_SHARE}): what {@code mpilens share --job ID} runs, for the
 * launch's job, in the workbench's JVM, from the ranks' registration until the job ends or the
 * launch terminates. The launch's own debug targets attach through its ports, and any other
 * debugger (IntelliJ IDEA, VS Code, jdb) may attach to them too; the console lists them.
 */
final class LaunchShare implements ILaunchesListener2 {
    private final JobShare share;
    private final ILaunch launch;

    private LaunchShare(JobShare share, ILaunch launch) {
        this.share = share;
        this.launch = launch;
    }

    /**
     * Shares the job's rank JVMs listening at {@code jvms} (ranks register when MPI_Init returns,
     * so this waits for that, at most {@code limit}) and returns the share's port for each, in
     * the same order; the share then serves in a thread of its own.
     */
    static List<JdwpAddress> start(ILaunch launch, Job job, String jobId, List<JdwpAddress> jvms, MpiJobProcess process,
                                   Duration limit, IProgressMonitor monitor) throws CoreException {
        JobShare share = new JobShare(JobDirectory.forCurrentUser(System.getenv()), jobId, 0, Duration.ofSeconds(20),
                line -> process.note("share: " + line));
        List<JdwpAddress> ports;
        try {
            long deadline = System.nanoTime() + limit.toNanos();
            while ((ports = ports(share, jvms)) == null) {
                if (!job.isAlive() || monitor.isCanceled() || System.nanoTime() > deadline) {
                    throw new CoreException(Status.error(monitor.isCanceled() ? "cancelled" : "the share of job " + jobId
                            + " did not serve every rank JVM " + jvms + " within " + limit.toSeconds() + " s (ranks"
                            + " register when MPI_Init returns; " + (job.isAlive() ? "the job runs" : "the job ended") + ")"));
                }
                share.round();
                Thread.sleep(100);
            }
        } catch (IOException e) {
            share.close();
            throw new CoreException(Status.error("cannot share the job's debugger connections: " + e.getMessage(), e));
        } catch (InterruptedException e) {
            share.close();
            Thread.currentThread().interrupt();
            throw new CoreException(Status.CANCEL_STATUS);
        } catch (CoreException | RuntimeException e) {
            share.close();
            throw e;
        }
        LaunchShare ls = new LaunchShare(share, launch);
        DebugPlugin.getDefault().getLaunchManager().addLaunchListener(ls);
        Thread t = new Thread(ls::serve, "mpilens-launch-share-" + jobId);
        t.setDaemon(true);
        t.start();
        StringBuilder table = new StringBuilder();
        for (JobShare.Served s : share.served()) {
            table.append(table.length() == 0 ? "" : ", ").append(s.label()).append(" at ").append(s.share().address());
        }
        process.note("job " + jobId + " shared: " + table + " (the JVMs' own listeners are held by the share). Any JDWP"
                + " debugger attaches to these ports beside Eclipse: IntelliJ IDEA Remote JVM Debug, VS Code attach,"
                + " jdb -attach 127.0.0.1:PORT; mpilens --job " + jobId + " reads through them");
        return ports;
    }

    /** The share's port of each JVM of {@code jvms}, in their order, or null while one is not served. */
    private static List<JdwpAddress> ports(JobShare share, List<JdwpAddress> jvms) {
        List<JdwpAddress> out = new ArrayList<>();
        for (JdwpAddress jvm : jvms) {
            JobShare.Served found = null;
            for (JobShare.Served s : share.served()) if (s.share().jvm().port() == jvm.port()) found = s;
            if (found == null) return null;
            out.add(found.share().address());
        }
        return out;
    }

    private void serve() {
        try {
            share.serve(() -> { });
        } catch (IOException e) {
            // the job's records went away: the job is over
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    private void close() {
        DebugPlugin.getDefault().getLaunchManager().removeLaunchListener(this);
        share.close();
    }

    @Override
    public void launchesTerminated(ILaunch[] launches) {
        for (ILaunch l : launches) if (l == launch) close();
    }

    @Override
    public void launchesRemoved(ILaunch[] launches) {
        for (ILaunch l : launches) if (l == launch) close();
    }

    @Override
    public void launchesAdded(ILaunch[] launches) {
        // not ours
    }

    @Override
    public void launchesChanged(ILaunch[] launches) {
        // not ours
    }
}
