package io.mpilens.testsupport;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Hosts simulated on this machine by {@code scripts/simhosts} (root only): each its own host name
 * and its own {@code /tmp} and {@code /dev/shm}, reached by Open MPI through an ssh stand-in.
 * Every instance has a state directory and host names of its own, and {@link #close} ends every
 * process inside its hosts and removes them. Test code of two modules: the integration tests
 * (a test source root of theirs) and the Eclipse workbench tests (a {@code source..} folder).
 */
public final class SimulatedHosts implements AutoCloseable {
    /** The repository: {@code -Dmpilens.root}, else the parent of the module the tests run in. */
    public static final Path ROOT = Path.of(System.getProperty("mpilens.root", "..")).toAbsolutePath().normalize();
    static final Path SCRIPT = ROOT.resolve("scripts/simhosts");

    private final Map<String, String> env;
    private final List<String> names = new ArrayList<>();

    private SimulatedHosts(Map<String, String> env) {
        this.env = env;
    }

    /** Whether this machine can simulate hosts: root, with unshare and nsenter. */
    public static boolean available() {
        return "root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/unshare"))
                && Files.isExecutable(Path.of("/usr/bin/nsenter"));
    }

    /**
     * The CLI jar the collectors on the hosts run ({@code java -jar}); the test is skipped where
     * hosts cannot be simulated or the jar is not built.
     */
    public static Path assumeCollectorsCanRun() {
        assumeTrue(available(), "simulated hosts need root, unshare and nsenter");
        Path cli = ROOT.resolve("headless/target/mpilens-cli.jar");
        assumeTrue(Files.isRegularFile(cli), cli + " is built (package phase of headless)");
        return cli;
    }

    /** {@code n} hosts named {@code mls<pid>-1..n}. */
    public static SimulatedHosts up(int n) throws IOException, InterruptedException {
        return up("mls", n);
    }

    /** {@code n} hosts named {@code <prefix><pid>-1..n}, the prefix telling apart tests of one JVM. */
    public static SimulatedHosts up(String prefix, int n) throws IOException, InterruptedException {
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

    public List<String> names() {
        return List.copyOf(names);
    }

    /** The environment of a front end on the launch host: its job directory, no colours, these hosts through the stand-in. */
    public Map<String, String> frontEnd(Path jobs, Path cli) throws IOException, InterruptedException {
        return Map.of("MPILENS_JOBS", jobs.toString(), "NO_COLOR", "1", "MPILENS_SSH", rshAgent().toString(),
                "MPILENS_REMOTE", "java -jar " + cli);
    }

    /** The ssh stand-in: {@code --mca plm_rsh_agent} for Open MPI, {@code MPILENS_SSH} for mpilens. */
    public Path rshAgent() throws IOException, InterruptedException {
        return Path.of(run("rsh-agent").trim());
    }

    /** mpirun's arguments that place {@code perHost} ranks on each simulated host, through the stand-in. */
    public String mpirunArgs(int perHost) throws IOException, InterruptedException {
        StringBuilder hosts = new StringBuilder();
        for (String n : names) hosts.append(hosts.length() == 0 ? "" : ",").append(n).append(':').append(perHost);
        return "--mca plm_rsh_agent " + rshAgent() + " --mca plm_rsh_no_tree_spawn 1 --host " + hosts;
    }

    /** The output of a shell command run inside {@code host} (as ssh would run it); fails on a non-zero exit. */
    public String exec(String host, String command) throws IOException, InterruptedException {
        return run("exec", host, command);
    }

    /** {@code host} stops answering: its processes stopped, ssh to it (the stand-in) hangs until {@link #thaw}. */
    public void freeze(String host) throws IOException, InterruptedException {
        run("freeze", host);
    }

    public void thaw(String host) throws IOException, InterruptedException {
        run("thaw", host);
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
