package io.mpilens.headless.share;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** A TCP relay in front of a share whose sockets a test can cut, as a debugger killed with SIGKILL drops them. */
final class Forwarder implements AutoCloseable {
    private final ServerSocket server;
    private volatile Socket front;
    private volatile Socket back;

    Forwarder(int targetPort) throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try {
                front = server.accept();
                back = new Socket();
                back.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
                pump(front.getInputStream(), back.getOutputStream());
                pump(back.getInputStream(), front.getOutputStream());
            } catch (IOException e) {
                cut();
            }
        }, "forwarder");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void pump(InputStream in, OutputStream out) {
        Thread t = new Thread(() -> {
            try {
                in.transferTo(out);
            } catch (IOException e) {
                // cut
            }
            cut();
        }, "forwarder-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Closes both sides at once, with no JDWP goodbye. */
    void cut() {
        for (java.io.Closeable c : new java.io.Closeable[] {server, front, back}) {
            try {
                if (c != null) c.close();
            } catch (IOException ignored) {
                // cutting
            }
        }
    }

    @Override
    public void close() {
        cut();
    }
}
