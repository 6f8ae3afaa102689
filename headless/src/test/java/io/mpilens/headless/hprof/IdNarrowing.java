package io.mpilens.headless.hprof;

import static io.mpilens.headless.hprof.HprofFormat.*;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rewrites a HotSpot heap dump with 8-byte identifiers into the same heap with 4-byte ones, the
 * way a 32-bit JVM writes it: every identifier (objects, classes, symbols, frames) is replaced by
 * a small number, consistently across all records, 0 staying null; reference fields inside
 * instances shrink with them, so every record length is recomputed. HotSpot on 64-bit machines
 * always writes 8-byte identifiers: this is how the 4-byte path of the reader is tested on real
 * heap contents. Fails on a record it does not know rather than writing something wrong.
 */
final class IdNarrowing {
    private static final int FRAME = 0x04, TRACE = 0x05, START_THREAD = 0x0A, END_THREAD = 0x0B,
            UNLOAD_CLASS = 0x03, HEAP_DUMP_END = 0x2C;

    private final Map<Long, Integer> ids = new HashMap<>();
    /** Class id → {super id, field types...}, from the first pass. */
    private final Map<Long, long[]> layouts = new HashMap<>();
    private boolean firstPass;

    private IdNarrowing() {
    }

    /** Writes {@code to}, the dump {@code from} with 4-byte identifiers. */
    static Path narrow(Path from, Path to) throws IOException {
        IdNarrowing n = new IdNarrowing();
        n.firstPass = true;
        n.pass(from, null); // class layouts first: instances are rewritten field by field
        n.firstPass = false;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(to), 1 << 16)) {
            n.pass(from, new DataOutputStream(out));
        }
        return to;
    }

    private int narrowId(long id) {
        if (id == 0) return 0;
        return ids.computeIfAbsent(id, k -> {
            if (ids.size() >= Integer.MAX_VALUE - 1) throw new IllegalStateException("too many ids for 4 bytes");
            return ids.size() + 1;
        });
    }

    private void pass(Path from, DataOutputStream out) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(from), 1 << 16))) {
            StringBuilder header = new StringBuilder();
            for (int c; (c = in.readUnsignedByte()) != 0; ) header.append((char) c);
            int idSize = in.readInt();
            if (idSize != 8) throw new IOException("expected a dump with 8-byte identifiers, got " + idSize);
            long time = in.readLong();
            if (out != null) {
                out.writeBytes(header.toString());
                out.writeByte(0);
                out.writeInt(4);
                out.writeLong(time);
            }
            while (true) {
                int tag;
                try {
                    tag = in.readUnsignedByte();
                } catch (EOFException e) {
                    break;
                }
                int micros = in.readInt();
                long length = in.readInt() & 0xffffffffL;
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                DataOutputStream b = new DataOutputStream(body);
                record(tag, length, in, b);
                if (out != null) {
                    out.writeByte(tag);
                    out.writeInt(micros);
                    out.writeInt(body.size());
                    body.writeTo(out);
                }
            }
        }
    }

    private void record(int tag, long length, DataInputStream in, DataOutputStream b) throws IOException {
        switch (tag) {
            case UTF8:
                b.writeInt(narrowId(in.readLong()));
                copy(in, b, length - 8);
                break;
            case LOAD_CLASS:
                b.writeInt(in.readInt());
                b.writeInt(narrowId(in.readLong()));
                b.writeInt(in.readInt());
                b.writeInt(narrowId(in.readLong()));
                break;
            case FRAME:
                for (int i = 0; i < 4; i++) b.writeInt(narrowId(in.readLong()));
                b.writeInt(in.readInt());
                b.writeInt(in.readInt());
                break;
            case TRACE: {
                b.writeInt(in.readInt());
                b.writeInt(in.readInt());
                int frames = in.readInt();
                b.writeInt(frames);
                for (int i = 0; i < frames; i++) b.writeInt(narrowId(in.readLong()));
                break;
            }
            case START_THREAD:
                b.writeInt(in.readInt());
                b.writeInt(narrowId(in.readLong()));
                b.writeInt(in.readInt());
                for (int i = 0; i < 3; i++) b.writeInt(narrowId(in.readLong()));
                break;
            case END_THREAD:
            case UNLOAD_CLASS:
            case HEAP_DUMP_END:
                copy(in, b, length);
                break;
            case HEAP_DUMP:
            case HEAP_DUMP_SEGMENT:
                heap(new DataInputStream(new Bounded(in, length)), b);
                break;
            default:
                throw new IOException("record tag 0x" + Integer.toHexString(tag) + " is not known to this rewriter");
        }
    }

    private void heap(DataInputStream in, DataOutputStream b) throws IOException {
        while (true) {
            int tag;
            try {
                tag = in.readUnsignedByte();
            } catch (EOFException e) {
                return;
            }
            b.writeByte(tag);
            switch (tag) {
                case ROOT_UNKNOWN:
                case ROOT_STICKY_CLASS:
                case ROOT_MONITOR_USED:
                    b.writeInt(narrowId(in.readLong()));
                    break;
                case ROOT_JNI_GLOBAL:
                    b.writeInt(narrowId(in.readLong()));
                    b.writeInt(narrowId(in.readLong()));
                    break;
                case ROOT_JNI_LOCAL:
                case ROOT_JAVA_FRAME:
                case ROOT_THREAD_OBJECT:
                    b.writeInt(narrowId(in.readLong()));
                    b.writeInt(in.readInt());
                    b.writeInt(in.readInt());
                    break;
                case ROOT_NATIVE_STACK:
                case ROOT_THREAD_BLOCK:
                    b.writeInt(narrowId(in.readLong()));
                    b.writeInt(in.readInt());
                    break;
                case CLASS_DUMP:
                    classDump(in, b);
                    break;
                case INSTANCE_DUMP: {
                    b.writeInt(narrowId(in.readLong()));
                    b.writeInt(in.readInt());
                    long classId = in.readLong();
                    b.writeInt(narrowId(classId));
                    int n = in.readInt();
                    byte[] data = new byte[n];
                    in.readFully(data);
                    byte[] narrowed = instanceData(classId, data);
                    b.writeInt(narrowed.length);
                    b.write(narrowed);
                    break;
                }
                case OBJ_ARRAY_DUMP: {
                    b.writeInt(narrowId(in.readLong()));
                    b.writeInt(in.readInt());
                    int n = in.readInt();
                    b.writeInt(n);
                    b.writeInt(narrowId(in.readLong()));
                    for (int i = 0; i < n; i++) b.writeInt(narrowId(in.readLong()));
                    break;
                }
                case PRIM_ARRAY_DUMP: {
                    b.writeInt(narrowId(in.readLong()));
                    b.writeInt(in.readInt());
                    int n = in.readInt();
                    b.writeInt(n);
                    int type = in.readUnsignedByte();
                    b.writeByte(type);
                    copy(in, b, (long) n * sizeOf(type, 8));
                    break;
                }
                default:
                    throw new IOException("heap dump sub-record 0x" + Integer.toHexString(tag) + " is not known to this rewriter");
            }
        }
    }

    private void classDump(DataInputStream in, DataOutputStream b) throws IOException {
        long id = in.readLong();
        b.writeInt(narrowId(id));
        b.writeInt(in.readInt());
        long superId = in.readLong();
        b.writeInt(narrowId(superId));
        for (int i = 0; i < 5; i++) b.writeInt(narrowId(in.readLong())); // loader, signers, domain, 2 reserved
        b.writeInt(in.readInt()); // instance size: as the JVM counts it, not the dump
        int constants = in.readUnsignedShort();
        b.writeShort(constants);
        for (int i = 0; i < constants; i++) {
            b.writeShort(in.readUnsignedShort());
            value(in, b);
        }
        int statics = in.readUnsignedShort();
        b.writeShort(statics);
        for (int i = 0; i < statics; i++) {
            b.writeInt(narrowId(in.readLong()));
            value(in, b);
        }
        int fields = in.readUnsignedShort();
        b.writeShort(fields);
        long[] layout = new long[1 + fields];
        layout[0] = superId;
        for (int i = 0; i < fields; i++) {
            b.writeInt(narrowId(in.readLong()));
            int type = in.readUnsignedByte();
            b.writeByte(type);
            layout[1 + i] = type;
        }
        layouts.put(id, layout);
    }

    /** A typed value (constant or static): the type byte, then the value, an object id narrowed. */
    private void value(DataInputStream in, DataOutputStream b) throws IOException {
        int type = in.readUnsignedByte();
        b.writeByte(type);
        if (type == OBJECT) b.writeInt(narrowId(in.readLong()));
        else copy(in, b, sizeOf(type, 8));
    }

    /** Field values of an instance, own class first, then each superclass, references narrowed. */
    private byte[] instanceData(long classId, byte[] data) throws IOException {
        if (firstPass) return data; // layouts are not all known yet; this output is discarded
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length);
        DataOutputStream b = new DataOutputStream(out);
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(data));
        List<Long> seen = new ArrayList<>();
        for (long c = classId; c != 0; ) {
            long[] layout = layouts.get(c);
            if (layout == null) {
                throw new IOException("instance of class 0x" + Long.toHexString(c) + ", which the dump does not describe");
            }
            if (seen.contains(c)) throw new IOException("cyclic class hierarchy at 0x" + Long.toHexString(c));
            seen.add(c);
            for (int i = 1; i < layout.length; i++) {
                int type = (int) layout[i];
                if (type == OBJECT) b.writeInt(narrowId(in.readLong()));
                else copy(in, b, sizeOf(type, 8));
            }
            c = layout[0];
        }
        if (in.available() > 0) throw new IOException("instance of 0x" + Long.toHexString(classId) + " has extra bytes");
        return out.toByteArray();
    }

    private static void copy(DataInputStream in, DataOutputStream out, long n) throws IOException {
        byte[] buf = new byte[8192];
        while (n > 0) {
            int k = (int) Math.min(buf.length, n);
            in.readFully(buf, 0, k);
            out.write(buf, 0, k);
            n -= k;
        }
    }

    /** The next {@code n} bytes of a stream, then end of stream. */
    private static final class Bounded extends InputStream {
        private final InputStream in;
        private long left;

        Bounded(InputStream in, long n) {
            this.in = in;
            this.left = n;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) return -1;
            int c = in.read();
            if (c >= 0) left--;
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) return -1;
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) left -= n;
            return n;
        }
    }
}
