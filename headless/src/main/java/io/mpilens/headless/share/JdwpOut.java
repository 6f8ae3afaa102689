package io.mpilens.headless.share;

import java.io.IOException;
import java.io.OutputStream;

/**
 * One socket's way out: each packet leaves in one write of header and data from one buffer (one
 * segment with TCP_NODELAY, one system call), under this object's lock, with the id it is given
 * (a relayed packet is not copied to change its id).
 */
final class JdwpOut {
    /** Packets up to this size go through the kept buffer; a larger one (rare: class bytes, big arrays) gets its own. */
    private static final int KEPT = 1 << 16;
    private final OutputStream out;
    private final byte[] buffer = new byte[KEPT];

    /** @param out the socket's own stream, not buffered */
    JdwpOut(OutputStream out) {
        this.out = out;
    }

    /** Writes {@code p} under id {@code id}. */
    synchronized void write(JdwpPacket p, int id) throws IOException {
        int length = JdwpPacket.HEADER + p.data().length;
        byte[] b = length <= KEPT ? buffer : new byte[length];
        p.header(b, id);
        System.arraycopy(p.data(), 0, b, JdwpPacket.HEADER, p.data().length);
        out.write(b, 0, length);
    }

    /** Writes bytes as they are (the handshake). */
    synchronized void raw(byte[] bytes) throws IOException {
        out.write(bytes);
    }
}
