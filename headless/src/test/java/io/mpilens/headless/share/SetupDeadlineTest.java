package io.mpilens.headless.share;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.jdi.JdwpAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The share's sockets have no read timeout (a JDK socket that had one stays non-blocking, and each
 * relayed packet then costs a failed read and a poll more): a listener that accepts and never
 * answers the JDWP handshake is given up by the set-up deadline, with the reason, not waited for.
 */
class SetupDeadlineTest {
    @Test
    void aListenerThatNeverAnswersTheHandshakeIsGivenUpAtTheDeadline() throws Exception {
        try (ServerSocket silent = new ServerSocket()) {
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            JdwpAddress at = new JdwpAddress("127.0.0.1", silent.getLocalPort());
            Socket[] accepted = new Socket[1];
            Thread acceptor = new Thread(() -> {
                try {
                    accepted[0] = silent.accept(); // accepts, reads nothing, answers nothing
                } catch (IOException ignored) {
                    // closed at the end
                }
            });
            acceptor.start();
            long t0 = System.nanoTime();
            IOException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                    () -> assertThrows(IOException.class, () -> SharedVm.connect(at, Duration.ofMillis(400), "silent")));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(e.getMessage().contains("did not answer the JDWP handshake within 400 ms"), e.getMessage());
            assertTrue(ms >= 350, "given up after " + ms + " ms, not before the deadline");
            acceptor.join(5_000);
            if (accepted[0] != null) accepted[0].close();
        }
    }

    @Test
    void aDeadlineClosedBeforeItPassesLeavesTheSocketOpen() throws Exception {
        try (Socket s = new Socket()) {
            SetupDeadline d = new SetupDeadline(s, 100);
            d.close();
            Thread.sleep(300);
            assertTrue(!s.isClosed() && !d.fired(), "the socket is left alone once the set-up is over");
        }
    }
}
