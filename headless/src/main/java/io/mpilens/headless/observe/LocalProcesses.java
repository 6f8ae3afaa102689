package io.mpilens.headless.observe;

import io.mpilens.api.job.HostName;
import io.mpilens.api.job.ProcStat;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.job.ProcessStart;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What this machine can tell about a rank's process: whether it runs here at all
 * ({@link #runsElsewhere}), and when it stops answering, alive, gone or stopped, its parent (the
 * launcher daemon), and that daemon. Only for processes on this host ({@link #isLocal}); callers
 * know nothing about the others. Used by the observer, the collectors, the CLI and the Eclipse
 * views.
 */
public final class LocalProcesses {
    private static final String LOCAL_HOST = HostName.local();

    private LocalProcesses() {
    }

    public static boolean isLocal(String host) {
        return host != null && (host.equals(LOCAL_HOST) || host.equals("localhost"));
    }

    /**
     * Whether the record's rank runs on another host than this one (a record naming no host is
     * taken as this one's): its JDWP address is that host's loopback, never to be connected to from here.
     */
    public static boolean runsElsewhere(JobRecord r) {
        return r.host() != null && !isLocal(r.host());
    }

    /** What to say of such a rank: where it runs and how to read it. */
    public static String readElsewhere(JobRecord r) {
        return "runs on " + r.host() + ", not this host: read it there with --hosts " + r.host();
    }

    /**
     * Whether the record's process still runs: null when it runs on another host (this machine
     * cannot tell), false when its pid is gone, a zombie or reused by another process.
     */
    public static Boolean processRunning(JobRecord r) {
        if (!isLocal(r.host())) return null;
        Optional<ProcessHandle> p = ProcessHandle.of(r.pid());
        if (p.isEmpty() || !p.get().isAlive() || zombie(r.pid())) return false;
        // a reused pid is another process: compare starts (the record's is the JVM's own)
        return ProcessStart.same(p.get(), r.startTicks(), r.startTime().toEpochMilli(), 2_000, true);
    }

    /**
     * Whether a record's process has ended for certain: it ran on this host and its pid is gone,
     * a zombie, or another process now (a different start time). False when it lives or runs elsewhere.
     */
    public static boolean ended(JobRecord r) {
        return Boolean.FALSE.equals(processRunning(r));
    }

    /** Whether the process exists and is not a zombie. */
    public static boolean alive(long pid) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        return p.isPresent() && p.get().isAlive() && !zombie(pid);
    }

    public static boolean zombie(long pid) {
        return "Z".equals(procState(pid));
    }

    /** Stopped by a signal or a tracer ({@code kill -STOP}): slow, not dead. */
    public static boolean stopped(long pid) {
        String s = procState(pid);
        return "T".equals(s) || "t".equals(s);
    }

    /** The parent's pid, 0 when unknown. */
    public static long parentOf(long pid) {
        return ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(0L);
    }

    /** The launcher daemon with that pid on {@code host}, or null when it is not on this machine. */
    public static HostView.Daemon daemon(String host, Long pid) {
        if (!isLocal(host)) return null;
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty()) return new HostView.Daemon(pid, "?", false);
        String cmd = p.get().info().command().map(c -> Path.of(c).getFileName().toString()).orElse("?");
        if (cmd.equals("java")) {
            // MPJ's daemon and starter are JVMs: name them by their main class
            String line = p.get().info().commandLine().orElse("");
            if (line.contains("MPJDaemon")) cmd = "mpj-daemon";
            else if (line.contains("starter.jar")) cmd = "mpj-starter";
        }
        return new HostView.Daemon(pid, cmd, alive(pid));
    }

    /** The state letter of /proc/PID/stat, or null. */
    private static String procState(long pid) {
        char state = ProcStat.state(ProcessStart.stat(pid));
        return state == 0 ? null : String.valueOf(state);
    }
}
