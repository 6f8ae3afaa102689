package io.mpilens.headless.launch;

import io.mpilens.api.job.JobRecordLayout;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A running MPI job: the launcher process ({@code mpirun} or MPJ's starter), the niodev daemon
 * when the job needs one, and everything they spawned. The one way mpilens starts MPI jobs
 * (CLI {@code run}/{@code demo}, integration tests, benchmarks).
 *
 * <p>{@link #close()} ends all of it and is also run by a shutdown hook. Each MPJ job gets its
 * own MPJ home with its own free ports (see {@link MpjJobHome}), so jobs of every binding can
 * run at the same time.
 */
public final class Job implements AutoCloseable {
    private static final Pattern JDWP_LISTENING =
            Pattern.compile("(?:Listening for transport dt_socket at address: |"
                    + Pattern.quote(JobRecordLayout.JDWP_LINE) + "[^\\s:]*:)(\\d+)");
    private static final int KEPT_LINES = 20_000;
    private static final int TAIL_LINES = 40;
    private static final long GRACE_MILLIS = 3_000;

    private final JobSpec spec;
    private final Path jobDir;
    private final Process launcher;
    private final NiodevDaemon daemon;
    private final JobOutput output;
    private final List<String> command;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private Job(JobSpec spec, Path jobDir, Process launcher, NiodevDaemon daemon, JobOutput output,
                List<String> command) {
        this.spec = spec;
        this.jobDir = jobDir;
        this.launcher = launcher;
        this.daemon = daemon;
        this.output = output;
        this.command = List.copyOf(command);
        this.shutdownHook = new Thread(this::close, "mpilens-job-" + launcher.pid() + "-cleanup");
    }

    /** Starts the job; fails with what is missing when the binding is not installed. */
    public static Job launch(JobSpec spec) throws IOException {
        spec.environment().require(spec.binding());
        Path jobDir = Files.createTempDirectory("mpilens-job-");
        NiodevDaemon daemon = null;
        try {
            Map<String, String> env = new HashMap<>(spec.env());
            String java = spec.javaExecutable();
            Path javaBin = java.contains(File.separator) ? Path.of(java).toAbsolutePath().getParent() : null;
            if (javaBin != null) {
                // MPJ's starter and daemon run the rank JVMs with the "java" found on PATH
                env.put("PATH", javaBin + File.pathSeparator + System.getenv().getOrDefault("PATH", ""));
            }
            List<String> cmd;
            if (spec.binding() == Binding.OPENMPI) {
                cmd = openMpiCommand(spec);
                if ("root".equals(System.getProperty("user.name"))) {
                    env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
                    env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
                }
            } else {
                Path installed = spec.environment().mpjHome();
                MpjJobHome home;
                if (spec.binding() == Binding.MPJ_NIODEV) {
                    daemon = NiodevDaemon.start(installed, jobDir, java, env, spec.startTimeout());
                    home = daemon.home;
                } else {
                    home = MpjJobHome.create(installed, jobDir);
                }
                env.put("MPJ_HOME", home.dir.toString());
                cmd = mpjCommand(spec, home, jobDir);
            }
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .directory((spec.workingDirectory() != null ? spec.workingDirectory() : jobDir).toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.environment().putAll(env);
            Process launcher;
            try {
                launcher = pb.start();
            } catch (IOException e) {
                throw new IOException("cannot run '" + cmd.get(0) + "': " + e.getMessage()
                        + (spec.binding() == Binding.OPENMPI ? " (is openmpi-bin installed? run scripts/setup-env)" : ""),
                        e);
            }
            JobOutput out = new JobOutput(KEPT_LINES);
            out.pump(launcher.getInputStream(), false, "mpilens-job-" + launcher.pid() + "-stdout");
            out.pump(launcher.getErrorStream(), true, "mpilens-job-" + launcher.pid() + "-stderr");
            Job job = new Job(spec, jobDir, launcher, daemon, out, cmd);
            Runtime.getRuntime().addShutdownHook(job.shutdownHook);
            return job;
        } catch (IOException | RuntimeException e) {
            if (daemon != null) ProcessTree.destroy(ProcessTree.withDescendants(List.of(daemon.process.toHandle())), 2_000);
            deleteTree(jobDir);
            throw e;
        }
    }

    static List<String> openMpiCommand(JobSpec spec) {
        List<String> cmd = new ArrayList<>(List.of("mpirun", "--oversubscribe", "--tag-output",
                "-np", Integer.toString(spec.np())));
        cmd.addAll(spec.mpirunArgs());
        cmd.add(spec.javaExecutable());
        cmd.addAll(spec.rankJvmOptions());
        List<Path> cp = new ArrayList<>(spec.classPath());
        cp.add(spec.environment().ompiJar());
        cmd.add("-cp");
        cmd.add(joinPath(cp));
        cmd.add(spec.mainClass());
        cmd.addAll(spec.appArgs());
        return cmd;
    }

    /** MPJ's starter passes every dash argument before the class name on to the rank JVMs. */
    static List<String> mpjCommand(JobSpec spec, MpjJobHome home, Path jobDir) throws IOException {
        boolean niodev = spec.binding() == Binding.MPJ_NIODEV;
        List<String> cmd = new ArrayList<>(List.of(spec.javaExecutable(), "-jar",
                home.dir.resolve("lib/starter.jar").toString(), "-np", Integer.toString(spec.np()),
                "-dev", niodev ? "niodev" : "multicore"));
        if (niodev) {
            Path machines = jobDir.resolve("machines");
            Files.write(machines, List.of("localhost"), StandardCharsets.UTF_8);
            cmd.addAll(List.of("-machinesfile", machines.toString(), "-dport", Integer.toString(home.daemonPort)));
        }
        cmd.addAll(spec.rankJvmOptions());
        if (!spec.classPath().isEmpty()) {
            cmd.add("-cp");
            cmd.add(joinPath(spec.classPath()));
        }
        cmd.add(spec.mainClass());
        cmd.addAll(spec.appArgs());
        return cmd;
    }

    public JobSpec spec() {
        return spec;
    }

    /** The launcher's command line, for logs and error messages. */
    public List<String> command() {
        return command;
    }

    /** The launcher's pid ({@code mpirun} or MPJ's starter). */
    public long pid() {
        return launcher.pid();
    }

    public boolean isAlive() {
        return launcher.isAlive();
    }

    /**
     * The JDWP address of each rank JVM, {@code 127.0.0.1:PORT}: one per rank for Open MPI
     * (ordered by rank) and niodev (in the order they started), one for multicore.
     */
    public List<String> awaitJdwpAddresses(Duration timeout) throws IOException, InterruptedException {
        if (!spec.jdwp()) throw new IllegalStateException("the job was launched without jdwp(true)");
        int expected = spec.binding().rankJvms(spec.np());
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean ok = output.await(lines -> jdwpPorts(lines).size() >= expected, deadline);
        Map<Integer, Integer> ports = jdwpPorts(output.snapshot());
        if (!ok) {
            throw failure("expected " + expected + " JDWP address" + (expected == 1 ? "" : "es") + ", saw "
                    + ports.size() + " " + ports.values(), timeout);
        }
        Stream<Map.Entry<Integer, Integer>> entries = ports.entrySet().stream();
        if (spec.binding() == Binding.OPENMPI) entries = entries.sorted(Map.Entry.comparingByValue());
        return entries.map(e -> "127.0.0.1:" + e.getKey()).collect(Collectors.toList());
    }

    /** Port to rank (or {@link OutputLine#UNKNOWN_RANK}), in the order the ports were printed. */
    private static Map<Integer, Integer> jdwpPorts(List<OutputLine> lines) {
        Map<Integer, Integer> ports = new LinkedHashMap<>();
        for (OutputLine l : lines) {
            Matcher m = JDWP_LISTENING.matcher(l.text());
            if (m.find()) ports.putIfAbsent(Integer.parseInt(m.group(1)), l.rank());
        }
        return ports;
    }

    /** Hands every line, those kept so far and each new one, to {@code follower} (on the reading threads). */
    public void followOutput(java.util.function.Consumer<OutputLine> follower) {
        output.follow(follower);
    }

    /** Every line kept so far (the last {@value #KEPT_LINES}), tags stripped. */
    public List<String> output() {
        return output.snapshot().stream().map(OutputLine::text).collect(Collectors.toList());
    }

    /** Every line kept so far with its rank (Open MPI) and stream. */
    public List<OutputLine> outputLines() {
        return output.snapshot();
    }

    /** The kept lines that start with {@code prefix}, e.g. {@code MPILENS-EXPECT}. */
    public List<String> linesStartingWith(String prefix) {
        return output.snapshot().stream().map(OutputLine::text).filter(t -> t.startsWith(prefix))
                .collect(Collectors.toList());
    }

    /** Waits for the first line that {@code matcher} accepts and returns it. */
    public String awaitLine(Predicate<String> matcher, Duration timeout) throws IOException, InterruptedException {
        return awaitLines(matcher, 1, timeout).get(0);
    }

    /** Waits until {@code count} lines are accepted by {@code matcher}; returns them in order. */
    public List<String> awaitLines(Predicate<String> matcher, int count, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean ok = output.await(lines -> matching(lines, matcher).size() >= count, deadline);
        List<String> seen = matching(output.snapshot(), matcher);
        if (!ok) throw failure("expected " + count + " matching line" + (count == 1 ? "" : "s") + ", saw " + seen.size(), timeout);
        return seen.subList(0, count);
    }

    private static List<String> matching(List<OutputLine> lines, Predicate<String> matcher) {
        List<String> out = new ArrayList<>();
        for (OutputLine l : lines) if (matcher.test(l.text())) out.add(l.text());
        return out;
    }

    /** Lets ranks paused at {@code point} go on: creates {@code controlDir/point.go}. */
    public void release(String point) throws IOException {
        Path dir = spec.controlDir();
        if (dir == null) throw new IllegalStateException("the job was launched without a control directory");
        Files.createDirectories(dir);
        try {
            Files.createFile(dir.resolve(point + ".go"));
        } catch (FileAlreadyExistsException e) {
            // released before: nothing to do
        }
    }

    /** Waits for the launcher to exit and for its output to be read; returns its exit code. */
    public int waitFor(Duration timeout) throws IOException, InterruptedException {
        if (!launcher.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw failure("the job did not exit", timeout);
        }
        // the streams end right after the process; a bounded wait keeps a grandchild holding them from blocking
        output.await(lines -> output.ended(), System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
        return launcher.exitValue();
    }

    /** The last lines of output, for messages. */
    public String tail() {
        return output.tail(TAIL_LINES);
    }

    /** The launcher, the niodev daemon, and their living descendants (a snapshot). */
    public List<ProcessHandle> processes() {
        List<ProcessHandle> roots = new ArrayList<>();
        roots.add(launcher.toHandle());
        if (daemon != null) roots.add(daemon.process.toHandle());
        return new ArrayList<>(ProcessTree.withDescendants(roots));
    }

    /** Ports the job's MPJ runtime listens on (daemon, port manager, starter); empty without a niodev daemon. */
    List<Integer> runtimePorts() {
        return daemon != null ? daemon.home.ports() : List.of();
    }

    /** Ends the launcher, the daemon and every process they started; idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        Set<ProcessHandle> all = ProcessTree.withDescendants(processes());
        // ranks whose parent (the daemon) already died belong to init now: find them by the job's path
        all.addAll(ProcessTree.byCommandLine(jobDir.toString()));
        ProcessTree.destroy(all, GRACE_MILLIS);
        deleteTree(jobDir);
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs or has run
            }
        }
    }

    private IOException failure(String what, Duration timeout) {
        String state = launcher.isAlive() ? "still running after " + timeout.toMillis() + " ms"
                : "exited with code " + launcher.exitValue();
        String daemonLog = daemon != null && !launcher.isAlive() ? "\nniodev daemon output:\n" + daemon.logText() : "";
        return new IOException(spec.binding() + " job (" + spec.mainClass() + ", " + spec.np() + " ranks): " + what
                + "; the job is " + state + ". Last output:\n" + output.tail(TAIL_LINES) + daemonLog);
    }

    private static String joinPath(List<Path> entries) {
        return entries.stream().map(p -> p.toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator));
    }

    private static void deleteTree(Path dir) {
        // walk does not follow links: the private MPJ home's lib link goes, the installed lib stays
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a leftover temp file is harmless
                }
            });
        } catch (IOException e) {
            // already gone
        }
    }
}
