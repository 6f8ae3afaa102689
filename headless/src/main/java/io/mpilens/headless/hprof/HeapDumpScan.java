package io.mpilens.headless.hprof;

import static io.mpilens.headless.hprof.HprofFormat.*;

import io.mpilens.api.registry.RegistryLayout;
import io.mpilens.api.target.TargetReadException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The passes over a heap dump and the index they build. The first pass indexes classes (names,
 * field layouts, static values), finds the registry root through the static field of its class,
 * and, for an uncompressed dump, notes where objects lie in blocks of about 64 KB
 * ({@link ObjectBlocks}); it steps over the objects themselves by their length fields, and stops
 * once the root and what is prefetched from it are located, reading on only when asked (see
 * {@link #mayStop}). Later passes locate only the objects asked for, plus a bounded prefetch of
 * what the decoder is about to ask ({@link Prefetch}). In an uncompressed dump such a pass reads
 * only the blocks that can hold those objects; a compressed one is read whole again. Nothing else
 * of the heap is kept, so memory stays small however big the dump is, and nothing is written
 * beside the dump.
 *
 * <p>The pieces, each tuned against {@code cat} of the file (docs/performance.md, "Heap dumps"):
 * {@link DumpFile} (input and gzip), {@link HprofRecordReader} (reading and skimming records),
 * {@link Prefetch} and {@link PendingIds} (what to locate), {@link SecondHalfSkim} (the optional
 * second thread of the first pass). This class only runs the passes.
 */
final class HeapDumpScan implements AutoCloseable {
    /**
     * Passes one lookup may take: reads nest root → array → string → characters (agentless reads
     * up to {@link Prefetch#COLLECT_DEPTH} deep); a dump needing more passes for one lookup is damaged.
     */
    private static final int MAX_PASSES = 16;

    /** Called now and then during a pass: bytes of the file done out of its size. */
    interface Progress {
        void update(int pass, long done, long total);
    }

    final String name;
    private final DumpFile file;
    private final long fileSize;
    private final Progress progress;
    final int idSize;
    private final long headerEnd;
    final ClassIndex classes = new ClassIndex();
    private final ObjectBlocks blocks = new ObjectBlocks();
    private final Prefetch prefetch;
    private final HprofRecordReader records;
    private int passes;
    private int segmentsAside;
    /**
     * Whether the first pass may stop once the registry root and everything prefetched from it
     * are located (see {@link #mayStop}); {@code -Dmpilens.hprof.wholeFirstPass=true} makes it
     * read the whole dump at once, as before.
     */
    private final boolean earlyStop = !Boolean.getBoolean("mpilens.hprof.wholeFirstPass");
    /** The first pass while it has stopped before the end of the dump (see {@link #mayStop}); null once it is done. */
    private Walk first;

    private HeapDumpScan(DumpFile file, Progress progress) {
        this.file = file;
        this.name = file.name;
        this.fileSize = file.size;
        this.progress = progress;
        long[] header = readHeader();
        this.idSize = (int) header[0];
        this.headerEnd = header[1];
        this.prefetch = new Prefetch(classes, file, idSize);
        this.records = new HprofRecordReader(file, idSize, classes, prefetch, blocks);
    }

    static HeapDumpScan open(Path path, Progress progress) {
        DumpFile file = DumpFile.open(path);
        try {
            HeapDumpScan scan = new HeapDumpScan(file, progress);
            scan.pass(true, true);
            scan.prefetch.want(scan.classes.registryRoot(), Prefetch.MODE_ROOT);
            scan.settle();
            return scan;
        } catch (RuntimeException | Error e) {
            file.close();
            throw e;
        }
    }

    // ---------------------------------------------------------------- lookups for the reader

    /** The object with this id, located by another pass if it was not prefetched. */
    HeapRecord record(long id) {
        HeapRecord r = prefetch.located(id);
        if (r != null) return r;
        if (!prefetch.isMissing(id)) {
            prefetch.want(id, Prefetch.MODE_LEAF);
            settle();
            r = prefetch.located(id);
            if (r != null) return r;
        }
        throw new TargetReadException(name + " is damaged or incomplete: object 0x" + Long.toHexString(id)
                + " is referenced but not in the dump");
    }

    /** Ids of the objects located so far (for tests that aim at the bytes that matter). */
    Set<Long> locatedIds() {
        return prefetch.locatedIds();
    }

    boolean isCompressed() {
        return file.compressed;
    }

    int passes() {
        return passes;
    }

    /** Heap dump segments of the first pass skimmed on the second thread (see {@link SecondHalfSkim}). */
    int segmentsAside() {
        return segmentsAside;
    }

    /** {@code count} bytes of an array's elements from {@code from}, from memory or from the file. */
    byte[] elementBytes(HeapRecord r, long from, long count) {
        return file.elementBytes(r, from, count);
    }

    /** The class with this id; one not seen yet may lie in the part of the dump the first pass has not read. */
    HprofClass classOf(long id) {
        HprofClass c = classes.get(id);
        if (c == null && first != null) {
            finish();
            c = classes.get(id);
        }
        return c;
    }

    /** Ids of the classes of this name: all of them, reading the rest of the dump first unless it is the registry's. */
    List<Long> classIdsNamed(String className) {
        if (!className.equals(RegistryLayout.ROOT_CLASS)) finish();
        return classes.idsNamed(className);
    }

    /** Every instance of exactly these classes, in dump order, by one more pass; at most {@code limit} ids. */
    Instances instancesOf(Set<Long> classIds, int limit) {
        InstanceCollection collection = new InstanceCollection(classIds, limit);
        records.collection = collection;
        try {
            pass(false, true);
        } finally {
            records.collection = null;
        }
        settle(); // what the collected instances refer to, a few levels deep, in a few more passes
        return collection.result();
    }

    /** Ids of instances found, and how many more there were beyond the limit (not kept). */
    record Instances(List<Long> ids, long beyond) {
    }

    // ---------------------------------------------------------------- passes

    /** {identifier size, offset of the first record}. */
    private long[] readHeader() {
        try (DumpInput in = file.input()) {
            StringBuilder format = new StringBuilder();
            for (int i = 0; i < 32; i++) {
                if (!in.fill(1)) break;
                int c = in.u1("the header");
                if (c == 0) break;
                format.append(c >= 32 && c < 127 ? (char) c : '?');
            }
            if (!format.toString().startsWith("JAVA PROFILE 1.0")) {
                throw new TargetReadException(name + " is not an HPROF heap dump (it starts with \""
                        + format.toString().substring(0, Math.min(format.length(), 18)) + "\"); write one with"
                        + " 'jcmd PID GC.heap_dump FILE' or -XX:+HeapDumpOnOutOfMemoryError");
            }
            int size = in.u4("the identifier size in the header");
            if (size != 4 && size != 8) {
                throw new TargetReadException(name + " is damaged: its header gives an identifier size of " + size
                        + " bytes, HPROF uses 4 or 8");
            }
            in.u8("the time stamp in the header");
            return new long[] {size, in.position()};
        }
    }

    /** Passes until every object asked for is located or known to be absent. */
    private void settle() {
        for (int n = 0; !prefetch.pending.isEmpty(); n++) {
            if (n >= MAX_PASSES) {
                throw new TargetReadException(name + " is damaged: its objects still refer to unseen objects after "
                        + n + " passes");
            }
            pass(false, false);
        }
    }

    private void pass(boolean index, boolean whole) {
        passes++;
        prefetch.beginPass(passes);
        try {
            if (!index && !whole && !file.compressed && blocks.usable()) {
                lookup(true);
                if (!prefetch.pending.isEmpty() && first != null) resume(true); // beyond where the first pass stopped
            } else {
                if (first != null) resume(false); // a whole pass reads everything: finish the index first
                wholePass(index);
            }
        } catch (InternalError e) { // a mapped page vanished: the file was cut short under us
            throw changed(e);
        }
        prefetch.followDeferred(); // classes are all known now
        if (first != null) return; // what is still pending may lie in the part the first pass has not read
        prefetch.retireUnseen();
    }

    private TargetReadException changed(InternalError e) {
        return new TargetReadException(name + " changed while it was read (" + e.getMessage() + "): was it"
                + " truncated or rewritten? Read it again once it is complete", e);
    }

    /** A whole pass in progress: its input, the symbols (first pass only), the second thread. */
    private final class Walk implements AutoCloseable {
        final DumpInput in;
        final Map<Long, String> symbols;
        SecondHalfSkim half;
        long nextReport;
        /** Heap records met (a heap dump, its segments) and HotSpot's end-of-segments record: a dump cut between records lacks them. */
        boolean heap;
        boolean segments;
        boolean heapEnd;

        Walk(boolean index) {
            in = file.passInput();
            try {
                in.idSize = idSize;
                in.skip(headerEnd, "the header");
            } catch (RuntimeException e) {
                in.close();
                throw e;
            }
            symbols = index ? new HashMap<>() : null;
        }

        @Override
        public void close() {
            try {
                if (half != null) half.cancel();
            } finally {
                in.close();
            }
        }
    }

    /** Reads the whole dump: the first pass builds the index (and may stop early), later ones (compressed dumps) only locate. */
    private void wholePass(boolean index) {
        Walk w = new Walk(index);
        boolean stopped = false;
        try {
            if (index && records.collection == null) w.half = SecondHalfSkim.start(file, idSize, headerEnd);
            stopped = walk(w, index && earlyStop && !file.compressed && w.half == null);
        } finally {
            if (!stopped) w.close();
        }
        if (stopped) first = w;
    }

    /** Continues the first pass where it stopped: to the end, or ({@code mayStop}) until nothing is pending again. */
    private void resume(boolean mayStop) {
        Walk w = first;
        first = null;
        boolean stopped = false;
        try {
            stopped = walk(w, mayStop);
        } finally {
            if (!stopped) w.close();
        }
        if (stopped) first = w;
    }

    /** Reads the rest of the first pass, if it stopped early: a class or name not seen yet may lie there. */
    void finish() {
        if (first == null) return;
        try {
            resume(false);
        } catch (InternalError e) {
            throw changed(e);
        }
    }

    /** True when the first pass has stopped before the end of the dump (for tests). */
    boolean stoppedEarly() {
        return first != null;
    }

    /** Offset where the first pass stopped, the file's size once it is done (for tests). */
    long firstPassAt() {
        return first == null ? fileSize : first.in.position();
    }

    /**
     * The records of a pass from where it is to the end; true when it stopped early instead
     * ({@code mayStop}, after a heap dump segment, see {@link #mayStop}).
     */
    private boolean walk(Walk w, boolean mayStop) {
        DumpInput in = w.in;
        Map<Long, String> symbols = w.symbols;
        boolean index = symbols != null;
        while (!in.atEnd()) {
            long at = in.position();
            in.need(9, "a record header");
            int tag = in.u1("a record tag");
            in.u4("the time stamp of a record");
            long length = in.u4("the length of a record") & 0xffffffffL;
            String what = recordName(tag);
            switch (tag) {
                case UTF8:
                    if (index) records.symbol(in, length, symbols, what);
                    else in.skip(length, what);
                    break;
                case LOAD_CLASS:
                    if (index) records.loadClass(in, length, symbols, what);
                    else in.skip(length, what);
                    break;
                case HEAP_DUMP:
                case HEAP_DUMP_SEGMENT: {
                    w.heap = true;
                    w.segments |= tag == HEAP_DUMP_SEGMENT;
                    long end = in.position() + length;
                    ObjectBlocks skimmed = w.half == null ? null : w.half.skimmed(in.position());
                    if (skimmed != null) { // the second thread has stepped over it already
                        in.skip(length, what);
                        blocks.append(skimmed);
                        segmentsAside++;
                        break;
                    }
                    records.segment(in, end, symbols);
                    if (index) blocks.segmentEnd(end);
                    if (mayStop && mayStop()) {
                        if (progress != null) progress.update(passes, fileSize, fileSize);
                        return true;
                    }
                    break;
                }
                default:
                    w.heapEnd |= tag == HEAP_DUMP_END;
                    in.skip(length, what);
            }
            if (progress != null && at >= w.nextReport) {
                progress.update(passes, file.done(in), fileSize);
                w.nextReport = at + (64L << 20);
            }
        }
        if (progress != null) progress.update(passes, fileSize, fileSize);
        if (index) endedWhole(w, in.position());
        return false;
    }

    /**
     * The first pass reached the end of the file: a dump cut exactly between two records reads
     * cleanly to there, so it is complete only if it has heap records and, when they are segments,
     * the end record HotSpot writes after them. Otherwise it is truncated, and what it seems to
     * lack (a registry, a binding's class) may lie in the part that is missing.
     */
    private void endedWhole(Walk w, long at) {
        if (w.heap && (!w.segments || w.heapEnd)) return;
        throw new TargetReadException(name + " is truncated: it ends at offset " + at + " between two records, "
                + (w.heap ? "after heap dump segments but before the end record HotSpot writes after the last one"
                        : "before any heap record (its strings and classes come first)")
                + " (the dump was cut short; was the JVM killed while writing it?)");
    }

    /**
     * Whether the first pass may stop here: the registry root is known and it and everything
     * asked for from it is located — in the blocks indexed so far if not on the way. The rest of
     * the dump is read only if a later lookup needs it ({@link #pass}), or a class that is not
     * known yet ({@link #finish}). HotSpot writes every class before the first object, so the
     * classes are complete by then.
     */
    private boolean mayStop() {
        if (classes.registryRoot() == 0 || !blocks.usable() || prefetch.hasDeferred()) return false;
        while (!prefetch.pending.isEmpty() && prefetch.takeChanged()) lookup(false);
        return prefetch.pending.isEmpty() && !prefetch.hasDeferred();
    }

    /** Parses only the blocks of the first pass's index that may hold an object asked for. */
    private void lookup(boolean report) {
        long[][] ranges = blocks.covering(prefetch.pending.sortedIds());
        try (DumpInput.OfChannel in = file.blockInput(ObjectBlocks.BLOCK + 64)) {
            in.idSize = idSize;
            for (long[] range : ranges) {
                in.moveTo(range[0], range[1]);
                records.segment(in, range[1], null);
            }
        }
        if (report && progress != null) progress.update(passes, fileSize, fileSize);
    }

    private static String recordName(int tag) {
        switch (tag) {
            case UTF8: return "a string record";
            case LOAD_CLASS: return "a class record";
            case HEAP_DUMP: return "a heap dump record";
            case HEAP_DUMP_SEGMENT: return "a heap dump segment";
            default: return "a record";
        }
    }

    @Override
    public void close() {
        try {
            if (first != null) first.close();
        } finally {
            first = null;
            file.close();
        }
    }
}
