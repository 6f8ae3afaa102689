package io.mpilens.plugin.debug;

import io.mpilens.headless.ft.HostView;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What this machine can tell about a rank's process when its debug target stops answering:
 * alive or gone, its parent (the launcher daemon), and that daemon. Only for ranks on this
 * host; elsewhere nothing is known (null). The same facts {@code headless.ft.JobObserver}
 * gathers for the CLI.
 */
final class LocalProcesses {
    private static final String LOCAL_HOST = localHostName();

    private LocalProcesses() {
    }

    static boolean isLocal(String host) {
        return host != null && (host.equals(LOCAL_HOST) || host.equals("localhost"));
    }

    /** Whether the process exists and is not a zombie. */
    static boolean alive(long pid) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        return p.isPresent() && p.get().isAlive() && !"Z".equals(procState(pid));
    }

    /** The parent's pid, 0 when unknown. */
    static long parentOf(long pid) {
        return ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(0L);
    }

    /** The launcher daemon with that pid on {@code host}, or null when it is not on this machine. */
    static HostView.Daemon daemon(String host, Long pid) {
        if (!isLocal(host)) return null;
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty()) return new HostView.Daemon(pid, "?", false);
        String cmd = p.get().info().command().map(c -> Path.of(c).getFileName().toString()).orElse("?");
        if (cmd.equals("java")) {
            String line = p.get().info().commandLine().orElse("");
            if (line.contains("MPJDaemon")) cmd = "mpj-daemon";
            else if (line.contains("starter.jar")) cmd = "mpj-starter";
        }
        return new HostView.Daemon(pid, cmd, alive(pid));
    }

    private static String procState(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() ? null : stat.substring(close + 2, close + 3);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
