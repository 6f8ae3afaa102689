package io.mpilens.headless.share;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The JDWP framing the share reads and writes: a command and a reply survive the round trip byte for byte. */
class JdwpPacketTest {
    private static DataInputStream stream(byte[]... packets) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : packets) b.writeBytes(p);
        return new DataInputStream(new ByteArrayInputStream(b.toByteArray()));
    }

    /** What {@link JdwpPacket#write} puts on a stream (the share's way out). */
    private static byte[] written(JdwpPacket p) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        p.write(b);
        return b.toByteArray();
    }

    @Test
    void aCommandIsLengthIdFlagsSetCommandThenData() throws IOException {
        JdwpPacket c = JdwpPacket.command(0x01020304, 11, 1, new byte[] {9, 8, 7});
        assertArrayEquals(new byte[] {0, 0, 0, 14, 1, 2, 3, 4, 0, 11, 1, 9, 8, 7}, c.bytes());
        assertArrayEquals(new byte[] {0, 0, 0, 14, 1, 2, 3, 4, 0, 11, 1, 9, 8, 7}, written(c));
        JdwpPacket back = JdwpPacket.read(stream(c.bytes()));
        assertEquals(0x01020304, back.id());
        assertEquals(11, back.commandSet());
        assertEquals(1, back.command());
        assertArrayEquals(new byte[] {9, 8, 7}, back.data());
    }

    @Test
    void aReplyCarriesTheErrorCodeWhereACommandHasItsSet() throws IOException {
        JdwpPacket r = JdwpPacket.reply(7, 0x0123, new byte[0]);
        assertArrayEquals(new byte[] {0, 0, 0, 11, 0, 0, 0, 7, (byte) 0x80, 1, 0x23}, r.bytes());
        assertArrayEquals(new byte[] {0, 0, 0, 11, 0, 0, 0, 7, (byte) 0x80, 1, 0x23}, written(r));
        JdwpPacket back = JdwpPacket.read(stream(r.bytes()));
        assertTrue(back.isReply());
        assertEquals(0x0123, back.errorCode());
    }

    @Test
    void rewritingTheIdKeepsEverythingElse() throws IOException {
        JdwpPacket c = JdwpPacket.command(1, 15, 1, new byte[] {2, 2, 0, 0, 0, 0});
        JdwpPacket up = c.withId(99);
        JdwpPacket back = JdwpPacket.read(stream(up.bytes()));
        assertEquals(99, back.id());
        assertEquals(15, back.commandSet());
        assertArrayEquals(c.data(), back.data());
    }

    @Test
    void packetsFollowOneAnotherAndTheStreamEndsCleanlyBetweenThem() throws IOException {
        DataInputStream in = stream(JdwpPacket.command(1, 1, 1, new byte[0]).bytes(), JdwpPacket.reply(1, 0, new byte[] {5}).bytes());
        assertEquals(1, JdwpPacket.read(in).command());
        assertArrayEquals(new byte[] {5}, JdwpPacket.read(in).data());
        assertNull(JdwpPacket.read(in));
    }

    @Test
    void aLengthShorterThanTheHeaderIsNotJdwp() {
        IOException e = assertThrows(IOException.class, () -> JdwpPacket.read(stream(new byte[] {'G', 'E', 'T', ' ', 0, 0, 0, 0, 0, 0, 0})));
        assertTrue(e.getMessage().contains("not a JDWP packet"), e.getMessage());
        assertThrows(IOException.class, () -> JdwpPacket.read(stream(new byte[] {0, 0, 0, 5})));
    }
}
