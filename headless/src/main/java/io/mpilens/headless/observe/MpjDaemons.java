package io.mpilens.headless.observe;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Collectors started through MPJ Express's daemons ({@code --via mpj}), the launcher of a niodev
 * job: one ticket per host to the daemon that started that host's ranks, on the port the job's
 * starter used, asking for one JVM that runs {@code mpilens collect} (MPJ Express 0.44's protocol:
 * {@code notes/mpj-daemon-protocol.md}). The daemon starts it under MPJ's {@code Wrapper}, as its
 * own user, with its own {@code java} and environment, and sends its standard output and error
 * (merged) back on the same connection; mpilens opens no port. Nothing else is ever sent to a
 * daemon: a connection without a valid ticket breaks an MPJ Express daemon for good (its clean-up
 * thread dies), so the port is never probed.
 *
 * <p>What the daemon cannot do, and what is done instead: it reports no exit code (the collector
 * prints {@link #EXIT_LINE} last); it passes no standard input (so no collector is kept from round
 * to round: a {@code watch} starts one per round); it starts {@code java} from its own PATH with the
 * class path built from the ticket's MPJ home, which must exist on its host (the starter's own
 * {@code MPJ_HOME}, as MPJ's starter sends it), and the collector's jar must be at the same path on
 * that host (a shared file system, as for the job's own class path).
 */
public final class MpjDaemons {
    /** The daemon port, when the starter's {@code -dport} is not found ({@code $MPJ_HOME/conf/mpjexpress.conf} otherwise). */
    public static final String PORT_ENV = "MPILENS_MPJ_DAEMON_PORT";
    /** MPJ Express's own default daemon port ({@code RTConstants}). */
    static final int MPJ_DEFAULT_PORT = 10000;
    /** The last line a collector started this way prints: its exit code, which the daemon does not pass on. */
    public static final String EXIT_LINE = "mpilens-collector-exit ";
    /** The main class that drops the three arguments MPJ's Wrapper puts first. */
    static final String MAIN_CLASS = "io.mpilens.headless.cli.MpjDaemonCollector";
    private static final int CONNECT_MILLIS = 5_000;

    private final int port;
    private final String mpjHome;
    private final String classPath;
    private final String workingDirectory;
    private final List<String> jvmArgs;

    MpjDaemons(int port, String mpjHome, String classPath, String workingDirectory, List<String> jvmArgs) {
        this.port = port;
        this.mpjHome = mpjHome;
        this.classPath = classPath;
        this.workingDirectory = workingDirectory;
        this.jvmArgs = List.copyOf(jvmArgs);
    }

    /**
     * From the environment: {@value #PORT_ENV}, else {@code mpjexpress.mpjdaemon.port.1} of
     * {@code $MPJ_HOME/conf/mpjexpress.conf}, else MPJ's default (10000); {@code $MPJ_HOME}
     * required (the daemon builds the collector's class path from it). The collector runs this
     * JVM's class path (the mpilens CLI jar) with its {@code mpilens.*} properties.
     */
    static MpjDaemons of(Map<String, String> env) {
        String home = env.get("MPJ_HOME");
        if (home == null || home.isBlank()) {
            throw new IllegalArgumentException("--via mpj needs MPJ_HOME (the MPJ Express home the job's starter used;"
                    + " the daemons build the collector's class path from it)");
        }
        int port = portOf(env.get(PORT_ENV), PORT_ENV);
        if (port == 0) port = confPort(Path.of(home));
        String cp = System.getProperty("java.class.path", "");
        if (cp.isBlank()) throw new IllegalArgumentException("--via mpj: this JVM has no class path to give the collectors");
        Path first = Path.of(cp.split(java.io.File.pathSeparator)[0]).toAbsolutePath();
        String absolute = String.join(java.io.File.pathSeparator, java.util.Arrays.stream(cp.split(java.io.File.pathSeparator))
                .map(p -> Path.of(p).toAbsolutePath().toString()).toList());
        // the daemon puts the working directory on the class path too: the jar's own directory, never /tmp
        Path work = Files.isDirectory(first) ? first : first.getParent();
        List<String> jvm = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        for (String p : List.of("mpilens.home", "mpilens.deps", "mpilens.agentJar")) {
            String v = System.getProperty(p);
            if (v != null) jvm.add("-D" + p + "=" + v);
        }
        return new MpjDaemons(port, home, absolute, work.toString(), jvm);
    }

    /** {@code value} as a port, 0 when null; anything else is an error naming {@code what}. */
    static int portOf(String value, String what) {
        if (value == null || value.isBlank()) return 0;
        try {
            int p = Integer.parseInt(value.strip());
            if (p > 0 && p < 65_536) return p;
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(what + " '" + value + "' is not a port");
    }

    /** {@code mpjexpress.mpjdaemon.port.1} of an MPJ home's conf, as MPJ reads it; MPJ's default when it has none. */
    static int confPort(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("conf/mpjexpress.conf"), StandardCharsets.UTF_8)) {
                String l = line.replaceAll("\\s", "");
                if (l.startsWith("mpjexpress.mpjdaemon.port.1=")) return portOf(l.substring(l.indexOf('=') + 1), "mpjexpress.mpjdaemon.port.1");
            }
        } catch (IOException | IllegalArgumentException e) {
            // MPJ's own default, as its starter does
        }
        return MPJ_DEFAULT_PORT;
    }

    /** The port asked on every host. */
    public int port() {
        return port;
    }

    /** How a collector on {@code host} is started, for messages. */
    String describe(String host, List<String> args) {
        return "the MPJ Express daemon at " + host + ":" + port + " running 'mpilens " + String.join(" ", args) + "'";
    }

    /** Sends the ticket for {@code mpilens ARGS…} to {@code host}'s daemon: the collector as a {@link Process}. */
    Process start(String host, List<String> args) throws IOException {
        byte[] ticket = ticket(args).getBytes(StandardCharsets.US_ASCII);
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), CONNECT_MILLIS);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            ByteArrayOutputStream all = new ByteArrayOutputStream(4 + ticket.length);
            new DataOutputStream(all).writeInt(ticket.length);
            all.write(ticket);
            out.write(all.toByteArray()); // in one go: the daemon reads the length, then exactly that many bytes
            out.flush();
        } catch (IOException e) {
            s.close();
            throw new IOException("no MPJ Express daemon answered at " + host + ":" + port + " (" + e.getMessage()
                    + "); is it on another port? " + PORT_ENV + "=the port the job's starter used (its -dport, else"
                    + " mpjexpress.mpjdaemon.port.1 of its MPJ_HOME)", e);
        }
        return new DaemonProcess(s, host + ":" + port);
    }

    /** The ticket, ASCII (the daemon decodes it in its default charset). */
    String ticket(List<String> args) {
        StringBuilder x = new StringBuilder("<MPJProcessInfo>");
        element(x, "TicketID", UUID.randomUUID().toString());
        element(x, "ClassPath", classPath);
        // Wrapper's thread name and the job name an agent would give it: never the job's own starter
        element(x, "MasterNode", "mpilens-collector");
        element(x, "MasterPort", "0");
        element(x, "ProcessCount", "1");
        element(x, "StartingRank", "0");
        list(x, "JvmArgs", jvmArgs);
        element(x, "WorkingDirectory", workingDirectory);
        element(x, "ZippedSource", "false");
        element(x, "sourceCode", "");
        element(x, "MainClass", MAIN_CLASS);
        element(x, "DeviceName", "niodev");
        element(x, "ConfFileContents", "");
        list(x, "AppArgs", args);
        element(x, "UserID", "mpilens");
        element(x, "NetworkProcessCount", "-1");
        element(x, "TotalProcessCount", "-1");
        element(x, "NetworkDevice", "niodev");
        element(x, "MPJ_HOME", mpjHome);
        element(x, "Debug", "false");
        element(x, "DebugPort", "24500");
        element(x, "Profiler", "false");
        return x.append("</MPJProcessInfo>").toString();
    }

    private static void list(StringBuilder x, String name, List<String> values) {
        x.append('<').append(name).append('>');
        for (String v : values) element(x, "Argument", v);
        x.append("</").append(name).append('>');
    }

    private static void element(StringBuilder x, String name, String text) {
        x.append('<').append(name).append('>');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> x.append("&amp;");
                case '<' -> x.append("&lt;");
                case '>' -> x.append("&gt;");
                default -> {
                    if (c >= 0x20 && c < 0x7f) x.append(c);
                    else x.append("&#").append(text.codePointAt(i)).append(';');
                    if (Character.isHighSurrogate(c)) i++;
                }
            }
        }
        x.append("</").append(name).append('>');
    }

    /**
     * A collector started by a daemon, seen as a process: its standard output is the JSON lines
     * of what came back, its standard error every other line (MPJ merges the two), its exit code
     * the one it printed last. The connection is read to its end in a thread of its own (the
     * daemon's output must be drained, or the collector blocks); {@link #destroy} closes it, and
     * the daemon ends the collector a few seconds later.
     */
    static final class DaemonProcess extends Process {
        private static final byte[] PING = "@Ping#\n".getBytes(StandardCharsets.US_ASCII);
        private final Socket socket;
        private final String daemon;
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile byte[] out = new byte[0];
        private volatile byte[] err = new byte[0];
        private volatile int exit = -1;

        DaemonProcess(Socket socket, String daemon) {
            this.socket = socket;
            this.daemon = daemon;
            Thread t = new Thread(this::read, "mpilens-mpj-daemon-" + daemon);
            t.setDaemon(true);
            t.start();
        }

        private void read() {
            byte[] all;
            try (InputStream in = socket.getInputStream()) {
                all = in.readAllBytes();
            } catch (IOException e) {
                all = null;
            }
            try {
                if (all == null) {
                    err = ("the connection to the MPJ Express daemon at " + daemon + " broke").getBytes(StandardCharsets.UTF_8);
                    exit = 1;
                } else {
                    split(all);
                }
            } finally {
                closeQuietly();
                done.countDown();
            }
        }

        /** The daemon's stream: pings (a whole line, though possibly inside a long one) out, EXIT at the end out, lines sorted. */
        private void split(byte[] all) {
            String text = new String(withoutPings(all), StandardCharsets.UTF_8);
            boolean ended = text.endsWith("EXIT");
            if (ended) text = text.substring(0, text.length() - 4);
            StringBuilder json = new StringBuilder(), other = new StringBuilder();
            boolean started = false;
            int code = -1;
            for (String line : text.split("\n")) {
                if (line.startsWith("{")) json.append(line).append('\n');
                else if (line.startsWith(EXIT_LINE)) code = parseCode(line.substring(EXIT_LINE.length()));
                else if (line.startsWith("Starting process <")) started = true;
                else if (!line.startsWith("Stopping Process <") && !line.isBlank()) other.append(line).append('\n');
            }
            if (!started) {
                other.append("the MPJ Express daemon at ").append(daemon).append(" started no collector (")
                        .append(ended ? "its MPJ_HOME or the collector's directory missing on that host? the daemon's own output says"
                                : "the connection ended first").append(")\n");
                code = 2;
            } else if (code < 0) {
                other.append("the collector ended without its exit line (killed, or a JVM error above)\n");
                code = 1;
            }
            out = json.toString().getBytes(StandardCharsets.UTF_8);
            err = other.toString().getBytes(StandardCharsets.UTF_8);
            exit = code;
        }

        private static int parseCode(String s) {
            try {
                return Integer.parseInt(s.strip());
            } catch (NumberFormatException e) {
                return 1;
            }
        }

        static byte[] withoutPings(byte[] all) {
            ByteArrayOutputStream b = new ByteArrayOutputStream(all.length);
            int from = 0;
            outer:
            for (int i = 0; i + PING.length <= all.length; i++) {
                for (int j = 0; j < PING.length; j++) if (all[i + j] != PING[j]) continue outer;
                b.write(all, from, i - from);
                from = i + PING.length;
                i = from - 1;
            }
            b.write(all, from, all.length - from);
            return b.toByteArray();
        }

        private void closeQuietly() {
            try {
                socket.close();
            } catch (IOException e) {
                // closed
            }
        }

        /** A stream of {@code bytes} once the connection has ended. */
        private InputStream after(java.util.function.Supplier<byte[]> bytes) {
            return new InputStream() {
                private ByteArrayInputStream in;

                private ByteArrayInputStream in() throws IOException {
                    if (in == null) {
                        try {
                            done.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new java.io.InterruptedIOException();
                        }
                        in = new ByteArrayInputStream(bytes.get());
                    }
                    return in;
                }

                @Override
                public int read() throws IOException {
                    return in().read();
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    return in().read(b, off, len);
                }
            };
        }

        @Override
        public OutputStream getOutputStream() {
            return OutputStream.nullOutputStream(); // the daemon passes nothing on
        }

        @Override
        public InputStream getInputStream() {
            return after(() -> out);
        }

        @Override
        public InputStream getErrorStream() {
            return after(() -> err);
        }

        @Override
        public int waitFor() throws InterruptedException {
            done.await();
            return exit;
        }

        @Override
        public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
            return done.await(timeout, unit);
        }

        @Override
        public int exitValue() {
            if (done.getCount() > 0) throw new IllegalThreadStateException("the collector at " + daemon + " is running");
            return exit;
        }

        @Override
        public void destroy() {
            closeQuietly(); // the daemon ends the collector when its connection is gone
        }

        @Override
        public boolean isAlive() {
            return done.getCount() > 0;
        }

        @Override
        public java.util.stream.Stream<ProcessHandle> descendants() {
            return java.util.stream.Stream.empty(); // on another host
        }
    }
}
