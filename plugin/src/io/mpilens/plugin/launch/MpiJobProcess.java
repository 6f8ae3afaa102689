package io.mpilens.plugin.launch;

import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.OutputLine;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.IStreamListener;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.core.model.IStreamMonitor;
import org.eclipse.debug.core.model.IStreamsProxy;

/**
 * The whole MPI job as one process of the launch: its console shows every rank's output
 * (Open MPI lines tagged with their rank), and terminating it ends the launcher, the niodev
 * daemon and every rank ({@link Job#close()}). When the launcher exits on its own the rest of
 * the job is ended too, so nothing is left behind.
 */
public final class MpiJobProcess implements IProcess {
    private static final int KEPT_CHARS = 1 << 20;

    private final ILaunch launch;
    private final Job job;
    private final String label;
    private final Map<String, String> attributes = new HashMap<>();
    private final Monitor out = new Monitor();
    private final Monitor err = new Monitor();
    private volatile boolean terminated;
    private volatile int exitValue = -1;

    private MpiJobProcess(ILaunch launch, Job job, String label) {
        this.launch = launch;
        this.job = job;
        this.label = label;
        attributes.put(IProcess.ATTR_PROCESS_TYPE, "mpi");
        attributes.put(IProcess.ATTR_CMDLINE, String.join(" ", job.command()));
    }

    /** Adds the job to {@code launch} as its process and starts following its output and end. */
    public static MpiJobProcess attach(ILaunch launch, Job job, String label) {
        MpiJobProcess p = new MpiJobProcess(launch, job, label);
        launch.addProcess(p);
        job.followOutput(line -> (line.stderr() ? p.err : p.out).append(text(line)));
        Thread waiter = new Thread(p::awaitEnd, "mpilens-launch-" + job.pid() + "-waiter");
        waiter.setDaemon(true);
        waiter.start();
        DebugPlugin.getDefault().fireDebugEventSet(new DebugEvent[] {new DebugEvent(p, DebugEvent.CREATE)});
        return p;
    }

    private static String text(OutputLine l) {
        return (l.rank() == OutputLine.UNKNOWN_RANK ? "" : "[" + l.rank() + "] ") + l.text() + "\n";
    }

    private void awaitEnd() {
        try {
            exitValue = job.waitFor(java.time.Duration.ofDays(3650));
        } catch (Exception e) {
            // closed under us: terminate() reports it
        }
        ended();
    }

    private void ended() {
        job.close(); // the launcher is gone: end what it left (ranks, the niodev daemon)
        if (terminated) return;
        terminated = true;
        DebugPlugin.getDefault().fireDebugEventSet(new DebugEvent[] {new DebugEvent(this, DebugEvent.TERMINATE)});
    }

    /** A line of mpilens's own in the job's console (standard output), marked as such. */
    public void note(String text) {
        out.append("[mpilens] " + text + "\n");
    }

    /** The running job (tests wait for its output and check its processes). */
    public Job job() {
        return job;
    }

    @Override
    public String getLabel() {
        return label;
    }

    @Override
    public ILaunch getLaunch() {
        return launch;
    }

    @Override
    public IStreamsProxy getStreamsProxy() {
        return new IStreamsProxy() {
            @Override
            public IStreamMonitor getErrorStreamMonitor() {
                return err;
            }

            @Override
            public IStreamMonitor getOutputStreamMonitor() {
                return out;
            }

            @Override
            public void write(String input) {
                // the ranks' standard input is /dev/null
            }
        };
    }

    @Override
    public synchronized void setAttribute(String key, String value) {
        attributes.put(key, value);
        DebugPlugin.getDefault().fireDebugEventSet(new DebugEvent[] {new DebugEvent(this, DebugEvent.CHANGE)});
    }

    @Override
    public synchronized String getAttribute(String key) {
        return attributes.get(key);
    }

    @Override
    public int getExitValue() throws org.eclipse.debug.core.DebugException {
        if (!terminated) {
            throw new org.eclipse.debug.core.DebugException(org.eclipse.core.runtime.Status.error("the MPI job is still running"));
        }
        return exitValue;
    }

    @Override
    public <T> T getAdapter(Class<T> adapter) {
        if (adapter.isInstance(this)) return adapter.cast(this);
        if (adapter == ILaunch.class) return adapter.cast(launch);
        return null;
    }

    @Override
    public boolean canTerminate() {
        return !terminated;
    }

    @Override
    public boolean isTerminated() {
        return terminated;
    }

    @Override
    public void terminate() {
        ended();
    }

    /** One output stream of the job, kept (bounded) for consoles that connect late. */
    private static final class Monitor implements IStreamMonitor {
        private final List<IStreamListener> listeners = new CopyOnWriteArrayList<>();
        private final StringBuilder contents = new StringBuilder();

        void append(String text) {
            synchronized (contents) {
                contents.append(text);
                if (contents.length() > KEPT_CHARS) contents.delete(0, contents.length() - KEPT_CHARS);
            }
            for (IStreamListener l : listeners) l.streamAppended(text, this);
        }

        @Override
        public void addListener(IStreamListener listener) {
            listeners.add(listener);
        }

        @Override
        public String getContents() {
            synchronized (contents) {
                return contents.toString();
            }
        }

        @Override
        public void removeListener(IStreamListener listener) {
            listeners.remove(listener);
        }
    }
}
