package io.mpilens.headless.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our side of {@code --via mpj}: the ticket we send and how we read what comes back, against a
 * stand-in that speaks the daemon's framing (a length and the ticket in; raw lines, pings and
 * {@code EXIT} out). That a real MPJ Express daemon starts the collector from this ticket is
 * {@code MpjNiodevAcrossHostsTest}'s (integration tests, simulated hosts).
 */
class MpjDaemonsTest {
    private static final MpjDaemons DAEMONS = new MpjDaemons(1, "/opt/mpj", "/a/cli.jar", "/a", List.of("-Dx=1"));

    @Test
    void theTicketHasEveryElementTheDaemonRequiresInAsciiWithTextEscaped() {
        String t = DAEMONS.ticket(List.of("collect", "--job", "a&b<c>", "caf\u00e9"));
        assertTrue(t.startsWith("<MPJProcessInfo>") && t.endsWith("</MPJProcessInfo>"), t);
        for (String e : List.of("TicketID", "ClassPath", "MasterNode", "MasterPort", "ProcessCount", "StartingRank",
                "WorkingDirectory", "ZippedSource", "sourceCode", "MainClass", "DeviceName", "ConfFileContents", "UserID",
                "NetworkProcessCount", "TotalProcessCount", "NetworkDevice", "MPJ_HOME", "Debug", "DebugPort", "Profiler")) {
            assertTrue(t.contains("<" + e + ">") && t.contains("</" + e + ">"), e + " in " + t);
        }
        assertTrue(t.contains("<ProcessCount>1</ProcessCount>"), t);
        assertTrue(t.contains("<DeviceName>niodev</DeviceName>"), t);
        assertTrue(t.contains("<MainClass>" + MpjDaemons.MAIN_CLASS + "</MainClass>"), t);
        assertTrue(t.contains("<MPJ_HOME>/opt/mpj</MPJ_HOME>"), t);
        assertTrue(t.contains("<JvmArgs><Argument>-Dx=1</Argument></JvmArgs>"), t);
        assertTrue(t.contains("<AppArgs><Argument>collect</Argument><Argument>--job</Argument><Argument>a&amp;b&lt;c&gt;</Argument>"
                + "<Argument>caf&#233;</Argument></AppArgs>"), t);
        assertTrue(t.chars().allMatch(c -> c >= 0x20 && c < 0x7f), "ASCII only: " + t);
        assertFalse(t.contains("@"), "no '@' anywhere (the daemon parses '@' tokens of the conf text)");
    }

    @Test
    void whatComesBackIsSortedIntoJsonLinesOtherLinesAndTheExitCodeWithPingsRemovedEvenInsideALine() throws Exception {
        String back = "Starting process <0> on <h1>\n{\"kind\":\"collector\"}\n@Ping#\n{\"kind\":\"re@Ping#\ncord\"}\n"
                + "mpilens: a warning\nmpilens-collector-exit 3\nStopping Process <0> on <h1>\n@Ping#\nEXIT@Ping#\n";
        try (Stand s = new Stand(back)) {
            Process p = s.daemons().start("127.0.0.1", List.of("collect", "--timeout", "1"));
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals("{\"kind\":\"collector\"}\n{\"kind\":\"record\"}\n", out);
            assertEquals("mpilens: a warning\n", new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            assertEquals(3, p.waitFor());
            String ticket = s.ticket.get(5, TimeUnit.SECONDS);
            assertTrue(ticket.contains("<AppArgs><Argument>collect</Argument><Argument>--timeout</Argument><Argument>1</Argument></AppArgs>"), ticket);
        }
    }

    @Test
    void aDaemonThatStartsNothingIsSaidWithTheLikelyCause() throws Exception {
        try (Stand s = new Stand("EXIT")) {
            Process p = s.daemons().start("127.0.0.1", List.of("collect"));
            assertEquals(2, p.waitFor());
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(err.contains("started no collector") && err.contains("MPJ_HOME"), err);
        }
    }

    @Test
    void noDaemonOnThePortIsAnErrorThatNamesHostPortAndTheSetting() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        MpjDaemons d = new MpjDaemons(port, "/opt/mpj", "/a/cli.jar", "/a", List.of());
        IOException e = assertThrows(IOException.class, () -> d.start("127.0.0.1", List.of("collect")));
        assertTrue(e.getMessage().contains("no MPJ Express daemon answered at 127.0.0.1:" + port), e.getMessage());
        assertTrue(e.getMessage().contains(MpjDaemons.PORT_ENV), e.getMessage());
    }

    @Test
    void thePortComesFromTheEnvironmentElseTheConfOfMpjHomeElseMpjsDefault(@TempDir Path home) throws IOException {
        assertThrows(IllegalArgumentException.class, () -> MpjDaemons.of(Map.of()), "MPJ_HOME is required");
        assertEquals(MpjDaemons.MPJ_DEFAULT_PORT, MpjDaemons.of(Map.of("MPJ_HOME", home.toString())).port());
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/mpjexpress.conf"), "mpjexpress.mpjdaemon.port.2 = 9\nmpjexpress.mpjdaemon.port.1 = 41234\n");
        assertEquals(41234, MpjDaemons.of(Map.of("MPJ_HOME", home.toString())).port());
        assertEquals(777, MpjDaemons.of(Map.of("MPJ_HOME", home.toString(), MpjDaemons.PORT_ENV, "777")).port());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> MpjDaemons.of(Map.of("MPJ_HOME", home.toString(), MpjDaemons.PORT_ENV, "x")));
        assertTrue(bad.getMessage().contains(MpjDaemons.PORT_ENV), bad.getMessage());
    }

    /** One connection: reads the length and the ticket as the daemon does, writes {@code back}, closes. */
    private static final class Stand implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        final CompletableFuture<String> ticket = new CompletableFuture<>();

        Stand(String back) throws IOException {
            Thread t = new Thread(() -> {
                try (Socket s = server.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] b = new byte[in.readInt()];
                    in.readFully(b);
                    ticket.complete(new String(b, StandardCharsets.US_ASCII));
                    OutputStream out = s.getOutputStream();
                    out.write(back.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } catch (IOException e) {
                    ticket.completeExceptionally(e);
                }
            });
            t.setDaemon(true);
            t.start();
        }

        MpjDaemons daemons() {
            return new MpjDaemons(server.getLocalPort(), "/opt/mpj", "/a/cli.jar", "/a", List.of());
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
