package io.mpilens.it;

import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.launch.MpjJobHome;
import io.mpilens.headless.launch.ProcessTree;
import io.mpilens.testsupport.SimulatedHosts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * An MPJ Express niodev job across {@link SimulatedHosts}, started the way the probe of
 * {@code notes/mpj-niodev-across-simulated-hosts.md} did (the product's {@code Job} knows one host only):
 * an MPJ home per host (outside /tmp: {@code lib} linked to the installed one, {@code conf} a copy
 * with ports of its own), one {@code MPJDaemon} inside each simulated host, a TCP forwarder in this
 * JVM from {@code 127.0.0.(K+1):D} to host K's daemon (the starter reaches every machine's daemon on
 * the one port {@code -dport D}; the hosts share one network namespace), a JDK hosts file naming the
 * launch host 127.0.0.1 and host K 127.0.0.(K+1), and the starter on this (the launch) host with
 * the machines file. {@link #close} ends every process and thread it started.
 */
final class MpjAcrossHosts implements AutoCloseable {
    private static final int ATTEMPTS = 3;

    private final SimulatedHosts hosts;
    private final Path dir;
    private final Path installed;
    private final String javaCommand;
    private final Path hostsFile;
    private final Path machines;
    private final List<Long> daemons = new CopyOnWriteArrayList<>();
    private final List<Integer> daemonPorts = new ArrayList<>();
    private final List<ServerSocket> listeners = new CopyOnWriteArrayList<>();
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final List<String> output = new ArrayList<>();
    private int forwardedPort;
    private Path launchHome;
    private Process starter;

    private MpjAcrossHosts(SimulatedHosts hosts, Path dir, Path installed, String java) {
        this.hosts = hosts;
        this.dir = dir;
        this.installed = installed;
        this.javaCommand = java;
        this.hostsFile = dir.resolve("hosts.jdk");
        this.machines = dir.resolve("machines");
    }

    /**
     * Homes, hosts file, a daemon in every simulated host and the forwarder, in {@code dir} (a
     * directory every simulated host sees); {@code java} runs the daemons and the starter (and, from
     * the PATH, the ranks).
     */
    static MpjAcrossHosts start(SimulatedHosts hosts, Path dir, Path installedMpjHome, String java) throws Exception {
        MpjAcrossHosts m = new MpjAcrossHosts(hosts, dir, installedMpjHome, java);
        try {
            m.setUp();
        } catch (Exception | Error e) {
            m.close();
            throw e;
        }
        return m;
    }

    private void setUp() throws Exception {
        Files.createDirectories(dir);
        List<String> names = hosts.names();
        String launchHost = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        List<String> lines = new ArrayList<>(List.of("127.0.0.1 " + launchHost + " localhost"));
        for (int k = 0; k < names.size(); k++) lines.add(address(k) + " " + names.get(k));
        Files.write(hostsFile, lines, StandardCharsets.UTF_8);
        Files.write(machines, names, StandardCharsets.UTF_8);
        launchHome = home("launch").dir();
        for (int k = 0; k < names.size(); k++) daemonPorts.add(startDaemon(k));
        forward();
    }

    /** Host K's address for MPJ (the JDK hosts file): 127.0.0.2, 127.0.0.3, … */
    private static String address(int k) {
        return "127.0.0." + (k + 2);
    }

    /** {@code dir/home-NAME/mpj-home}: lib linked, conf copied with three free ports of its own (daemon, port manager, starter). */
    private MpjJobHome home(String name) throws IOException {
        return MpjJobHome.create(installed, dir.resolve("home-" + name));
    }

    /**
     * Host K's daemon, started inside it in the background ({@code -Duser.home=/tmp}: MPJ's
     * {@code ~/.mpj_users} in the host's own /tmp); its daemon port once it listens on both ports.
     * A port taken meanwhile makes it exit ("Unable to attach to port!"): new ports, again.
     */
    private int startDaemon(int k) throws Exception {
        String host = hosts.names().get(k);
        String why = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            MpjJobHome mpjHome = home(host + "-" + attempt);
            Path home = mpjHome.dir();
            int port = mpjHome.daemonPort(), manager = mpjHome.portManagerPort();
            Path log = dir.resolve("daemon-" + host + "-" + attempt + ".out");
            String pid = hosts.exec(host, "MPJ_HOME=" + home + " exec " + javaCommand + " -Duser.home=/tmp -Djdk.net.hosts.file=" + hostsFile
                    + " -cp " + home.resolve("lib/daemon.jar") + " runtime.daemon.MPJDaemon " + port
                    + " >" + log + " 2>&1 </dev/null & echo $!").trim();
            long daemon = Long.parseLong(pid);
            daemons.add(daemon);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false)) {
                if (Boolean.TRUE.equals(mpjHome.daemonListening())) return port;
                Thread.sleep(50);
            }
            why = "the MPJ daemon in " + host + " (pid " + daemon + ", ports " + port + " and " + manager + ", attempt " + attempt
                    + ") did not listen: " + Files.readString(log);
            kill(daemon);
        }
        throw new IOException(why);
    }

    /** One port D free on every host address, held by the forwarder: 127.0.0.(K+1):D to 127.0.0.1:(host K's daemon port). */
    private void forward() throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < 10; attempt++) {
            List<ServerSocket> bound = new ArrayList<>();
            try {
                int port = 0;
                for (int k = 0; k < daemonPorts.size(); k++) {
                    ServerSocket s = new ServerSocket();
                    bound.add(s);
                    s.bind(new InetSocketAddress(InetAddress.getByName(address(k)), port));
                    port = s.getLocalPort();
                }
                forwardedPort = port;
                listeners.addAll(bound);
                for (int k = 0; k < bound.size(); k++) accept(bound.get(k), daemonPorts.get(k));
                return;
            } catch (IOException e) {
                last = e;
                for (ServerSocket s : bound) s.close();
            }
        }
        throw new IOException("no port free on every simulated host's address", last);
    }

    private void accept(ServerSocket listener, int target) {
        thread("mpj-fwd-" + listener.getLocalSocketAddress() + "-accept", () -> {
            while (!listener.isClosed()) {
                Socket in;
                try {
                    in = listener.accept();
                } catch (IOException e) {
                    return; // closed
                }
                connections.add(in);
                try {
                    Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                    connections.add(out);
                    pump(in, out);
                    pump(out, in);
                } catch (IOException e) {
                    close(in);
                }
            }
        });
    }

    private void pump(Socket from, Socket to) {
        thread("mpj-fwd-" + from.getPort() + "-" + to.getPort(), () -> {
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                in.transferTo(out);
            } catch (IOException e) {
                // closed
            }
            try {
                to.shutdownOutput();
            } catch (IOException e) {
                // closed
            }
        });
    }

    private void thread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    /**
     * Starts {@code spec}'s program (binding MPJ niodev) on the simulated hosts, {@code np} ranks
     * spread over the machines file: the starter on this host, its rank JVM options
     * ({@link JobSpec#rankJvmOptions()}: control dir, agent, JDWP) and the JDK hosts file passed on to the ranks.
     */
    void launch(JobSpec spec) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(javaCommand, "-Djdk.net.hosts.file=" + hostsFile, "-jar",
                launchHome.resolve("lib/starter.jar").toString(), "-np", Integer.toString(spec.np()), "-dev", "niodev",
                "-machinesfile", machines.toString(), "-dport", Integer.toString(forwardedPort)));
        cmd.addAll(spec.rankJvmOptions());
        cmd.add("-Djdk.net.hosts.file=" + hostsFile);
        cmd.add("-cp");
        cmd.add(String.join(java.io.File.pathSeparator, spec.classPath().stream().map(p -> p.toAbsolutePath().toString()).toList()));
        cmd.add(spec.mainClass());
        cmd.addAll(spec.appArgs());
        Path work = Files.createDirectories(dir.resolve("work"));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().put("MPJ_HOME", launchHome.toString());
        pb.environment().remove("MPILENS_JOBS");
        starter = pb.start();
        read(starter.getInputStream(), "stdout");
        read(starter.getErrorStream(), "stderr");
    }

    private void read(InputStream in, String name) {
        thread("mpj-starter-" + name, () -> {
            try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (output) {
                        output.add(line);
                        output.notifyAll();
                    }
                }
            } catch (IOException e) {
                // the starter ended
            }
        });
    }

    /** The starter's pid. */
    long pid() {
        return starter.pid();
    }

    /** The port the starter reaches every host's daemon on (the forwarder's). */
    int daemonPort() {
        return forwardedPort;
    }

    /** The launch host's MPJ home (the starter's {@code MPJ_HOME}). */
    Path launchHome() {
        return launchHome;
    }

    /** The JDK hosts file naming the launch host and the simulated hosts ({@code -Djdk.net.hosts.file}). */
    Path hostsFile() {
        return hostsFile;
    }

    /** The daemons' pids, in host order. */
    List<Long> daemons() {
        return List.copyOf(daemons);
    }

    /** Waits until {@code count} lines of the starter's output (its ranks' too) match; fails with the output. */
    void awaitLines(Predicate<String> line, int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (output) {
            while (output.stream().filter(line).count() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new AssertionError("expected " + count + " matching lines in " + timeout + "; the output:\n" + tail());
                TimeUnit.NANOSECONDS.timedWait(output, left);
            }
        }
    }

    /** The starter's exit code. */
    int waitFor(Duration timeout) throws InterruptedException {
        if (!starter.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) throw new AssertionError("the starter did not exit; output:\n" + tail());
        return starter.exitValue();
    }

    /** Every line of the starter's output so far (its ranks' too). */
    List<String> output() {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    /** The last lines of output, and the daemons' logs. */
    String tail() {
        StringBuilder b = new StringBuilder();
        synchronized (output) {
            for (String l : output.subList(Math.max(0, output.size() - 60), output.size())) b.append(l).append('\n');
        }
        try (Stream<Path> logs = Files.list(dir)) {
            for (Path log : logs.filter(p -> p.getFileName().toString().startsWith("daemon-")).sorted().toList()) {
                b.append("--- ").append(log.getFileName()).append(":\n").append(Files.readString(log));
            }
        } catch (IOException e) {
            b.append("(daemon logs unreadable: ").append(e.getMessage()).append(")\n");
        }
        return b.toString();
    }

    /** Ends the starter, the daemons and the ranks they spawned, the forwarder and every thread started here. */
    @Override
    public void close() {
        if (starter != null) kill(starter.pid());
        for (long d : daemons) kill(d);
        for (ServerSocket s : listeners) close(s);
        for (Socket s : connections) close(s);
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The process and its descendants: TERM, then KILL after 3 s. */
    private static void kill(long pid) {
        ProcessHandle.of(pid).ifPresent(p -> ProcessTree.destroy(ProcessTree.withDescendants(List.of(p)), 3_000));
    }

    private static void close(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // closed already
        }
    }
}
