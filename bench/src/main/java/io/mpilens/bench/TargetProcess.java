package io.mpilens.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A single plain JVM with a JDWP server, for {@link SnapshotBench}. Not an MPI job: MPI jobs are
 * started with {@link io.mpilens.headless.launch.Job}. Killed by {@link #close()} and at exit.
 */
final class TargetProcess implements AutoCloseable {
    static final String JDWP_OPTION = io.mpilens.headless.launch.JobSpec.JDWP_OPTION;
    private static final Pattern JDWP = Pattern.compile("Listening for transport dt_socket at address: (\\d+)");

    private final Process process;
    private final Thread killAtExit;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private volatile int port = -1;
    private volatile String readyLine;

    private TargetProcess(Process process) {
        this.process = process;
        this.killAtExit = new Thread(process::destroyForcibly, "snapshot-target-" + process.pid() + "-kill");
        Runtime.getRuntime().addShutdownHook(killAtExit);
        Thread pump = new Thread(this::pump, "snapshot-target-" + process.pid() + "-output");
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts {@code mainClass} and waits until it prints a line starting with {@code readyPrefix}. */
    static TargetProcess start(String java, List<Path> classPath, String mainClass, List<String> args,
                               String readyPrefix, Duration timeout) throws IOException, InterruptedException {
        return start(java, List.of(), classPath, mainClass, args, readyPrefix, timeout);
    }

    /** The same with JVM options ({@code -Xmx…}) before the class path. */
    static TargetProcess start(String java, List<String> jvmOptions, List<Path> classPath, String mainClass,
                               List<String> args, String readyPrefix, Duration timeout)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(java, JDWP_OPTION));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classPath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)),
                mainClass));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        TargetProcess t;
        try {
            t = new TargetProcess(pb.start());
        } catch (IOException e) {
            throw new IOException("cannot run '" + java + "': " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (t.port < 0 || t.readyLine == null || !t.readyLine.startsWith(readyPrefix)) {
            if (!t.process.isAlive() || System.nanoTime() > deadline) {
                t.close();
                throw new IllegalStateException("the snapshot target did not start within " + timeout.toSeconds()
                        + " s: " + String.join(" ", cmd) + "\n  its output:\n  " + String.join("\n  ", t.output));
            }
            Thread.sleep(20);
        }
        return t;
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                output.add(line);
                Matcher m = JDWP.matcher(line);
                if (m.find()) port = Integer.parseInt(m.group(1));
                else if (readyLine == null && !line.isBlank()) readyLine = line;
            }
        } catch (IOException ignored) {
            // killed
        }
    }

    String jdwpAddress() {
        return "127.0.0.1:" + port;
    }

    /** The first line the target printed after JDWP's own. */
    String readyLine() {
        return readyLine;
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killAtExit);
        } catch (IllegalStateException e) {
            // already shutting down: the hook kills it
        }
    }
}
