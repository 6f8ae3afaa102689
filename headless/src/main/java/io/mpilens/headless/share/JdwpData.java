package io.mpilens.headless.share;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/** Reading and writing the data of JDWP packets: big-endian numbers and ids of the JVM's sizes. */
final class JdwpData {
    private final ByteBuffer b;
    private final IdSizes sizes;

    JdwpData(byte[] data, IdSizes sizes) {
        this.b = ByteBuffer.wrap(data);
        this.sizes = sizes;
    }

    int position() {
        return b.position();
    }

    int remaining() {
        return b.remaining();
    }

    int u1() {
        return b.get() & 0xff;
    }

    int int4() {
        return b.getInt();
    }

    void skip(int n) {
        if (n < 0 || n > b.remaining()) throw new BufferUnderflowException();
        b.position(b.position() + n);
    }

    /** An id of {@code size} bytes as a number (ids are opaque; equal bytes, equal number). */
    long id(int size) {
        long v = 0;
        for (int i = 0; i < size; i++) v = (v << 8) | (b.get() & 0xff);
        return v;
    }

    long objectId() {
        return id(sizes.objectId());
    }

    void skipLocation() {
        skip(1 + sizes.referenceTypeId() + sizes.methodId() + 8);
    }

    void skipReferenceType() {
        skip(sizes.referenceTypeId());
    }

    void skipField() {
        skip(sizes.fieldId());
    }

    void skipTaggedObject() {
        skip(1 + sizes.objectId());
    }

    void skipString() {
        skip(int4());
    }

    /** A value preceded by its tag byte (JDWP "value"). */
    void skipValue() {
        int tag = u1();
        switch (tag) {
            case 'V' -> { }
            case 'B', 'Z' -> skip(1);
            case 'C', 'S' -> skip(2);
            case 'F', 'I' -> skip(4);
            case 'D', 'J' -> skip(8);
            case 'L', 's', 't', 'g', 'l', 'c', '[' -> skip(sizes.objectId());
            default -> throw new IllegalArgumentException("unknown JDWP value tag " + tag);
        }
    }

    /** Data of a command: an object id followed by nothing else, for ThreadReference commands. */
    static byte[] objectId(long id, IdSizes sizes) {
        return writeId(new ByteArrayOutputStream(), id, sizes.objectId()).toByteArray();
    }

    static ByteArrayOutputStream writeId(ByteArrayOutputStream out, long id, int size) {
        for (int i = size - 1; i >= 0; i--) out.write((int) (id >>> (8 * i)));
        return out;
    }

    static byte[] eventRequestClear(int eventKind, int requestId) {
        return ByteBuffer.allocate(5).put((byte) eventKind).putInt(requestId).array();
    }
}
