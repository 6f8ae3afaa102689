package io.mpilens.mcp;

import io.mpilens.headless.cli.MpiLensCli;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs one mpilens command line in this process, exactly as the CLI would ({@link MpiLensCli#run}):
 * what it prints on stdout (the {@code --json} document) and its stderr lines, which are also
 * handed to {@code onLine} as they come (progress).
 */
record CliRun(int exitCode, String stdout, List<String> stderr) {

    static CliRun of(List<String> args, Map<String, String> env, Consumer<String> onLine) {
        return of(args, env, onLine, null);
    }

    /**
     * As {@link #of(List, Map, Consumer)}; with {@code onOutLine}, each stdout line goes there as it
     * is printed and none is kept ({@link #stdout} is empty): a command that runs for long ({@code watch}).
     */
    static CliRun of(List<String> args, Map<String, String> env, Consumer<String> onLine, Consumer<String> onOutLine) {
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        OutputStream out = onOutLine == null ? kept : new Lines(onOutLine, false);
        Lines err = new Lines(onLine, true);
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = MpiLensCli.run(args.toArray(String[]::new), o, e, env);
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError x) {
            // the CLI reports its own failures in one line; this is what escaped it: still one answer, not a dead server
            err.lines.add("mpilens: " + x + " (please report this to the mpilens developers)");
            code = MpiLensCli.EXIT_INTERNAL;
        }
        err.flushLine();
        if (out instanceof Lines l) l.flushLine();
        return new CliRun(code, kept.toString(StandardCharsets.UTF_8), List.copyOf(err.lines));
    }

    /** Output split into lines, handed to {@code onLine}; kept in {@link #lines} when asked. */
    private static final class Lines extends OutputStream {
        final List<String> lines = Collections.synchronizedList(new ArrayList<>());
        private final Consumer<String> onLine;
        private final boolean keep;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        Lines(Consumer<String> onLine, boolean keep) {
            this.onLine = onLine;
            this.keep = keep;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') flushLine();
            else if (b != '\r') line.write(b);
        }

        synchronized void flushLine() {
            if (line.size() == 0) return;
            String s = line.toString(StandardCharsets.UTF_8);
            line.reset();
            if (keep) lines.add(s);
            if (onLine != null) onLine.accept(s);
        }
    }
}
