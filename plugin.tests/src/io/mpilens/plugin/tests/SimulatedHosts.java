package io.mpilens.plugin.tests;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Hosts simulated on this machine by {@code scripts/simhosts} (root only): each its own host name
 * and its own {@code /tmp} and {@code /dev/shm}, reached by Open MPI through an ssh stand-in. Every
 * instance has a state directory and host names of its own, and {@link #close} ends every process
 * inside its hosts and removes them. The workbench tests' twin of the integration tests'
 * {@code io.mpilens.it.SimulatedHosts} (same methods): the two test modules share no test code.
 */
final class SimulatedHosts implements AutoCloseable {
    static final Path ROOT = Paths.get(System.getProperty("mpilens.root", "..")).toAbsolutePath().normalize();
    static final Path SCRIPT = ROOT.resolve("scripts/simhosts");

    private final Map<String, String> env;
    private final List<String> names = new ArrayList<>();

    private SimulatedHosts(Map<String, String> env) {
        this.env = env;
    }

    /** Whether this machine can simulate hosts: root, with unshare and nsenter. */
    static boolean available() {
        return "root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/unshare"))
                && Files.isExecutable(Path.of("/usr/bin/nsenter"));
    }

    /**
     * The CLI jar the collectors on the hosts run ({@code java -jar}); the test is skipped where
     * hosts cannot be simulated or the jar is not built.
     */
    static Path assumeCollectorsCanRun() {
        assumeTrue(available(), "simulated hosts need root, unshare and nsenter");
        Path cli = ROOT.resolve("headless/target/mpilens-cli.jar");
        assumeTrue(Files.isRegularFile(cli), cli + " is built (package phase of headless)");
        return cli;
    }

    /** {@code n} hosts named {@code <prefix><pid>-1..n}, the prefix telling the tests apart. */
    static SimulatedHosts up(String prefix, int n) throws IOException, InterruptedException {
        String tag = prefix + ProcessHandle.current().pid();
        SimulatedHosts h = new SimulatedHosts(Map.of("SIMHOSTS_DIR", "/run/mpilens-simhosts-" + tag,
                "SIMHOSTS_PREFIX", tag + "-"));
        try {
            h.names.addAll(h.run("up", Integer.toString(n)).lines().filter(l -> !l.isBlank()).toList());
            if (h.names.size() != n) throw new IOException("simhosts up " + n + " made " + h.names);
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
        return h;
    }

    List<String> names() {
        return List.copyOf(names);
    }

    /** The ssh stand-in: {@code --mca plm_rsh_agent} for Open MPI, {@code MPILENS_SSH} for mpilens. */
    Path rshAgent() throws IOException, InterruptedException {
        return Path.of(run("rsh-agent").trim());
    }

    /** The output of a shell command run inside {@code host} (as ssh would run it); fails on a non-zero exit. */
    String exec(String host, String command) throws IOException, InterruptedException {
        return run("exec", host, command);
    }

    private String run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(SCRIPT.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(cmd + " did not end in 60 s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) throw new IOException(cmd + " exited with " + p.exitValue() + ":\n" + text);
        return text;
    }

    /** Ends every process inside the hosts, removes them and their state directory. */
    @Override
    public void close() throws IOException {
        try {
            run("down");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the simulated hosts went down", e);
        }
    }
}
