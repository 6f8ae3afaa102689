package io.mpilens.headless.share;

import java.nio.ByteBuffer;

/** The sizes of a JVM's identifiers, from its reply to {@code VirtualMachine.IDSizes} (1/7). */
public record IdSizes(int fieldId, int methodId, int objectId, int referenceTypeId, int frameId) {
    /** What HotSpot answers. */
    public static final IdSizes HOTSPOT = new IdSizes(8, 8, 8, 8, 8);

    public static IdSizes parse(byte[] reply) {
        ByteBuffer b = ByteBuffer.wrap(reply);
        return new IdSizes(b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt());
    }
}
