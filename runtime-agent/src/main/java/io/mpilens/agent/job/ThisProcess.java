package io.mpilens.agent.job;

import io.mpilens.api.job.ProcStat;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * This JVM's process facts (pid, parent pid, start time, uid), read from {@code /proc} with
 * plain file reads. {@code ProcessHandle} gives the same answers, but its first use initialises
 * the JDK's process machinery (an executor, a random generator, lambdas: ≈ 30 classes and their
 * compilation) in every rank JVM at start-up (docs/performance.md, start-up); it remains the
 * answer where {@code /proc} does not (not Linux, or a field that does not parse).
 */
public final class ThisProcess {
    private static volatile long[] stat;
    private static volatile String uid;

    private ThisProcess() {
    }

    public static long pid() {
        return stat()[0];
    }

    public static long parentPid() {
        return stat()[1];
    }

    /** When the process started, in milliseconds since the epoch (the JDK's own rule: boot time + start ticks / ticks per second). */
    public static long startMillis() {
        return stat()[2];
    }

    /**
     * When the process started, in clock ticks since boot ({@code /proc/self/stat} field 22), -1
     * where {@code /proc} does not say: what tells this process from a later one with its pid, and
     * no step of the wall clock moves it ({@link ProcStat}).
     */
    public static long startTicks() {
        return stat()[3];
    }

    /** The real uid, as text (the owner checks of the agent's private directories). */
    public static String uid() throws IOException {
        String u = uid;
        if (u != null) return u;
        String status = read("/proc/self/status");
        int at = status == null ? -1 : status.indexOf("\nUid:");
        if (at >= 0) {
            int from = at + 5;
            while (from < status.length() && (status.charAt(from) == ' ' || status.charAt(from) == '\t')) from++;
            int to = from;
            while (to < status.length() && Character.isDigit(status.charAt(to))) to++;
            if (to > from) return uid = status.substring(from, to);
        }
        return uid = String.valueOf(java.nio.file.Files.getAttribute(java.nio.file.Paths.get("/proc/self"), "unix:uid"));
    }

    private static long[] stat() {
        long[] s = stat;
        if (s == null) stat = s = readStat();
        return s;
    }

    private static long[] readStat() {
        try {
            String text = read("/proc/self/stat");
            String boot = read("/proc/stat");
            if (text != null && boot != null) {
                long pid = ProcStat.pid(text);
                long ppid = ProcStat.field(text, ProcStat.PPID);
                long startTicks = ProcStat.field(text, ProcStat.START_TICKS);
                int b = boot.indexOf("\nbtime ");
                if (b >= 0 && pid > 0 && ppid >= 0 && startTicks >= 0) {
                    int end = boot.indexOf('\n', b + 7);
                    long bootSeconds = Long.parseLong(boot.substring(b + 7, end < 0 ? boot.length() : end).trim());
                    long hz = ticksPerSecond();
                    return new long[] {pid, ppid, bootSeconds * 1000 + startTicks * 1000 / hz, startTicks};
                }
            }
        } catch (RuntimeException e) {
            // not this layout: the JDK's answer below
        }
        ProcessHandle self = ProcessHandle.current();
        ProcessHandle parent = self.parent().orElse(null);
        java.time.Instant started = self.info().startInstant().orElse(null);
        return new long[] {self.pid(), parent == null ? 0 : parent.pid(),
                started == null ? System.currentTimeMillis() : started.toEpochMilli(), -1};
    }

    /** The kernel's USER_HZ from the auxiliary vector (AT_CLKTCK), 100 when it cannot be read. */
    private static long ticksPerSecond() {
        try (InputStream in = new FileInputStream("/proc/self/auxv")) {
            byte[] v = in.readNBytes(4096);
            for (int i = 0; i + 16 <= v.length; i += 16) {
                long key = littleEndian(v, i);
                if (key == 0) break;
                if (key == 17) { // AT_CLKTCK
                    long hz = littleEndian(v, i + 8);
                    return hz > 0 && hz < 100_000 ? hz : 100;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the common value
        }
        return 100;
    }

    private static long littleEndian(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) v = v << 8 | (b[at + i] & 0xff);
        return v;
    }

    /**
     * A small /proc file as text (ISO-8859-1), or null. The charset by its name, not through
     * {@code StandardCharsets}, which would initialise its class and charsets nothing else in a
     * rank JVM uses at start-up.
     */
    static String read(String path) {
        try (InputStream in = new FileInputStream(path)) {
            return new String(in.readNBytes(64 * 1024), "ISO-8859-1");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
