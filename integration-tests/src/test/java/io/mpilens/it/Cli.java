package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.launch.ProcessTree;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** The {@code mpilens} command line run in the test's JVM against a test's job directory. */
final class Cli {
    private Cli() {
    }

    /** Output (then stderr) of an mpilens command reading the test's job directory; fails on another exit code. */
    static String run(Path jobs, int expectedExit, String... args) {
        Result r = mpilens(Map.of("MPILENS_JOBS", jobs.toString()), args);
        assertEquals(expectedExit, r.code(), r.all());
        return r.all();
    }

    /** What one mpilens command printed, and its exit code. */
    record Result(int code, String out, String err) {
        String all() {
            return out + "\n--- stderr:\n" + err;
        }
    }

    /** An mpilens command with {@code env} as its environment. */
    static Result mpilens(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * An mpilens command in a JVM of its own, {@code java JVM_OPTIONS… -jar CLI ARGS…}, as a user runs
     * it (its class path is then the CLI jar, which a collector started through MPJ Express's daemons
     * runs too); {@code env} on top of this JVM's environment without its {@code MPILENS_} variables.
     */
    static Result external(Path cli, List<String> jvmOptions, Map<String, String> env, String... args) throws Exception {
        Running r = start(cli, jvmOptions, env, args);
        int code = r.waitFor(Duration.ofMinutes(2));
        return new Result(code, r.out.toString(StandardCharsets.UTF_8), r.err.toString(StandardCharsets.UTF_8));
    }

    /** {@link #external} started, not awaited: a {@code watch} followed while the job goes on. */
    static Running start(Path cli, List<String> jvmOptions, Map<String, String> env, String... args) throws java.io.IOException {
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", cli.toString()));
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder b = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        b.environment().keySet().removeIf(k -> k.startsWith("MPILENS_"));
        b.environment().putAll(env);
        return new Running(String.join(" ", cmd), b.start());
    }

    /** An mpilens command running in a JVM of its own: what it printed so far. */
    static final class Running {
        final Output out = new Output();
        final Output err = new Output();
        private final String command;
        private final Process process;
        private final Thread[] pumps;

        private Running(String command, Process process) {
            this.command = command;
            this.process = process;
            pumps = new Thread[] {pump(process.getInputStream(), out), pump(process.getErrorStream(), err)};
        }

        private static Thread pump(java.io.InputStream from, Output to) {
            Thread t = new Thread(() -> {
                try {
                    from.transferTo(to);
                } catch (java.io.IOException e) {
                    // the process ended: what it printed is in
                }
            }, "cli-output");
            t.setDaemon(true);
            t.start();
            return t;
        }

        /** Its exit code, once it and its output have ended; fails (and ends it) after {@code limit}. */
        int waitFor(Duration limit) throws InterruptedException {
            if (!process.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                stop();
                throw new AssertionError("'" + command + "' did not end within " + limit + ":\n" + String.join("\n", out.lines())
                        + "\n--- stderr:\n" + String.join("\n", err.lines()));
            }
            for (Thread t : pumps) t.join(10_000);
            return process.exitValue();
        }

        /**
         * Ends it and what it started (a failed test's clean-up): killed, {@code mpilens run} cannot end
         * its {@code mpirun} and ranks, which would run on under init.
         */
        void stop() {
            ProcessTree.destroy(ProcessTree.withDescendants(List.of(process.toHandle())), 2_000);
        }
    }

    /**
     * The {@code jobs} line of job {@code id}, 4 of 4 ranks alive, status OK, of {@code binding}, on {@code h1}
     * and {@code h2}: the hosts column fits 80 columns as both names, the first and "+1", or "2 hosts"
     * ({@code JobsCommand.row}).
     */
    static String jobsLineOfFourRanksOnTwoHosts(String id, String binding, String h1, String h2) {
        return java.util.regex.Pattern.quote(id) + " +4/4 +4 +OK +" + binding + " +\\S+ +(" + java.util.regex.Pattern.quote(h1 + "," + h2)
                + "|" + java.util.regex.Pattern.quote(h1) + " \\+1|2 hosts)";
    }

    /** Fails unless a line of the command's output matches {@code regex} as a whole. */
    static void hasLine(Result r, String regex) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(regex);
        assertTrue(r.out().lines().anyMatch(l -> p.matcher(l).matches()), "a line matching " + regex + " in:\n" + r.all());
    }

    /** Everything a long-running command ({@code watch}) printed so far, safe to read while it writes. */
    static final class Output extends ByteArrayOutputStream {
        synchronized List<String> lines() {
            return Arrays.asList(toString(StandardCharsets.UTF_8).split("\n"));
        }
    }

    private static final java.util.regex.Pattern RANKS = java.util.regex.Pattern.compile("  ranks? ([0-9][0-9 -]*): ");

    /** The ranks a {@code watch} transition line is about: {@code rank 2: …} or {@code ranks 0 1 3-63: …}; none for another line. */
    static java.util.Set<Integer> ranksOf(String line) {
        java.util.regex.Matcher m = RANKS.matcher(line);
        return m.find() ? io.mpilens.headless.text.RankRanges.parse(m.group(1)) : java.util.Set.of();
    }

    /** Waits up to {@code limit} for a line of {@code out} that {@code line} accepts; fails naming {@code what}. */
    static void await(Output out, Predicate<String> line, String what, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (out.lines().stream().noneMatch(line) && System.nanoTime() < deadline) Thread.sleep(100);
        assertTrue(out.lines().stream().anyMatch(line), "watch printed " + what + ":\n" + String.join("\n", out.lines()));
    }
}
