package io.mpilens.headless.share;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JDWP client in a few lines, for what JDI does not offer (HoldEvents, ReleaseEvents) and for
 * dropping the socket at a chosen moment: commands and their replies, and the events it is sent.
 */
final class RawJdwp implements AutoCloseable {
    static final int METHOD_ENTRY = 40, METHOD_EXIT = 41;
    static final int SUSPEND_NONE = 0, SUSPEND_ALL = 2;

    private final Socket socket;
    private final BlockingQueue<JdwpPacket> replies = new LinkedBlockingQueue<>();
    private final BlockingQueue<JdwpPacket> events = new LinkedBlockingQueue<>();
    private int ids;

    RawJdwp(int port) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.getOutputStream().write(SharedVm.HANDSHAKE);
        byte[] answer = new byte[SharedVm.HANDSHAKE.length];
        DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        in.readFully(answer);
        if (!Arrays.equals(answer, SharedVm.HANDSHAKE)) throw new IOException("no JDWP handshake");
        Thread t = new Thread(() -> {
            try {
                JdwpPacket p;
                while ((p = JdwpPacket.read(in)) != null) (p.isReply() ? replies : events).add(p);
            } catch (IOException e) {
                // closed
            }
        }, "raw-jdwp");
        t.setDaemon(true);
        t.start();
    }

    /** Sends a command and waits for its reply; fails on an error code. */
    JdwpPacket ask(int set, int cmd, byte[] data) throws IOException, InterruptedException {
        int id = ++ids;
        JdwpPacket.command(id, set, cmd, data).write(socket.getOutputStream());
        JdwpPacket r = replies.poll(60, TimeUnit.SECONDS);
        if (r == null || r.id() != id) throw new AssertionError("no reply to " + set + "/" + cmd + ": " + r);
        if (r.errorCode() != 0) throw new AssertionError("JDWP error " + r.errorCode() + " for " + set + "/" + cmd);
        return r;
    }

    /** {@code EventRequest.Set} of {@code kind} for the methods of {@code className}; the request's id. */
    int request(int kind, int suspendPolicy, String className) throws IOException, InterruptedException {
        byte[] name = className.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(2 + 4 + 1 + 4 + name.length);
        b.put((byte) kind).put((byte) suspendPolicy).putInt(1).put((byte) 5).putInt(name.length).put(name); // modifier 5: ClassMatch
        return ByteBuffer.wrap(ask(SharedVm.EVENT_REQUEST, SharedVm.ER_SET, b.array()).data()).getInt();
    }

    void clear(int kind, int request) throws IOException, InterruptedException {
        ask(SharedVm.EVENT_REQUEST, SharedVm.ER_CLEAR, JdwpData.eventRequestClear(kind, request));
    }

    /** The next event packet within {@code wait}, or null. */
    JdwpPacket event(Duration wait) throws InterruptedException {
        return events.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The kinds and request ids of an event packet's events, as {kind, request} pairs. */
    static int[][] kindsAndRequests(JdwpPacket composite) {
        CompositeEvents.Composite c = CompositeEvents.parse(composite.data(), IdSizes.HOTSPOT);
        return c.events().stream().map(e -> new int[] {e.kind(), e.requestId()}).toArray(int[][]::new);
    }

    /** Drops the socket with no JDWP goodbye, as a debugger killed with SIGKILL does. */
    @Override
    public void close() throws IOException {
        socket.close();
    }
}
