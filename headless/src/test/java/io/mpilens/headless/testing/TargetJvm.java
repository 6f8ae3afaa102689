package io.mpilens.headless.testing;

import io.mpilens.headless.launch.JobSpec;
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
import java.util.stream.Stream;

/**
 * A single plain JVM with a JDWP server on a free port ({@link JobSpec#JDWP_OPTION}), for the
 * tests and for the bench's harnesses (which use it through this module's test jar). It waits
 * until the target prints a line starting with its ready prefix, and is killed by
 * {@link #close()} (call it in {@code @AfterEach}) or, at the latest, when this JVM exits. Not an
 * MPI job: those are started with {@link io.mpilens.headless.launch.Job}.
 */
public final class TargetJvm implements AutoCloseable {
    public static final String READY = "READY";
    private static final Pattern JDWP = Pattern.compile("Listening for transport dt_socket at address: (\\d+)");
    private static final Duration START = Duration.ofSeconds(30);

    private final Process process;
    private final String readyPrefix;
    private final Thread killAtExit;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private volatile int port = -1;
    private volatile String readyLine;

    private TargetJvm(Process process, String readyPrefix) {
        this.process = process;
        this.readyPrefix = readyPrefix;
        this.killAtExit = new Thread(process::destroyForcibly, "target-jvm-" + process.pid() + "-kill");
        Runtime.getRuntime().addShutdownHook(killAtExit);
        Thread pump = new Thread(this::pump, "target-jvm-output-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Starts {@code main} from the test class path on the default {@code java} (the Java 17 MPI
     * applications run on; {@code -Dmpilens.targetJava} changes it) with the JVM options given, and
     * waits until it prints {@value #READY}.
     */
    public static TargetJvm launch(Class<?> main, String... jvmOptions) throws IOException, InterruptedException {
        List<Path> classPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).collect(Collectors.toList());
        return start(System.getProperty("mpilens.targetJava", "java"), List.of(jvmOptions), classPath, main.getName(),
                List.of(), READY, START);
    }

    /**
     * Starts {@code mainClass} on {@code java} with JDWP, then the JVM options ({@code -Xmx…}), the
     * class path and {@code args}, and waits until it prints a line starting with {@code readyPrefix}.
     */
    public static TargetJvm start(String java, List<String> jvmOptions, List<Path> classPath, String mainClass,
                                  List<String> args, String readyPrefix, Duration timeout)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(java, JobSpec.JDWP_OPTION));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classPath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)),
                mainClass));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        TargetJvm jvm;
        try {
            jvm = new TargetJvm(pb.start(), readyPrefix);
        } catch (IOException e) {
            throw new IOException("cannot run '" + java + "': " + e.getMessage(), e);
        }
        jvm.awaitReady(cmd, timeout);
        return jvm;
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                output.add(line);
                Matcher m = JDWP.matcher(line);
                if (m.find()) port = Integer.parseInt(m.group(1));
                else if (readyLine == null && line.startsWith(readyPrefix)) readyLine = line;
            }
        } catch (IOException ignored) {
            // the process was killed
        }
    }

    private void awaitReady(List<String> cmd, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (readyLine == null || port < 0) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                close();
                throw new IllegalStateException("the target JVM did not start within " + timeout.toSeconds()
                        + " s (port " + port + ", ready " + (readyLine != null) + "): " + String.join(" ", cmd)
                        + System.lineSeparator() + "  its output:" + System.lineSeparator() + "  "
                        + String.join(System.lineSeparator() + "  ", output));
            }
            Thread.sleep(20);
        }
    }

    /** The first line it printed that starts with the ready prefix. */
    public String readyLine() {
        return readyLine;
    }

    /**
     * The port JDWP listens on now. With {@code address=...:0} the JDWP agent listens on a new
     * port each time a debugger detaches, and prints it again.
     */
    public int port() {
        return port;
    }

    /** Waits until JDWP listens again after a debugger detached; returns the new address. */
    public String awaitRelisten(String oldAddress) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (address().equals(oldAddress)) {
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException("JDWP did not listen again");
            Thread.sleep(10);
        }
        return address();
    }

    /** {@code 127.0.0.1:PORT}, the port JDWP listens on now. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Everything it printed so far, stdout and stderr merged. */
    public List<String> output() {
        return List.copyOf(output);
    }

    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
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

    /** The mpilens agent jar built by the runtime-agent module. */
    public static File agentJar() {
        return new File(System.getProperty("mpilens.agentJar", "../runtime-agent/target/mpilens-agent.jar"));
    }
}
