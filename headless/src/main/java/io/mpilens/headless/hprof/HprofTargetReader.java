package io.mpilens.headless.hprof;

import static io.mpilens.headless.hprof.HprofFormat.*;

import io.mpilens.api.target.HeapInstances;
import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.api.target.TargetReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a JVM's heap as it was when a heap dump was written: HPROF 1.0.2 as HotSpot writes it
 * ({@code jcmd PID GC.heap_dump}, {@code -XX:+HeapDumpOnOutOfMemoryError}, the diagnostic MXBean),
 * heap dump segments, 4- and 8-byte identifiers, gzip-compressed or not.
 *
 * <p>Opening makes a few streaming passes (see {@link HeapDumpScan}); reads are then served from
 * a small index and, for an uncompressed dump, positional reads of the file. A damaged or
 * truncated dump is a {@link TargetReadException} that names the offset and what was expected.
 * Not for concurrent use by several threads.
 */
public final class HprofTargetReader implements TargetReader, HeapInstances {
    private static final byte LATIN1 = 0;

    /** Told how far each pass over the dump is; for a progress indicator. */
    @FunctionalInterface
    public interface Progress {
        void update(int pass, long bytesDone, long bytesTotal);
    }

    private final HeapDumpScan scan;

    private HprofTargetReader(HeapDumpScan scan) {
        this.scan = scan;
    }

    public static HprofTargetReader open(Path dump) {
        return open(dump, null);
    }

    /** Indexes the dump (the passes happen here) and locates the mpilens registry if there is one. */
    public static HprofTargetReader open(Path dump, Progress progress) {
        return new HprofTargetReader(HeapDumpScan.open(dump, progress == null ? null : progress::update));
    }

    /** Passes over the dump so far: a measure for tests and benchmarks. */
    public int passes() {
        return scan.passes();
    }

    /** True while the first pass has stopped before the end of the dump (it found the registry): for tests. */
    boolean stoppedEarly() {
        return scan.stoppedEarly();
    }

    /** Offset where the first pass stopped (the file's size once it read all): for tests. */
    long firstPassAt() {
        return scan.firstPassAt();
    }

    /** The object with this id, located when first used: for tests. */
    TargetObject objectWithId(long id) {
        return new DumpObject(id);
    }

    /** Heap dump segments the first pass left to its second thread: for tests. */
    int segmentsAside() {
        return scan.segmentsAside();
    }

    /** Ids of the objects located so far. */
    java.util.Set<Long> locatedIds() {
        return scan.locatedIds();
    }

    public int identifierSize() {
        return scan.idSize;
    }

    public boolean compressed() {
        return scan.isCompressed();
    }

    @Override
    public List<TargetClass> classesNamed(String name) {
        List<TargetClass> out = new ArrayList<>();
        for (long id : scan.classIdsNamed(name)) out.add(new DumpClass(scan.classOf(id)));
        return out;
    }

    /** Static fields of the class itself, then of its superclasses, as JDI finds them. */
    @Override
    public Object staticField(TargetClass type, String field) {
        HprofClass c = dumpClass(type).c;
        for (int depth = 0; c != null && depth <= scan.classes.size(); depth++) {
            if (c.statics().containsKey(field)) return object(c.statics().get(field));
            c = scan.classOf(c.superId());
        }
        return null;
    }

    @Override
    public Map<String, Object> fields(TargetObject object, List<String> names) {
        Map<String, Object> all = instanceFields(instance(object, "an object with fields"));
        Map<String, Object> out = new LinkedHashMap<>();
        for (String n : names) out.put(n, all.get(n));
        return out;
    }

    @Override
    public int arrayLength(TargetObject array) {
        HeapRecord r = record(array, "an array");
        if (r.kind() == HeapRecord.Kind.INSTANCE) throw expected("an array", r);
        return r.length();
    }

    @Override
    public int[] ints(TargetObject array, int from, int count) {
        ByteBuffer b = slice(array, INT, from, count);
        int[] out = new int[count];
        b.asIntBuffer().get(out);
        return out;
    }

    @Override
    public long[] longs(TargetObject array, int from, int count) {
        ByteBuffer b = slice(array, LONG, from, count);
        long[] out = new long[count];
        b.asLongBuffer().get(out);
        return out;
    }

    @Override
    public byte[] bytes(TargetObject array, int from, int count) {
        // a boolean[] is one byte per element too, as JDI's byte reads of it give
        HeapRecord r = record(array, "a byte array");
        boolean bools = r.kind() == HeapRecord.Kind.PRIMITIVE_ARRAY && r.elementType() == BOOLEAN;
        return slice(array, bools ? BOOLEAN : BYTE, from, count).array();
    }

    @Override
    public TargetObject[] objects(TargetObject array, int from, int count) {
        HeapRecord r = record(array, "an object array");
        if (r.kind() != HeapRecord.Kind.OBJECT_ARRAY) throw expected("an object array", r);
        int idSize = scan.idSize;
        ByteBuffer b = ByteBuffer.wrap(scan.elementBytes(r, checkSlice(r, from, count) * idSize, (long) count * idSize));
        TargetObject[] out = new TargetObject[count];
        for (int i = 0; i < count; i++) {
            long id = idSize == 4 ? b.getInt() & 0xffffffffL : b.getLong();
            out[i] = id == 0 ? null : new DumpObject(id);
        }
        return out;
    }

    /**
     * Contents of a {@code java.lang.String}: Latin-1 or UTF-16 bytes with a coder (JDK 9+), or
     * a char array (JDK 8). UTF-16 bytes are in the dumped JVM's byte order, little-endian on
     * the x86-64 and AArch64 machines MPI runs on.
     */
    @Override
    public String string(TargetObject string) {
        HeapRecord r = instance(string, "a java.lang.String");
        String type = scan.classOf(r.classId()).name();
        if (!type.equals("java.lang.String")) throw expected("a java.lang.String", r);
        Map<String, Object> f = instanceFields(r);
        Object value = f.get("value");
        if (value == null) return null;
        HeapRecord v = record((TargetObject) value, "the characters of a string");
        if (v.kind() != HeapRecord.Kind.PRIMITIVE_ARRAY) throw expected("the characters of a string", v);
        byte[] b = scan.elementBytes(v, 0, (long) v.length() * sizeOf(v.elementType(), scan.idSize));
        if (v.elementType() == CHAR) return ByteBuffer.wrap(b).asCharBuffer().toString();
        if (v.elementType() != BYTE) throw expected("the characters of a string", v);
        Object coder = f.get("coder");
        if (coder == null || (coder instanceof Byte && (Byte) coder == LATIN1)) {
            return new String(b, StandardCharsets.ISO_8859_1);
        }
        return ByteBuffer.wrap(b, 0, b.length & ~1).order(ByteOrder.LITTLE_ENDIAN).asCharBuffer().toString();
    }

    /** One more pass over the dump collects the instances of every class asked for and of its subclasses. */
    @Override
    public Found instancesOf(List<TargetClass> types, int limit) {
        scan.finish(); // every class of the dump
        Map<Long, List<TargetClass>> askedFor = new HashMap<>(); // class id -> the asked types it extends
        for (HprofClass c : scan.classes.values()) {
            long id = c.id();
            for (int depth = 0; id != 0 && depth <= scan.classes.size(); depth++) {
                HprofClass k = scan.classOf(id);
                if (k == null) break;
                for (TargetClass t : types) {
                    if (dumpClass(t).c.id() == id) askedFor.computeIfAbsent(c.id(), x -> new ArrayList<>()).add(t);
                }
                id = k.superId();
            }
        }
        Map<TargetClass, List<TargetObject>> out = new LinkedHashMap<>();
        for (TargetClass t : types) out.put(t, new ArrayList<>());
        if (askedFor.isEmpty()) return new Found(out, 0);
        HeapDumpScan.Instances found = scan.instancesOf(askedFor.keySet(), limit);
        for (long id : found.ids()) {
            for (TargetClass t : askedFor.get(scan.record(id).classId())) out.get(t).add(new DumpObject(id));
        }
        return new Found(out, found.beyond());
    }

    /** The object id of the loader (0 for the boot loader). */
    @Override
    public Object definingLoader(TargetClass type) {
        return dumpClass(type).c.loaderId();
    }

    @Override
    public List<String> staticFieldNames(TargetClass type) {
        return List.copyOf(dumpClass(type).c.statics().keySet());
    }

    private DumpClass dumpClass(TargetClass type) {
        if (!(type instanceof DumpClass) || ((DumpClass) type).owner() != this) {
            throw new IllegalArgumentException("not a class of " + scan.name);
        }
        return (DumpClass) type;
    }

    /** The file name of the dump. */
    @Override
    public String describe() {
        return scan.name;
    }

    @Override
    public void close() {
        scan.close();
    }

    // ---------------------------------------------------------------- internals

    private HeapRecord record(TargetObject o, String what) {
        if (o == null) throw new TargetReadException(scan.name + ": expected " + what + ", found null");
        if (!(o instanceof DumpObject) || ((DumpObject) o).owner() != this) {
            throw new IllegalArgumentException("not an object read from " + scan.name);
        }
        return scan.record(((DumpObject) o).id);
    }

    private HeapRecord instance(TargetObject o, String what) {
        HeapRecord r = record(o, what);
        if (r.kind() != HeapRecord.Kind.INSTANCE) throw expected(what, r);
        if (scan.classOf(r.classId()) == null) {
            throw new TargetReadException(scan.name + " is damaged: object 0x" + Long.toHexString(r.id())
                    + " is of class 0x" + Long.toHexString(r.classId()) + ", which the dump does not describe");
        }
        return r;
    }

    /** All field values of an instance; a field of a subclass hides one of the same name above it. */
    private Map<String, Object> instanceFields(HeapRecord r) {
        ByteBuffer b = ByteBuffer.wrap(r.data());
        Map<String, Object> out = new HashMap<>();
        long classId = r.classId();
        int idSize = scan.idSize;
        for (int depth = 0; classId != 0; depth++) {
            HprofClass c = scan.classOf(classId);
            if (c == null || depth > scan.classes.size()) {
                throw new TargetReadException(scan.name + " is damaged: the class hierarchy of object 0x"
                        + Long.toHexString(r.id()) + " refers to class 0x" + Long.toHexString(classId)
                        + ", which the dump does not describe");
            }
            for (HprofClass.Field f : c.fields()) {
                if (b.remaining() < sizeOf(f.type(), idSize)) throw layoutMismatch(r);
                Object v = value(b, f.type());
                out.putIfAbsent(f.name(), v);
            }
            classId = c.superId();
        }
        if (b.hasRemaining()) throw layoutMismatch(r);
        return out;
    }

    private TargetReadException layoutMismatch(HeapRecord r) {
        return new TargetReadException(scan.name + " is damaged: object 0x" + Long.toHexString(r.id()) + " has "
                + r.length() + " bytes of fields, which is not what its class "
                + scan.classOf(r.classId()).name() + " declares");
    }

    private Object value(ByteBuffer b, int type) {
        switch (type) {
            case OBJECT: {
                long id = scan.idSize == 4 ? b.getInt() & 0xffffffffL : b.getLong();
                return id == 0 ? null : new DumpObject(id);
            }
            case BOOLEAN: return b.get() != 0;
            case CHAR: return b.getChar();
            case FLOAT: return b.getFloat();
            case DOUBLE: return b.getDouble();
            case BYTE: return b.get();
            case SHORT: return b.getShort();
            case INT: return b.getInt();
            case LONG: return b.getLong();
            default: throw new TargetReadException(scan.name + " is damaged: a field of unknown type " + type);
        }
    }

    private Object object(Object v) {
        return v instanceof HprofRecordReader.ObjectId ? new DumpObject(((HprofRecordReader.ObjectId) v).id()) : v;
    }

    private ByteBuffer slice(TargetObject array, int type, int from, int count) {
        String what = primitiveArrayName(type) + " array";
        HeapRecord r = record(array, what);
        if (r.kind() != HeapRecord.Kind.PRIMITIVE_ARRAY || r.elementType() != type) throw expected("a " + what, r);
        int size = sizeOf(type, scan.idSize);
        return ByteBuffer.wrap(scan.elementBytes(r, checkSlice(r, from, count) * size, (long) count * size));
    }

    /** Returns {@code from} once the slice is known to lie inside the array. */
    private long checkSlice(HeapRecord r, int from, int count) {
        if (from < 0 || count < 0 || (long) from + count > r.length()) {
            throw new TargetReadException(scan.name + ": read of elements [" + from + ", " + ((long) from + count)
                    + ") of an array of length " + r.length() + " (object 0x" + Long.toHexString(r.id()) + ")");
        }
        return from;
    }

    private TargetReadException expected(String what, HeapRecord r) {
        return new TargetReadException(scan.name + ": expected " + what + ", found " + typeName(r) + " (object 0x"
                + Long.toHexString(r.id()) + ")");
    }

    private String typeName(HeapRecord r) {
        switch (r.kind()) {
            case PRIMITIVE_ARRAY:
                return primitiveArrayName(r.elementType());
            default:
                HprofClass c = scan.classOf(r.classId());
                return c == null ? "an object of unknown class 0x" + Long.toHexString(r.classId()) : c.name();
        }
    }

    /**
     * A class or an object read from this dump: equal to another of the same kind with the same
     * id read by the same reader (a class's id is also an object's, so the kind counts).
     */
    private abstract class DumpHandle {
        final long id;

        DumpHandle(long id) {
            this.id = id;
        }

        HprofTargetReader owner() {
            return HprofTargetReader.this;
        }

        @Override
        public boolean equals(Object o) {
            return o != null && o.getClass() == getClass() && ((DumpHandle) o).id == id
                    && ((DumpHandle) o).owner() == owner();
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id);
        }
    }

    private final class DumpClass extends DumpHandle implements TargetClass {
        final HprofClass c;

        DumpClass(HprofClass c) {
            super(c.id());
            this.c = c;
        }

        @Override
        public String name() {
            return c.name();
        }
    }

    private final class DumpObject extends DumpHandle implements TargetObject {
        DumpObject(long id) {
            super(id);
        }

        /** Binary name as {@link Class#getName()} spells it: {@code [J}, {@code java.lang.String}. */
        @Override
        public String typeName() {
            return HprofTargetReader.this.typeName(scan.record(id));
        }

        @Override
        public String toString() {
            return "object 0x" + Long.toHexString(id) + " in " + scan.name;
        }
    }
}
