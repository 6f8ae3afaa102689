package io.mpilens.headless.share;

import io.mpilens.headless.jdi.JdwpAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

/**
 * One rank JVM's share: the one connection to its JDWP listener ({@link SharedVm}) and a port
 * on 127.0.0.1 that speaks JDWP as the JVM would, for as many debuggers as attach. The port is
 * bound once and kept until the JVM ends, whoever attaches and detaches.
 */
public final class RankShare implements AutoCloseable {
    private final SharedVm vm;
    private final ServerSocket server;
    private final JdwpAddress jvm;

    private RankShare(SharedVm vm, ServerSocket server, JdwpAddress jvm) {
        this.vm = vm;
        this.server = server;
        this.jvm = jvm;
    }

    /**
     * Connects to the JVM at {@code jvm} and listens on 127.0.0.1:{@code port} (0: a free port).
     *
     * @param name what the share's threads and messages call it ("rank 2")
     */
    public static RankShare open(JdwpAddress jvm, int port, Duration timeout, String name) throws IOException {
        ServerSocket server = new ServerSocket();
        try {
            server.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            server.close();
            throw new IOException("cannot listen on 127.0.0.1:" + port + " for " + name + " (" + e.getMessage()
                    + "): choose another --base-port, or none for free ports");
        }
        SharedVm vm;
        try {
            vm = SharedVm.connect(jvm, timeout, name);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        RankShare share = new RankShare(vm, server, jvm);
        vm.ended().whenComplete((why, t) -> share.closeServer());
        Thread accept = new Thread(share::accept, "mpilens-share-" + name + "-accept");
        accept.setDaemon(true);
        accept.start();
        return share;
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Thread t = new Thread(() -> {
                try {
                    vm.attach(s);
                } catch (IOException e) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // not a debugger
                    }
                }
            }, "mpilens-share-" + vm.name() + "-handshake");
            t.setDaemon(true);
            t.start();
        }
    }

    /** Where debuggers attach: 127.0.0.1 and the share's port. */
    public JdwpAddress address() {
        return new JdwpAddress(InetAddress.getLoopbackAddress().getHostAddress(), server.getLocalPort());
    }

    /** The JVM's own JDWP listener, which the share holds. */
    public JdwpAddress jvm() {
        return jvm;
    }

    public SharedVm vm() {
        return vm;
    }

    private void closeServer() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closeServer();
        vm.close();
    }
}
