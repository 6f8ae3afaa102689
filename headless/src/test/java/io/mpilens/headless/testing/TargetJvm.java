package io.mpilens.headless.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A target JVM for tests: runs a main class from the test class path on the default
 * {@code java} (the Java 17 MPI applications run on) with a JDWP server on a free port, waits
 * until it prints {@value #READY}, and is killed by {@link #close()} (call it in {@code @AfterEach}).
 */
public final class TargetJvm implements AutoCloseable {
    public static final String READY = "READY";
    private static final Pattern JDWP = Pattern.compile("Listening for transport dt_socket at address: (\\d+)");
    private static final long START_MILLIS = 30_000;

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private volatile int port = -1;
    private volatile boolean ready;

    private TargetJvm(Process process) {
        this.process = process;
        Thread pump = new Thread(this::pump, "target-jvm-output-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts {@code main} with the JVM options given (before the JDWP agent's) and waits until ready. */
    public static TargetJvm launch(Class<?> main, String... jvmOptions) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("mpilens.targetJava", "java"));
        cmd.add("-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0");
        cmd.addAll(List.of(jvmOptions));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        TargetJvm jvm = new TargetJvm(pb.start());
        jvm.awaitReady();
        return jvm;
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                output.add(line);
                Matcher m = JDWP.matcher(line);
                if (m.find()) port = Integer.parseInt(m.group(1));
                if (line.equals(READY)) ready = true;
            }
        } catch (IOException ignored) {
            // the process was killed
        }
    }

    private void awaitReady() throws InterruptedException {
        long deadline = System.currentTimeMillis() + START_MILLIS;
        while (!(ready && port > 0)) {
            if (!process.isAlive() || System.currentTimeMillis() > deadline) {
                close();
                throw new IllegalStateException("target JVM did not start (port " + port + ", ready " + ready
                        + "); its output:" + System.lineSeparator() + String.join(System.lineSeparator(), output));
            }
            Thread.sleep(20);
        }
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
    }

    /** The mpilens agent jar built by the runtime-agent module. */
    public static File agentJar() {
        return new File(System.getProperty("mpilens.agentJar", "../runtime-agent/target/mpilens-agent.jar"));
    }
}
