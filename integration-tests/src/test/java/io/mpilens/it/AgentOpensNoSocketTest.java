package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent opens no listening socket: every rank JVM listens on as many TCP ports with the
 * agent as without it (the MPI runtime may listen; mpilens is read over JDWP only).
 */
class AgentOpensNoSocketTest {
    private static final Pattern SOCKET_LINK = Pattern.compile("socket:\\[(\\d+)]");
    private static final String TCP_LISTEN = "0A";

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void openMpiRanksListenOnNoMorePortsWithTheAgent(@TempDir Path control) throws Exception {
        assertAgentAddsNoListeningPort(Binding.OPENMPI, control);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void mpjMulticoreJvmListensOnNoMorePortsWithTheAgent(@TempDir Path control) throws Exception {
        assertAgentAddsNoListeningPort(Binding.MPJ_MULTICORE, control);
    }

    private static void assertAgentAddsNoListeningPort(Binding binding, Path control) throws Exception {
        List<Set<String>> without = listeningPortsAtCreated(binding, control.resolve("without"), false);
        List<Set<String>> with = listeningPortsAtCreated(binding, control.resolve("with"), true);
        String shown = "listening ports per rank JVM without the agent " + without + ", with it " + with;
        assertEquals(without.size(), with.size(), "rank JVMs; " + shown);
        // rank JVMs are listed by pid, not by rank: compare how many ports each listens on
        assertEquals(portCounts(without), portCounts(with), shown);
    }

    private static List<Integer> portCounts(List<Set<String>> perJvm) {
        return perJvm.stream().map(Set::size).sorted().collect(Collectors.toList());
    }

    /** Listening TCP ports of each rank JVM, with every rank paused at "created". */
    private static List<Set<String>> listeningPortsAtCreated(Binding binding, Path control, boolean agent)
            throws Exception {
        Files.createDirectories(control);
        // verbose: the agent says it is watching the binding, so "with" is known to be with it
        var spec = Tours.tour(binding, control).jdwp(false)
                .agentJar(agent ? Tours.AGENT : null).agentOptions(agent ? "verbose=true" : null);
        try (Job job = Job.launch(spec.build())) {
            Tours.awaitPause(job, "created");
            int jvms = binding.rankJvms(4);
            if (agent) job.awaitLines(l -> l.startsWith("mpilens: agent") && l.contains("watching"), jvms, Tours.START);
            List<Long> pids = Tours.rankJvmPids(job);
            assertEquals(jvms, pids.size(), "rank JVMs of the job: " + describe(job));
            Map<Long, String> listening = listeningSockets();
            List<Set<String>> out = new ArrayList<>();
            for (long pid : pids) {
                Set<String> ports = new TreeSet<>();
                for (long inode : socketInodes(pid)) {
                    String port = listening.get(inode);
                    if (port != null) ports.add(port);
                }
                out.add(ports);
            }
            return out;
        }
    }

    private static String describe(Job job) {
        return job.processes().stream().map(p -> p.pid() + " " + p.info().commandLine().orElse("?"))
                .collect(Collectors.joining("\n", "\n", ""));
    }

    private static List<Long> socketInodes(long pid) throws IOException {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Paths.get("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    continue; // closed meanwhile
                }
                Matcher m = SOCKET_LINK.matcher(target);
                if (m.matches()) out.add(Long.parseLong(m.group(1)));
            }
        }
        return out;
    }

    /**
     * Socket inode to "family:port", for TCP sockets (IPv4 and IPv6) in state LISTEN. The family is
     * part of the key: Open MPI's TCP transport listens on both, and one rank may draw port 1025 for
     * IPv4 and 1026 for IPv6 while another draws the reverse; counted by port number alone those two
     * ranks would seem to listen on two ports and their neighbours on one.
     */
    private static Map<Long, String> listeningSockets() throws IOException {
        Map<Long, String> out = new HashMap<>();
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Paths.get(table);
            if (!Files.exists(p)) continue;
            List<String> lines = Files.readAllLines(p, StandardCharsets.US_ASCII);
            for (String line : lines.subList(1, lines.size())) {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                String[] f = line.trim().split("\\s+");
                if (f.length < 10 || !f[3].equals(TCP_LISTEN)) continue;
                String local = f[1];
                int port = Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16);
                out.put(Long.parseLong(f[9]), (table.endsWith("6") ? "tcp6:" : "tcp:") + port);
            }
        }
        return out;
    }
}
