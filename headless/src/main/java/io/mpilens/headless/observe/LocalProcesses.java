package io.mpilens.headless.observe;

import io.mpilens.headless.ft.HostView;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What this machine can tell about a rank's process when it stops answering: alive, gone or
 * stopped, its parent (the launcher daemon), and that daemon. Only for processes on this host
 * ({@link #isLocal}); callers know nothing about the others. Used by {@link JobObserver} and by
 * the Eclipse views.
 */
public final class LocalProcesses {
    private static final String LOCAL_HOST = io.mpilens.api.job.HostName.local();

    private LocalProcesses() {
    }

    public static boolean isLocal(String host) {
        return host != null && (host.equals(LOCAL_HOST) || host.equals("localhost"));
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
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() ? null : stat.substring(close + 2, close + 3);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
