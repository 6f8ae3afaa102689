package io.mpilens.headless.launch;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A private MPJ Express home for one job: {@code lib} links to the installed one, {@code conf}
 * is a copy whose daemon, port-manager and starter ports are free ports chosen now. MPJ reads
 * every port from {@code $MPJ_HOME/conf/mpjexpress.conf} (there are no fixed ports), so jobs
 * with their own home, and their own niodev daemon, run side by side.
 */
public final class MpjJobHome {
    private static final String CONF = "mpjexpress.conf";

    final Path dir;
    final int daemonPort;
    final int portManagerPort;
    final int starterPort;

    private MpjJobHome(Path dir, int daemonPort, int portManagerPort, int starterPort) {
        this.dir = dir;
        this.daemonPort = daemonPort;
        this.portManagerPort = portManagerPort;
        this.starterPort = starterPort;
    }

    /**
     * Creates {@code jobDir/mpj-home} from {@code installed}, with fresh free ports (also used by
     * the tests across simulated hosts: one home per host, each daemon on ports of its own).
     */
    public static MpjJobHome create(Path installed, Path jobDir) throws IOException {
        Path dir = jobDir.resolve("mpj-home");
        Path conf = dir.resolve("conf");
        Files.createDirectories(conf);
        if (!Files.exists(dir.resolve("lib"))) {
            Files.createSymbolicLink(dir.resolve("lib"), installed.resolve("lib").toAbsolutePath());
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(installed.resolve("conf"))) {
            for (Path f : files) {
                if (Files.isRegularFile(f)) Files.copy(f, conf.resolve(f.getFileName().toString()),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        int[] ports = freePorts(3);
        MpjJobHome home = new MpjJobHome(dir, ports[0], ports[1], ports[2]);
        home.writeConf(installed.resolve("conf").resolve(CONF));
        return home;
    }

    public Path dir() {
        return dir;
    }

    public int daemonPort() {
        return daemonPort;
    }

    public int portManagerPort() {
        return portManagerPort;
    }

    /**
     * Whether a daemon of this home listens on both its ports (daemon and port manager) now; null
     * when this host cannot tell (no {@code /proc/net/tcp}).
     */
    public Boolean daemonListening() throws IOException {
        Set<Integer> listening = listeningPorts();
        return listening == null ? null : listening.contains(daemonPort) && listening.contains(portManagerPort);
    }

    /** TCP ports in LISTEN state on this host (Linux {@code /proc/net/tcp*}), or null when unknown. */
    static Set<Integer> listeningPorts() throws IOException {
        Set<Integer> out = new HashSet<>();
        boolean any = false;
        for (String f : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Path.of(f);
            if (!Files.isReadable(p)) continue;
            any = true;
            List<String> lines = Files.readAllLines(p, StandardCharsets.US_ASCII);
            for (int i = 1; i < lines.size(); i++) {
                String[] cols = lines.get(i).trim().split("\\s+");
                if (cols.length < 4 || !cols[3].toUpperCase(Locale.ROOT).equals("0A")) continue;
                String local = cols[1];
                out.add(Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16));
            }
        }
        return any ? out : null;
    }

    /** Every port this home's runtime listens on. */
    List<Integer> ports() {
        return List.of(daemonPort, portManagerPort, starterPort);
    }

    private void writeConf(Path installedConf) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(installedConf, StandardCharsets.UTF_8)) {
            if (line.startsWith("mpjexpress.mpjdaemon.port.1=")) line = "mpjexpress.mpjdaemon.port.1=" + daemonPort;
            else if (line.startsWith("mpjexpress.mpjdaemon.port.2=")) line = "mpjexpress.mpjdaemon.port.2=" + portManagerPort;
            else if (line.startsWith("mpjexpress.mpjrun.port.1=")) line = "mpjexpress.mpjrun.port.1=" + starterPort;
            out.add(line);
        }
        Files.write(dir.resolve("conf").resolve(CONF), out, StandardCharsets.UTF_8);
    }

    /** Distinct ports free right now; another process may still take one before MPJ binds it. */
    private static int[] freePorts(int n) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("0.0.0.0"));
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : held) s.close();
        }
    }
}
