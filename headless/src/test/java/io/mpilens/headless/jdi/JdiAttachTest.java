package io.mpilens.headless.jdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.target.TargetReadException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Attaching fails fast and says why, whatever is (or is not) at the address. */
class JdiAttachTest {
    /** A port nothing listens on. */
    static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aClosedPortIsRefusedWithAHintAboutJdwp() throws Exception {
        int port = closedPort();
        TargetReadException e = assertThrows(TargetReadException.class,
                () -> JdiTargetReader.attach(new JdwpAddress("127.0.0.1", port), Duration.ofSeconds(5)));
        assertEquals("127.0.0.1:" + port + " did not answer within 5 s (connection refused): is the rank running"
                + " with -agentlib:jdwp=transport=dt_socket,server=y,address=127.0.0.1:" + port
                + ", and no other debugger attached to it?", e.getMessage());
    }

    /** A process that accepts the connection but never answers the JDWP handshake (stopped, or not JDWP). */
    @Test
    void aPortThatNeverAnswersIsGivenUpAtTheDeadline() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            long start = System.nanoTime();
            TargetReadException e = assertThrows(TargetReadException.class, () -> JdiTargetReader.attach(
                    new JdwpAddress("127.0.0.1", silent.getLocalPort()), Duration.ofMillis(500)));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 3_000, "took " + millis + " ms");
            assertTrue(e.getMessage().startsWith("127.0.0.1:" + silent.getLocalPort() + " did not answer within 0.5 s"),
                    e.getMessage());
        }
    }

    @Test
    void addressesParseAndPrintBack() {
        assertEquals(new JdwpAddress("node7", 8000), JdwpAddress.parse(" node7:8000 "));
        assertEquals("[::1]:8000", JdwpAddress.parse("[::1]:8000").toString());
        assertEquals("::1", JdwpAddress.parse("[::1]:8000").host());
        for (String bad : new String[] {"", "host", ":80", "host:", "host:http", "host:0", "host:70000"}) {
            assertThrows(IllegalArgumentException.class, () -> JdwpAddress.parse(bad), bad);
        }
    }
}
