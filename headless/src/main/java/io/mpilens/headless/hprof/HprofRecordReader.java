package io.mpilens.headless.hprof;

import static io.mpilens.headless.hprof.HprofFormat.*;

import io.mpilens.api.target.TargetReadException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The bodies of a dump's records: string and class records, and the sub-records of heap dump
 * segments. Objects nobody asked for are skimmed ({@link #skim}: stepped over by their length
 * fields); the others are read — class dumps into the {@link ClassIndex}, objects asked for or
 * collected handed to the {@link Prefetch} — and every object's place is noted in the index of
 * the first pass ({@link ObjectBlocks}). Every check of a record names the damage it finds.
 */
final class HprofRecordReader {
    private static final int MAX_SYMBOL = 1 << 16;
    private static final String SUB_RECORD = "a heap dump sub-record";
    /** Longest fixed part of a sub-record: tag, two 8-byte ids, two u4 (instance and object array). */
    private static final int MAX_SUB_HEADER = 1 + 2 * 8 + 8;
    /** Bytes of each primitive element type (by HPROF basic type), 0 for anything else. */
    private static final int[] PRIMITIVE_SIZE = new int[256];

    static {
        for (int t = 0; t < 256; t++) PRIMITIVE_SIZE[t] = t == OBJECT ? 0 : Math.max(0, sizeOf(t, 8));
    }

    private final String name;
    private final int idSize;
    /** Array elements of a compressed dump are kept (there is no offset to read them at later). */
    private final boolean keepArrays;
    private final ClassIndex classes;
    private final Prefetch prefetch;
    /** The index the first pass builds. */
    private final ObjectBlocks blocks;
    private long captureBudget = Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 4);
    /** The instances the current pass collects, null in every other pass. */
    InstanceCollection collection;

    HprofRecordReader(DumpFile file, int idSize, ClassIndex classes, Prefetch prefetch, ObjectBlocks blocks) {
        this.name = file.name;
        this.idSize = idSize;
        this.keepArrays = file.compressed;
        this.classes = classes;
        this.prefetch = prefetch;
        this.blocks = blocks;
    }

    /** A string record (UTF8): kept in {@code symbols} unless it is too long to be a name. */
    void symbol(DumpInput in, long length, Map<Long, String> symbols, String what) {
        if (length < idSize) throw damaged(in, what + " is shorter than an identifier");
        long id = in.id(what);
        long n = length - idSize;
        if (n > MAX_SYMBOL) {
            in.skip(n, what);
            return;
        }
        byte[] b = new byte[(int) n];
        in.bytes(b, 0, b.length, what);
        symbols.put(id, new String(b, StandardCharsets.UTF_8));
    }

    /** A class record (LOAD_CLASS): the name of a class id. */
    void loadClass(DumpInput in, long length, Map<Long, String> symbols, String what) {
        long expected = 8 + 2L * idSize;
        if (length < expected) throw damaged(in, what + " (a class) has " + length + " bytes, expected " + expected);
        in.u4(what);
        long classId = in.id(what);
        in.u4(what);
        long nameId = in.id(what);
        in.skip(length - expected, what);
        String n = symbols.get(nameId);
        if (n != null) classes.loaded(classId, n);
    }

    /**
     * The sub-records of one heap dump segment (or of one block of it), up to {@code end}; with
     * {@code symbols} (the first pass) classes are indexed and objects' places noted. Objects
     * nobody asked for are skipped by their length fields without reading their values: the loop
     * reads each header at once from the buffer, so a pass costs little more than reading the file.
     */
    void segment(DumpInput in, long end, Map<Long, String> symbols) {
        boolean index = symbols != null;
        final int id = idSize;
        while (in.position() < end) {
            skim(in, end, index ? blocks : null, prefetch.pending, collection == null ? null : collection.classIds, id);
            if (in.position() >= end) break;
            long at = in.position();
            in.need((int) Math.min(MAX_SUB_HEADER, end - at), SUB_RECORD);
            ByteBuffer b = in.buffer;
            int i = b.position();
            int tag = b.get(i) & 0xff;
            switch (tag) {
                case ROOT_UNKNOWN:
                case ROOT_STICKY_CLASS:
                case ROOT_MONITOR_USED:
                    headerFits(at, end, 1 + id, b, i);
                    break;
                case ROOT_JNI_GLOBAL:
                    headerFits(at, end, 1 + 2 * id, b, i);
                    break;
                case ROOT_JNI_LOCAL:
                case ROOT_JAVA_FRAME:
                case ROOT_THREAD_OBJECT:
                    headerFits(at, end, 1 + id + 8, b, i);
                    break;
                case ROOT_NATIVE_STACK:
                case ROOT_THREAD_BLOCK:
                    headerFits(at, end, 1 + id + 4, b, i);
                    break;
                case CLASS_DUMP:
                    b.position(i + 1);
                    classDump(in, symbols, "the class record at offset " + at);
                    break;
                case INSTANCE_DUMP: {
                    headerFits(at, end, 1 + 2 * id + 8, b, i);
                    long oid = idAt(b, i + 1);
                    long classId = idAt(b, i + 1 + id + 4);
                    long n = b.getInt(i + 1 + 2 * id + 4) & 0xffffffffL;
                    if (index) blocks.object(oid, at);
                    within(in, n, end, at);
                    int[] p = prefetch.pending.entry(oid);
                    // a collected instance's bytes are kept, so later field reads cost nothing
                    boolean collect = collection != null && collection.take(oid, classId) && !prefetch.isLocated(oid);
                    if (p == null && !collect) {
                        in.skip(n, SUB_RECORD);
                    } else {
                        byte[] data = capture(in, n, SUB_RECORD);
                        prefetch.found(new HeapRecord(oid, HeapRecord.Kind.INSTANCE, classId, 0, data.length, 0, data),
                                Math.max(p == null ? Prefetch.MODE_LEAF : p[0],
                                        collect ? Prefetch.COLLECT_DEPTH : Prefetch.MODE_LEAF));
                    }
                    break;
                }
                case OBJ_ARRAY_DUMP: {
                    headerFits(at, end, 1 + 2 * id + 8, b, i);
                    long oid = idAt(b, i + 1);
                    long count = b.getInt(i + 1 + id + 4) & 0xffffffffL;
                    long classId = idAt(b, i + 1 + id + 8);
                    if (index) blocks.object(oid, at);
                    long n = count * id;
                    within(in, n, end, at);
                    arrayRecord(in, oid, HeapRecord.Kind.OBJECT_ARRAY, classId, 0, count, n, SUB_RECORD);
                    break;
                }
                case PRIM_ARRAY_DUMP: {
                    headerFits(at, end, 1 + id + 9, b, i);
                    long oid = idAt(b, i + 1);
                    long count = b.getInt(i + 1 + id + 4) & 0xffffffffL;
                    int type = b.get(i + 1 + id + 8) & 0xff;
                    int size = sizeOf(type, id);
                    if (size < 0 || type == OBJECT) {
                        throw damaged(in, "the primitive array at offset " + at + " has no primitive element type (" + type + ")");
                    }
                    if (index) blocks.object(oid, at);
                    long n = count * size;
                    within(in, n, end, at);
                    arrayRecord(in, oid, HeapRecord.Kind.PRIMITIVE_ARRAY, 0, type, count, n, SUB_RECORD);
                    break;
                }
                default:
                    throw new TargetReadException(name + " is damaged or not from a HotSpot JVM: unknown heap dump"
                            + " sub-record 0x" + Integer.toHexString(tag) + " at offset " + at
                            + " (expected a root, class, instance or array record of HPROF 1.0.2)");
            }
        }
        if (in.position() != end) {
            throw new TargetReadException(name + " is damaged: the last sub-record of the heap dump segment ending"
                    + " at offset " + end + " runs on to offset " + in.position());
        }
    }

    /**
     * The hot loop of every pass: steps over instance and array sub-records inside the buffer
     * by their length fields, noting only ids and offsets in {@code into} (if given). Stops at
     * the first record it leaves to {@link #segment}: one {@code pending} (if given), an instance
     * of a class in {@code collect} (if given), a class, a root, one that reaches past the buffer
     * or the segment, or anything odd. Kept to one method with everything it reads in locals (the
     * filter over pending ids, the open block of the index, the id size), objects tested first in
     * the order they are most frequent, each header read by absolute {@code get}s, so that a
     * fresh JVM compiles it early (on-stack replacement) and small. The second thread of the
     * first pass ({@link SecondHalfSkim}) runs it too, with neither pending ids nor collection.
     */
    static void skim(DumpInput in, long end, ObjectBlocks into, PendingIds pending, long[] collect, int id) {
        final ByteBuffer b = in.buffer;
        final long base = in.bufferStart;
        // a record must start and end inside the buffer and its segment; an object's fixed part
        // is read before that is checked, so it must lie inside the buffer
        final int limit = (int) Math.min(b.limit(), end - base);
        final int bufferEnd = b.limit();
        final long[] filter = pending != null && !pending.isEmpty() ? pending.filter() : null;
        final long mask = pending != null ? pending.mask() : 0;
        final boolean wide = id == 8;
        // the index's open block, in locals: a record of it only widens [lo, hi]
        long blockLimit = into == null ? Long.MAX_VALUE : into.openLimit();
        long lo = into == null ? 0 : into.openMin(), hi = into == null ? 0 : into.openMax();
        int i = b.position();
        final int objectHeader = 1 + 2 * id + 8, arrayHeader = 1 + id + 9;
        while (i < limit) {
            final int tag = b.get(i);
            final long length;
            if (tag == INSTANCE_DUMP) {
                if (i > bufferEnd - objectHeader) break;
                length = 1 + 2 * id + 8 + (b.getInt(i + 1 + 2 * id + 4) & 0xffffffffL);
                if (collect != null && Arrays.binarySearch(collect,
                        wide ? b.getLong(i + 1 + 8 + 4) : b.getInt(i + 1 + 4 + 4) & 0xffffffffL) >= 0) {
                    break;
                }
            } else if (tag == OBJ_ARRAY_DUMP) {
                if (i > bufferEnd - objectHeader) break;
                length = 1 + 2 * id + 8 + (b.getInt(i + 1 + id + 4) & 0xffffffffL) * id;
            } else if (tag == PRIM_ARRAY_DUMP) {
                if (i > bufferEnd - arrayHeader) break;
                int size = PRIMITIVE_SIZE[b.get(i + 1 + id + 8) & 0xff];
                if (size == 0) break; // no primitive type: segment() names the damage
                length = 1 + id + 9 + (b.getInt(i + 1 + id + 4) & 0xffffffffL) * size;
            } else {
                long root = rootLength(tag & 0xff, id);
                if (root < 0 || i + root > limit) break; // a class, or anything unknown
                i += (int) root;
                continue;
            }
            if (i + length > limit) break; // past the buffer or the segment: segment() checks and reads it
            final long oid = wide ? b.getLong(i + 1) : b.getInt(i + 1) & 0xffffffffL;
            if (filter != null && (filter[(int) (PendingIds.mix(oid) & mask)] & PendingIds.bit(oid)) != 0
                    && pending.contains(oid)) {
                break;
            }
            if (base + i >= blockLimit) { // a new block of the index begins here
                into.widen(lo, hi);
                into.object(oid, base + i);
                blockLimit = into.openLimit();
                lo = oid;
                hi = oid;
            } else {
                lo = Math.min(lo, oid);
                hi = Math.max(hi, oid);
            }
            i += (int) length;
        }
        if (into != null) into.widen(lo, hi);
        b.position(i);
    }

    /** Length of a root sub-record with this tag, or -1 for anything else. */
    private static long rootLength(int tag, int id) {
        switch (tag) {
            case ROOT_UNKNOWN:
            case ROOT_STICKY_CLASS:
            case ROOT_MONITOR_USED:
                return 1 + id;
            case ROOT_JNI_GLOBAL:
                return 1 + 2 * id;
            case ROOT_JNI_LOCAL:
            case ROOT_JAVA_FRAME:
            case ROOT_THREAD_OBJECT:
                return 1 + id + 8;
            case ROOT_NATIVE_STACK:
            case ROOT_THREAD_BLOCK:
                return 1 + id + 4;
            default:
                return -1;
        }
    }

    /** Moves past a sub-record's fixed part of {@code n} bytes, which must lie inside its segment. */
    private void headerFits(long at, long end, int n, ByteBuffer b, int i) {
        if (end - at < n) {
            throw new TargetReadException(name + " is damaged: the sub-record at offset " + at + " needs " + n
                    + " bytes, past the end of its heap dump segment at offset " + end);
        }
        b.position(i + n);
    }

    private long idAt(ByteBuffer b, int i) {
        return idSize == 4 ? b.getInt(i) & 0xffffffffL : b.getLong(i);
    }

    private void within(DumpInput in, long n, long end, long at) {
        if (in.position() + n > end) {
            throw new TargetReadException(name + " is damaged: the object record at offset " + at + " claims " + n
                    + " bytes of data, past the end of its heap dump segment at offset " + end);
        }
    }

    private void arrayRecord(DumpInput in, long id, HeapRecord.Kind kind, long classId, int type, long count, long n,
                             String what) {
        int[] p = prefetch.pending.entry(id);
        if (p == null) {
            in.skip(n, what);
            return;
        }
        if (count > Integer.MAX_VALUE - 8) throw damaged(in, "an array has " + count + " elements, more than a Java array");
        HeapRecord r;
        if (!keepArrays) {
            r = new HeapRecord(id, kind, classId, type, (int) count, in.position(), null);
            in.skip(n, what);
        } else {
            r = new HeapRecord(id, kind, classId, type, (int) count, 0, capture(in, n, what));
        }
        prefetch.found(r, p[0]);
    }

    /** A class dump; with {@code symbols} (the first pass) it goes into the class index, else it is only checked. */
    private void classDump(DumpInput in, Map<Long, String> symbols, String what) {
        long id = in.id(what);
        in.u4(what);
        long superId = in.id(what);
        long loaderId = in.id(what);
        for (int i = 0; i < 4; i++) in.id(what); // signers, protection domain, 2 reserved
        in.u4(what); // instance size
        int constants = in.u2(what);
        for (int i = 0; i < constants; i++) {
            in.u2(what);
            value(in, in.u1(what), what);
        }
        int staticCount = in.u2(what);
        Map<String, Object> statics = symbols == null ? null : new HashMap<>();
        for (int i = 0; i < staticCount; i++) {
            long nameId = in.id(what);
            Object v = value(in, in.u1(what), what);
            if (statics != null) statics.put(symbol(symbols, nameId), v);
        }
        int fieldCount = in.u2(what);
        List<HprofClass.Field> fields = symbols == null ? null : new ArrayList<>(fieldCount);
        for (int i = 0; i < fieldCount; i++) {
            long nameId = in.id(what);
            int type = in.u1(what);
            if (sizeOf(type, idSize) < 0) throw damaged(in, what + " declares a field of unknown type " + type);
            if (fields != null) fields.add(new HprofClass.Field(symbol(symbols, nameId), type));
        }
        if (symbols == null) return;
        long root = classes.add(new HprofClass(id, classes.nameOf(id), superId, loaderId, List.copyOf(fields), statics));
        // located during this pass if it lies ahead (a compressed dump has no index to look it up in)
        if (root != 0) prefetch.want(root, Prefetch.MODE_ROOT);
    }

    private static String symbol(Map<Long, String> symbols, long id) {
        String s = symbols.get(id);
        return s == null ? "?" + Long.toHexString(id) : s;
    }

    /** A reference read from the dump (static field or constant); the reader turns it into a TargetObject. */
    record ObjectId(long id) {
    }

    /** Reads one value of a basic type; boxed the way JDI's values unbox, references as {@link ObjectId}. */
    private Object value(DumpInput in, int type, String what) {
        switch (type) {
            case OBJECT: {
                long id = in.id(what);
                return id == 0 ? null : new ObjectId(id);
            }
            case BOOLEAN: return in.u1(what) != 0;
            case CHAR: return (char) in.u2(what);
            case FLOAT: return Float.intBitsToFloat(in.u4(what));
            case DOUBLE: return Double.longBitsToDouble(in.u8(what));
            case BYTE: return (byte) in.u1(what);
            case SHORT: return (short) in.u2(what);
            case INT: return in.u4(what);
            case LONG: return in.u8(what);
            default:
                throw damaged(in, what + " holds a value of unknown type " + type);
        }
    }

    /** Copies {@code n} bytes of the dump into memory, growing only as bytes really arrive. */
    private byte[] capture(DumpInput in, long n, String what) {
        captureBudget -= n;
        if (captureBudget < 0 || n > Integer.MAX_VALUE - 8) {
            throw new TargetReadException(name + ": the objects mpilens needs from this dump exceed the memory it may"
                    + " use (" + what + " alone has " + n + " bytes); the dump is probably damaged");
        }
        int size = (int) n;
        byte[] out = new byte[Math.min(size, 1 << 20)];
        int done = 0;
        while (done < size) {
            if (done == out.length) out = Arrays.copyOf(out, (int) Math.min(size, out.length * 2L));
            int k = Math.min(out.length - done, 1 << 20);
            in.bytes(out, done, k, what);
            done += k;
        }
        return out;
    }

    TargetReadException damaged(DumpInput in, String why) {
        return new TargetReadException(name + " is damaged: " + why + " (offset " + in.position() + ")");
    }
}
