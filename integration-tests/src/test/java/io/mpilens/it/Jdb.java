package io.mpilens.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The JDK's {@code jdb}, attached to a port and driven through its standard input as a person
 * types; what it printed is kept (jdb prompts without a newline, so it is read as it comes, not by line).
 */
final class Jdb implements AutoCloseable {
    private final Process process;
    private final Writer in;
    private final StringBuffer out = new StringBuffer();

    private Jdb(Process process) {
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread pump = new Thread(() -> {
            byte[] b = new byte[8192];
            try (InputStream s = process.getInputStream()) {
                int n;
                while ((n = s.read(b)) > 0) {
                    synchronized (out) {
                        out.append(new String(b, 0, n, StandardCharsets.UTF_8));
                        out.notifyAll();
                    }
                }
            } catch (IOException e) {
                // jdb ended
            }
        }, "jdb-output");
        pump.setDaemon(true);
        pump.start();
    }

    /** The test JVM's own JDK's jdb, or null when it has none. */
    static Path executable() {
        Path p = Path.of(System.getProperty("java.home"), "bin", "jdb");
        return Files.isExecutable(p) ? p : null;
    }

    static Jdb attach(int port) throws IOException {
        Path jdb = executable();
        ProcessBuilder b = new ProcessBuilder(jdb.toString(), "-attach", "127.0.0.1:" + port).redirectErrorStream(true);
        b.environment().remove("JAVA_TOOL_OPTIONS");
        return new Jdb(b.start());
    }

    /** Types one command and Enter. */
    void type(String command) throws IOException {
        in.write(command + "\n");
        in.flush();
    }

    /**
     * Waits until what jdb printed after {@code from} (a length of {@link #transcript()}) matches
     * {@code pattern}; returns the transcript's length then. Fails after {@code limit}, which only a
     * broken share reaches: a person would have waited as long.
     */
    int await(int from, String pattern, Duration limit) throws InterruptedException {
        Pattern p = Pattern.compile(pattern, Pattern.DOTALL);
        long deadline = System.nanoTime() + limit.toNanos();
        synchronized (out) {
            while (!p.matcher(out.substring(Math.min(from, out.length()))).find()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && !p.matcher(out.substring(Math.min(from, out.length()))).find()) {
                    throw new AssertionError("jdb did not print /" + pattern + "/ within " + limit + (process.isAlive() ? "" : " (jdb ended)")
                            + "; it printed:\n" + out);
                }
                out.wait(Math.max(1, Math.min(left / 1_000_000, 200)));
            }
            return out.length();
        }
    }

    private static final Pattern STOPPED = Pattern.compile("Breakpoint hit: .*?bci=[0-9,]+\\s+\\S+\\[\\d+\\] ", Pattern.DOTALL);

    /**
     * Where the first breakpoint stop after {@code from} ends, once jdb has printed its location and
     * the prompt after it (a person types only then: a command typed earlier races jdb's own event
     * thread, which then fails), or -1.
     */
    int stoppedAfter(int from) {
        java.util.regex.Matcher m = STOPPED.matcher(transcript());
        return m.find(Math.min(from, length())) ? m.end() : -1;
    }

    String transcript() {
        return out.toString();
    }

    int length() {
        return out.length();
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL, as a user kills a debugger that hangs: no goodbye to the share. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Waits for jdb to end by itself (the debuggee ended); false after {@code limit}. */
    boolean awaitEnd(Duration limit) throws InterruptedException {
        return process.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
