package io.mpilens.headless.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lines of a job's launcher process, kept in a bounded window (oldest dropped first),
 * with waiting for a line. Open MPI's {@code [1,R]<stdout>:} tag is stripped into the rank.
 */
final class JobOutput {
    private static final Pattern TAG = Pattern.compile("^\\[\\d+,(\\d+)\\]<(stdout|stderr)>:(.*)$", Pattern.DOTALL);

    private final int capacity;
    private final ArrayDeque<OutputLine> lines = new ArrayDeque<>();
    private long dropped;
    private int openStreams;
    private java.util.function.Consumer<OutputLine> follower;

    JobOutput(int capacity) {
        this.capacity = capacity;
    }

    /** Reads {@code in} on a daemon thread until it ends. */
    void pump(InputStream in, boolean stderr, String threadName) {
        synchronized (this) {
            openStreams++;
        }
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) add(parse(line, stderr));
            } catch (IOException e) {
                // the process is gone: what was read is all there is
            } finally {
                synchronized (this) {
                    openStreams--;
                    notifyAll();
                }
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
    }

    static OutputLine parse(String raw, boolean stderr) {
        Matcher m = TAG.matcher(raw);
        if (m.matches()) return new OutputLine(Integer.parseInt(m.group(1)), m.group(2).equals("stderr"), m.group(3));
        return new OutputLine(OutputLine.UNKNOWN_RANK, stderr, raw);
    }

    synchronized void follow(java.util.function.Consumer<OutputLine> f) {
        for (OutputLine l : lines) f.accept(l);
        follower = f;
    }

    synchronized void add(OutputLine line) {
        if (follower != null) follower.accept(line);
        lines.addLast(line);
        if (lines.size() > capacity) {
            lines.removeFirst();
            dropped++;
        }
        notifyAll();
    }

    synchronized List<OutputLine> snapshot() {
        return new ArrayList<>(lines);
    }

    /** True once every pumped stream has ended. */
    synchronized boolean ended() {
        return openStreams == 0;
    }

    /**
     * Waits until {@code done} accepts the lines seen so far, the streams end, or the deadline.
     * Returns whether {@code done} accepted.
     */
    synchronized boolean await(Predicate<List<OutputLine>> done, long deadlineNanos) throws InterruptedException {
        while (true) {
            if (done.test(new ArrayList<>(lines))) return true;
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0 || openStreams == 0) return false;
            wait(Math.max(1, Math.min(left / 1_000_000, 200)));
        }
    }

    /** The last {@code n} lines, for error messages. */
    synchronized String tail(int n) {
        StringBuilder b = new StringBuilder();
        int skip = Math.max(0, lines.size() - n);
        if (skip > 0 || dropped > 0) b.append("  ... (").append(skip + dropped).append(" earlier lines)\n");
        int i = 0;
        for (OutputLine l : lines) {
            if (i++ < skip) continue;
            b.append("  ").append(l).append('\n');
        }
        return b.length() == 0 ? "  (no output)\n" : b.toString();
    }
}
