package io.mpilens.headless.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The MPJ Express daemon a niodev job needs, private to the job: it runs from the job's own
 * {@link MpjJobHome} and spawns the rank JVMs. Started before the job, killed with it.
 */
final class NiodevDaemon {
    private static final int ATTEMPTS = 3;

    final MpjJobHome home;
    final Process process;
    final Path log;

    private NiodevDaemon(MpjJobHome home, Process process, Path log) {
        this.home = home;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts a daemon on fresh ports and waits until it listens on both of its ports. A port
     * taken between choosing and binding makes the daemon die: then it retries on new ports.
     */
    static NiodevDaemon start(Path installedHome, Path jobDir, String java, Map<String, String> env,
                              Duration timeout) throws IOException {
        IOException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            MpjJobHome home = MpjJobHome.create(installedHome, jobDir);
            Path log = jobDir.resolve("daemon.out");
            ProcessBuilder pb = new ProcessBuilder(java, "-cp", home.dir.resolve("lib/daemon.jar").toString(),
                    "runtime.daemon.MPJDaemon", Integer.toString(home.daemonPort))
                    .directory(jobDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            pb.environment().putAll(env);
            pb.environment().put("MPJ_HOME", home.dir.toString());
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                throw new IOException("cannot start the MPJ Express niodev daemon with '" + java + "': "
                        + e.getMessage(), e);
            }
            NiodevDaemon d = new NiodevDaemon(home, p, log);
            String failure = d.awaitListening(timeout);
            if (failure == null) return d;
            ProcessTree.destroy(ProcessTree.withDescendants(List.of(p.toHandle())), 2_000);
            last = new IOException("the MPJ Express niodev daemon " + failure + " (ports " + home.daemonPort
                    + " and " + home.portManagerPort + ", attempt " + attempt + " of " + ATTEMPTS + "); its output:\n"
                    + d.logText());
        }
        throw last;
    }

    /** Null once both ports listen; otherwise why not. */
    private String awaitListening(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) return "exited with code " + process.exitValue() + " before listening";
            Boolean listening = home.daemonListening();
            if (listening == null) {
                sleep(2_000); // no /proc/net/tcp: give it the time it usually needs
                return process.isAlive() ? null : "exited with code " + process.exitValue();
            }
            if (listening) return null;
            sleep(50);
        }
        return "did not listen within " + timeout.toSeconds() + " s";
    }

    String logText() {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8);
            return s.isBlank() ? "  (no output)" : s;
        } catch (IOException e) {
            return "  (unreadable: " + e.getMessage() + ")";
        }
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting the niodev daemon", e);
        }
    }
}
