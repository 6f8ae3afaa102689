package io.mpilens.headless.share;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * One JDWP packet as the specification frames it: length (4), id (4), flags (1), then a command
 * set and command (1 + 1) or, with flag {@link #REPLY}, an error code (2), then the data.
 */
public record JdwpPacket(int id, int flags, int commandSet, int command, int errorCode, byte[] data) {
    public static final int HEADER = 11;
    public static final int REPLY = 0x80;
    /** Larger than any packet a JVM sends for what a debugger asks; a length beyond it is not JDWP. */
    static final int MAX_LENGTH = 1 << 30;

    public static JdwpPacket command(int id, int commandSet, int command, byte[] data) {
        return new JdwpPacket(id, 0, commandSet, command, 0, data);
    }

    public static JdwpPacket reply(int id, int errorCode, byte[] data) {
        return new JdwpPacket(id, REPLY, 0, 0, errorCode, data);
    }

    public boolean isReply() {
        return (flags & REPLY) != 0;
    }

    public JdwpPacket withId(int newId) {
        return new JdwpPacket(newId, flags, commandSet, command, errorCode, data);
    }

    /** The next packet, or null at a clean end of the stream (between packets). */
    public static JdwpPacket read(DataInputStream in) throws IOException {
        int length;
        try {
            length = in.readInt();
        } catch (EOFException e) {
            return null;
        }
        if (length < HEADER || length > MAX_LENGTH) throw new IOException("not a JDWP packet (length " + length + ")");
        int id = in.readInt();
        int flags = in.readUnsignedByte();
        int a = in.readUnsignedByte();
        int b = in.readUnsignedByte();
        byte[] data = new byte[length - HEADER];
        in.readFully(data);
        return (flags & REPLY) != 0 ? new JdwpPacket(id, flags, 0, 0, (a << 8) | b, data)
                : new JdwpPacket(id, flags, a, b, 0, data);
    }

    /** The packet's bytes, header included (the caller flushes). */
    public byte[] bytes() {
        ByteBuffer b = ByteBuffer.allocate(HEADER + data.length);
        b.putInt(HEADER + data.length).putInt(id).put((byte) flags);
        if (isReply()) {
            b.putShort((short) errorCode);
        } else {
            b.put((byte) commandSet).put((byte) command);
        }
        b.put(data);
        return b.array();
    }

    /** Writes the header and the data as they are (no copy of the data; the caller flushes). */
    public void write(OutputStream out) throws IOException {
        byte[] h = new byte[HEADER];
        header(h, id);
        out.write(h);
        out.write(data);
    }

    /** Puts this packet's header, under id {@code asId}, at the start of {@code into}. */
    void header(byte[] into, int asId) {
        int length = HEADER + data.length;
        into[0] = (byte) (length >>> 24);
        into[1] = (byte) (length >>> 16);
        into[2] = (byte) (length >>> 8);
        into[3] = (byte) length;
        into[4] = (byte) (asId >>> 24);
        into[5] = (byte) (asId >>> 16);
        into[6] = (byte) (asId >>> 8);
        into[7] = (byte) asId;
        into[8] = (byte) flags;
        into[9] = (byte) (isReply() ? errorCode >>> 8 : commandSet);
        into[10] = (byte) (isReply() ? errorCode : command);
    }

    @Override
    public String toString() {
        return isReply() ? "reply " + id + " error " + errorCode + " (" + data.length + " bytes)"
                : "command " + id + " " + commandSet + "/" + command + " (" + data.length + " bytes)";
    }
}
