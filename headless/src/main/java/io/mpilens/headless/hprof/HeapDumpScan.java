package io.mpilens.headless.hprof;

import static io.mpilens.headless.hprof.HprofFormat.*;

import io.mpilens.api.registry.RegistryLayout;
import io.mpilens.api.target.TargetReadException;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * The passes over a heap dump and the index they build. The first pass indexes classes (names,
 * field layouts, static values), finds the registry root through the static field of its class,
 * and, for an uncompressed dump, notes where objects lie in blocks of about 64 KB
 * ({@link ObjectBlocks}); it steps over the objects themselves by their length fields, and stops
 * once the root and what is prefetched from it are located, reading on only when asked (see
 * {@link #mayStop}). Later
 * passes locate only the objects asked for, plus a bounded prefetch of what the decoder is about
 * to ask: everything the root refers to, the elements of object arrays it refers to, and the
 * characters of every string. In an uncompressed dump such a pass reads only the blocks that can
 * hold those objects; a compressed one is read whole again. Nothing else of the heap is kept, so
 * memory stays small however big the dump is, and nothing is written beside the dump.
 *
 * <p>Why this file is long: the one pass over a dump's records (input and gzip, record skimming,
 * the prefetch policy, the optional second thread) is tuned as a whole against `cat` of the file
 * (docs/performance.md, "Heap dumps"); its pieces share the position and the window state.
 */
final class HeapDumpScan implements AutoCloseable {
    /**
     * Passes one lookup may take: reads nest root → array → string → characters (agentless reads
     * up to {@link #COLLECT_DEPTH} deep); a dump needing more passes for one lookup is damaged.
     */
    private static final int MAX_PASSES = 16;
    /** A compressed dump up to this size is decompressed into memory once instead of once per pass. */
    private static final long INFLATE_IN_MEMORY = 32L << 20;
    private static final int MAX_SYMBOL = 1 << 16;
    /**
     * How deep to prefetch what an object refers to: an instance's references at one less, an
     * object array's elements at one less (strings' characters always). The registry root is 2.
     */
    private static final int MODE_ROOT = 2, MODE_CHILD = 1, MODE_LEAF = 0;
    /** Prefetch depth below collected instances: MPJ's comm → group → mpjdev group → ids[] → ProcessID → UUID. */
    private static final int COLLECT_DEPTH = 6;
    private static final String SUB_RECORD = "a heap dump sub-record";

    /** Called now and then during a pass: bytes of the file done out of its size. */
    interface Progress {
        void update(int pass, long done, long total);
    }

    final String name;
    private final Path path;
    private final FileChannel channel;
    private final long fileSize;
    private final boolean compressed;
    private byte[] inflated;
    private final Progress progress;
    private long captureBudget;

    int idSize;
    private long headerEnd;
    private final Map<Long, String> loadedClassNames = new HashMap<>();
    final Map<Long, HprofClass> classes = new HashMap<>();
    final Map<String, List<Long>> classIdsByName = new HashMap<>();
    private final Map<Long, HeapRecord> records = new HashMap<>();
    private final Map<Long, int[]> pending = new HashMap<>(); // id -> {mode, pass it was asked in}
    private final Set<Long> missing = new HashSet<>();
    private final List<HeapRecord> deferred = new ArrayList<>();
    private int passes;
    /** The registry root of an uncompressed dump, looked up once the first pass has built the index. */
    private long rootId;

    private HeapDumpScan(Path path, FileChannel channel, Progress progress) throws IOException {
        this.path = path;
        this.name = String.valueOf(path.getFileName());
        this.channel = channel;
        this.fileSize = channel.size();
        this.progress = progress;
        this.captureBudget = Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 4);
        ByteBuffer magic = ByteBuffer.allocate(2);
        channel.read(magic, 0);
        this.compressed = magic.position() == 2 && (magic.get(0) & 0xff) == 0x1f && (magic.get(1) & 0xff) == 0x8b;
    }

    /** The reason alone: a file-system exception's message is often just the path again. */
    static String whyNotOpened(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) return "no such file";
        if (e instanceof java.nio.file.AccessDeniedException) return "permission denied";
        if (e instanceof java.nio.file.FileSystemException) {
            String reason = ((java.nio.file.FileSystemException) e).getReason();
            if (reason != null) return reason;
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    static HeapDumpScan open(Path path, Progress progress) {
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new TargetReadException("cannot open heap dump " + path + ": " + whyNotOpened(e), e);
        }
        try {
            HeapDumpScan scan = new HeapDumpScan(path, channel, progress);
            if (scan.compressed && scan.fileSize <= INFLATE_IN_MEMORY) scan.inflated = scan.inflate();
            scan.readHeader();
            scan.pass(true, true);
            scan.want(scan.rootId, MODE_ROOT);
            scan.settle();
            return scan;
        } catch (IOException e) {
            close(channel);
            throw new TargetReadException("cannot read heap dump " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            close(channel);
            throw e;
        }
    }

    // ---------------------------------------------------------------- lookups for the reader

    /** The object with this id, located by another pass if it was not prefetched. */
    HeapRecord record(long id) {
        HeapRecord r = records.get(id);
        if (r != null) return r;
        if (!missing.contains(id)) {
            want(id, MODE_LEAF);
            settle();
            r = records.get(id);
            if (r != null) return r;
        }
        throw new TargetReadException(name + " is damaged or incomplete: object 0x" + Long.toHexString(id)
                + " is referenced but not in the dump");
    }

    /** Ids of the objects located so far (for tests that aim at the bytes that matter). */
    java.util.Set<Long> locatedIds() {
        return java.util.Collections.unmodifiableSet(records.keySet());
    }

    boolean isCompressed() {
        return compressed;
    }

    int passes() {
        return passes;
    }

    /** Heap dump segments of the first pass skimmed on the second thread (see {@link SecondHalf}). */
    int segmentsAside() {
        return segmentsAside;
    }

    private int segmentsAside;

    /** {@code n} bytes of an array's elements, from memory or from the file. */
    byte[] elementBytes(HeapRecord r, long from, long count) {
        if (count > Integer.MAX_VALUE - 8) {
            throw new TargetReadException(name + ": a read of " + count + " bytes from one array is more than mpilens"
                    + " reads at once (object 0x" + Long.toHexString(r.id()) + "); the dump is probably damaged");
        }
        int n = (int) count;
        if (r.data() != null) {
            byte[] out = new byte[n];
            System.arraycopy(r.data(), (int) from, out, 0, n);
            return out;
        }
        return readAt(r.dataOffset() + from, n);
    }

    // ---------------------------------------------------------------- instances of classes

    /** Class ids (sorted) whose instances the current pass collects, or null in every other pass. */
    private long[] collectClasses;
    private List<Long> collected;
    private int collectLimit;
    private long collectedBeyondLimit;

    /** Every instance of exactly these classes, in dump order, by one more pass; at most {@code limit} ids. */
    Instances instancesOf(Set<Long> classIds, int limit) {
        collectClasses = classIds.stream().mapToLong(Long::longValue).sorted().toArray();
        collected = new ArrayList<>();
        collectLimit = limit;
        collectedBeyondLimit = 0;
        Instances out;
        try {
            pass(false, true);
            out = new Instances(List.copyOf(collected), collectedBeyondLimit);
        } finally {
            collectClasses = null;
            collected = null;
        }
        settle(); // what the collected instances refer to, a few levels deep, in a few more passes
        return out;
    }

    /** Ids of instances found, and how many more there were beyond the limit (not kept). */
    record Instances(List<Long> ids, long beyond) {
    }

    /** True when this instance is to be collected (its bytes are then kept, so later field reads cost nothing). */
    private boolean collecting(long id, long classId) {
        if (collectClasses == null || java.util.Arrays.binarySearch(collectClasses, classId) < 0) return false;
        if (collected.size() >= collectLimit) {
            collectedBeyondLimit++;
            return false;
        }
        collected.add(id);
        return !records.containsKey(id);
    }

    // ---------------------------------------------------------------- passes

    private void readHeader() {
        try (DumpInput in = input()) {
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
            idSize = size;
            in.u8("the time stamp in the header");
            headerEnd = in.position();
        }
    }

    /** Passes until every object asked for is located or known to be absent. */
    private void settle() {
        for (int n = 0; !pending.isEmpty(); n++) {
            if (n >= MAX_PASSES) {
                throw new TargetReadException(name + " is damaged: its objects still refer to unseen objects after "
                        + n + " passes");
            }
            pass(false, false);
        }
    }

    private void pass(boolean index, boolean whole) {
        passes++;
        try {
            if (!index && !whole && !compressed && blocks.usable()) {
                lookup(true);
                if (!pending.isEmpty() && first != null) resume(true); // beyond where the first pass stopped
            } else {
                if (first != null) resume(false); // a whole pass reads everything: finish the index first
                wholePass(index);
            }
        } catch (InternalError e) { // a mapped page vanished: the file was cut short under us
            throw new TargetReadException(name + " changed while it was read (" + e.getMessage() + "): was it"
                    + " truncated or rewritten? Read it again once it is complete", e);
        }
        for (HeapRecord r : new ArrayList<>(deferred)) follow(r, modeOf(r)); // classes are all known now
        deferred.clear();
        if (first != null) return; // what is still pending may lie in the part the first pass has not read
        // asked for before this pass began and still not seen: not in the dump
        pending.entrySet().removeIf(e -> {
            if (e.getValue()[1] < passes) {
                missing.add(e.getKey());
                return true;
            }
            return false;
        });
    }

    /**
     * Whether the first pass may stop once the registry root and everything prefetched from it
     * are located (see {@link #mayStop}); {@code -Dmpilens.hprof.wholeFirstPass=true} makes it
     * read the whole dump at once, as before.
     */
    private final boolean earlyStop = !Boolean.getBoolean("mpilens.hprof.wholeFirstPass");

    /** The first pass while it has stopped before the end of the dump (see {@link #mayStop}); null once it is done. */
    private Walk first;
    /** Set when an id is asked for; the first pass then looks in the blocks it has indexed before it may stop. */
    private boolean pendingChanged;

    /** A whole pass in progress: its input, the symbols (first pass only), the second thread. */
    private final class Walk implements AutoCloseable {
        final DumpInput in;
        final Map<Long, String> symbols;
        SecondHalf half;
        long nextReport;

        Walk(boolean index) {
            in = passInput();
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
            if (index) w.half = SecondHalf.start(this);
            stopped = walk(w, index && earlyStop && !compressed && w.half == null);
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
            throw new TargetReadException(name + " changed while it was read (" + e.getMessage() + "): was it"
                    + " truncated or rewritten? Read it again once it is complete", e);
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
                    if (index) symbol(in, length, symbols, what);
                    else in.skip(length, what);
                    break;
                case LOAD_CLASS:
                    if (index) loadClass(in, length, symbols, what);
                    else in.skip(length, what);
                    break;
                case HEAP_DUMP:
                case HEAP_DUMP_SEGMENT: {
                    long end = in.position() + length;
                    ObjectBlocks skimmed = w.half == null ? null : w.half.skimmed(in.position());
                    if (skimmed != null) { // the second thread has stepped over it already
                        in.skip(length, what);
                        blocks.append(skimmed);
                        segmentsAside++;
                        break;
                    }
                    heapDump(in, end, symbols);
                    if (index) blocks.segmentEnd(end);
                    if (mayStop && mayStop()) {
                        if (progress != null) progress.update(passes, fileSize, fileSize);
                        return true;
                    }
                    break;
                }
                default:
                    in.skip(length, what);
            }
            if (progress != null && at >= w.nextReport) {
                progress.update(passes, fileDone(in), fileSize);
                w.nextReport = at + (64L << 20);
            }
        }
        if (progress != null) progress.update(passes, fileSize, fileSize);
        return false;
    }

    /**
     * Whether the first pass may stop here: the registry root is known and it and everything
     * asked for from it is located — in the blocks indexed so far if not on the way. The rest of
     * the dump is read only if a later lookup needs it ({@link #pass}), or a class that is not
     * known yet ({@link #finish}). HotSpot writes every class before the first object, so the
     * classes are complete by then.
     */
    private boolean mayStop() {
        if (rootId == 0 || !blocks.usable() || !deferred.isEmpty()) return false;
        while (pendingChanged && !pending.isEmpty()) {
            pendingChanged = false;
            lookup(false);
        }
        return pending.isEmpty() && deferred.isEmpty();
    }

    /**
     * The first pass over a large uncompressed dump on two threads: a second thread steps over
     * the heap dump segments of the second half of the file (by bytes) with the same skim loop,
     * each into an index of its own, while the pass reads the first half. The pass then takes
     * the index of each segment the second thread got through whole, and reads every other one
     * itself (a class, anything odd or damaged, a failure of any kind: the pass's own checks then
     * name the damage). Segments are independent in HPROF, so nothing else is shared. Off by
     * default: on the loaded 2-vCPU machine it was measured on it cost 10–25% more CPU and no
     * wall time (docs/performance.md, "Heap dumps"), and with it the first pass does not stop at the registry
     * but reads the whole dump; {@code -Dmpilens.hprof.threads=2} turns it on for dumps
     * with at least {@value #PARALLEL_FROM_DEFAULT} bytes of segments
     * ({@code -Dmpilens.hprof.parallelFrom=BYTES} changes that).
     */
    private static final class SecondHalf implements Runnable {
        private static final long PARALLEL_FROM_DEFAULT = 64L << 20;
        private static final int MAX_SEGMENT = 1 << 30;
        /** More segments than this (tiny ones) are not worth a thread, and their indexes would cost memory. */
        private static final int MAX_SEGMENTS = 1 << 16;
        private final HeapDumpScan scan;
        private final List<long[]> segments; // {start of the body, end}
        private final Map<Long, ObjectBlocks> done = new HashMap<>();
        private final java.util.concurrent.CompletableFuture<Void> finished = new java.util.concurrent.CompletableFuture<>();
        private volatile boolean cancelled;
        private boolean joined;

        private SecondHalf(HeapDumpScan scan, List<long[]> segments) {
            this.scan = scan;
            this.segments = segments;
        }

        /** Starts the second thread, or returns null when the dump is small, compressed or read by one thread. */
        static SecondHalf start(HeapDumpScan scan) {
            if (scan.compressed || !MAPPED_PASSES || scan.collectClasses != null
                    || Integer.getInteger("mpilens.hprof.threads", 1) < 2) {
                return null;
            }
            List<long[]> all = scan.segments();
            long total = 0;
            for (long[] seg : all) total += seg[1] - seg[0];
            if (all.size() < 2 || all.size() > MAX_SEGMENTS || total < Long.getLong("mpilens.hprof.parallelFrom", PARALLEL_FROM_DEFAULT)) return null;
            int from = 0;
            for (long sum = 0; from < all.size() && sum < total / 2; from++) sum += all.get(from)[1] - all.get(from)[0];
            if (from >= all.size()) return null;
            SecondHalf half = new SecondHalf(scan, new ArrayList<>(all.subList(from, all.size())));
            Thread t = new Thread(half, "mpilens-hprof-skim");
            t.setDaemon(true);
            t.start();
            return half;
        }

        @Override
        public void run() {
            try (DumpInput in = new DumpInput.OfMapped(scan.channel, segments.get(0)[0], scan.name)) {
                in.idSize = scan.idSize;
                for (long[] seg : segments) {
                    if (cancelled) break;
                    long length = seg[1] - seg[0];
                    if (seg[0] < in.position() || length <= 0 || length > MAX_SEGMENT) continue;
                    in.skip(seg[0] - in.position(), SUB_RECORD);
                    if (!in.fill((int) length)) break;
                    ObjectBlocks into = new ObjectBlocks((int) (length / ObjectBlocks.BLOCK) + 2);
                    scan.skim(in, seg[1], into, false);
                    if (in.position() != seg[1]) continue; // stopped early: the pass reads this segment itself
                    into.segmentEnd(seg[1]);
                    done.put(seg[0], into);
                }
            } catch (Throwable e) {
                // whatever this thread did not finish, the pass reads itself and reports any damage
            } finally {
                finished.complete(null);
            }
        }

        /** The index of the segment whose body starts at {@code start} if the second thread got through it whole, else null. */
        ObjectBlocks skimmed(long start) {
            if (start < segments.get(0)[0]) return null;
            if (!joined) {
                finished.join();
                joined = true;
            }
            return done.get(start);
        }

        /** Stops the second thread after its current segment and waits for it: nothing of it outlives the pass. */
        void cancel() {
            cancelled = true;
            finished.join();
        }
    }

    /** The heap dump segments ({start of the body, end}) of an uncompressed dump, as far as their headers are sound. */
    private List<long[]> segments() {
        List<long[]> out = new ArrayList<>();
        try (DumpInput in = new DumpInput.OfMapped(channel, 0, name)) {
            in.skip(headerEnd, "the header");
            while (in.fill(9)) {
                int tag = in.u1("a record tag");
                in.u4("the time stamp of a record");
                long length = in.u4("the length of a record") & 0xffffffffL;
                long body = in.position();
                if (body + length > fileSize) break;
                if (tag == HEAP_DUMP || tag == HEAP_DUMP_SEGMENT) out.add(new long[] {body, body + length});
                in.skip(length, "a record");
            }
        } catch (IOException | RuntimeException | InternalError e) {
            // the pass itself reports a damaged or changing file
        }
        return out;
    }

    /** Parses only the blocks of the first pass's index that may hold an object asked for. */
    private void lookup(boolean report) {
        long[] ids = pending.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        long[][] ranges = blocks.covering(ids);
        try (DumpInput.OfChannel in = new DumpInput.OfChannel(channel, 0, name,
                ByteBuffer.allocate(ObjectBlocks.BLOCK + 64))) {
            in.idSize = idSize;
            for (long[] range : ranges) {
                in.moveTo(range[0], range[1]);
                heapDump(in, range[1], null);
            }
        } catch (IOException e) {
            throw new TargetReadException("cannot read heap dump " + path + ": " + e.getMessage(), e);
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

    private final Map<Long, Integer> deferredModes = new HashMap<>();

    private int modeOf(HeapRecord r) {
        Integer m = deferredModes.remove(r.id());
        return m == null ? MODE_LEAF : m;
    }

    private void symbol(DumpInput in, long length, Map<Long, String> symbols, String what) {
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

    private void loadClass(DumpInput in, long length, Map<Long, String> symbols, String what) {
        long expected = 8 + 2L * idSize;
        if (length < expected) throw damaged(in, what + " (a class) has " + length + " bytes, expected " + expected);
        in.u4(what);
        long classId = in.id(what);
        in.u4(what);
        long nameId = in.id(what);
        in.skip(length - expected, what);
        String n = symbols.get(nameId);
        if (n != null) loadedClassNames.put(classId, n.replace('/', '.'));
    }

    /**
     * The sub-records of one heap dump segment (or of one block of it). Objects nobody asked for
     * are skipped by their length fields without reading their values: the loop reads each
     * header at once from the buffer, so a pass costs little more than reading the file.
     */
    private void heapDump(DumpInput in, long end, Map<Long, String> symbols) {
        boolean index = symbols != null;
        final int id = idSize;
        while (in.position() < end) {
            skim(in, end, index ? blocks : null, true);
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
                    int[] p = wanted(oid);
                    boolean collect = collecting(oid, classId);
                    if (p == null && !collect) {
                        in.skip(n, SUB_RECORD);
                    } else {
                        byte[] data = capture(in, n, SUB_RECORD);
                        found(new HeapRecord(oid, HeapRecord.Kind.INSTANCE, classId, 0, data.length, 0, data),
                                Math.max(p == null ? MODE_LEAF : p[0], collect ? COLLECT_DEPTH : MODE_LEAF));
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
     * by their length fields, noting only ids and offsets for the index. Stops at the first
     * record it leaves to {@link #heapDump}: one asked for, a class, a root, one that reaches
     * past the buffer or the segment, or anything odd. Kept to one method with everything it
     * reads in locals (the filter over pending ids, the open block of the index, the id size),
     * objects tested first in the order they are most frequent, each header read by absolute
     * {@code get}s, so that a fresh JVM compiles it early (on-stack replacement) and small.
     */
    private void skim(DumpInput in, long end, ObjectBlocks into, boolean checkWanted) {
        final ByteBuffer b = in.buffer;
        final long base = in.bufferStart;
        // a record must start and end inside the buffer and its segment; an object's fixed part
        // is read before that is checked, so it must lie inside the buffer
        final int limit = (int) Math.min(b.limit(), end - base);
        final int bufferEnd = b.limit();
        final long[] filter = checkWanted && !pending.isEmpty() ? filter() : null;
        final long mask = pendingMask;
        final long[] collect = collectClasses;
        final int id = idSize;
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
                if (collect != null && java.util.Arrays.binarySearch(collect,
                        wide ? b.getLong(i + 1 + 8 + 4) : b.getInt(i + 1 + 4 + 4) & 0xffffffffL) >= 0) {
                    break;
                }
            } else if (tag == OBJ_ARRAY_DUMP) {
                if (i > bufferEnd - objectHeader) break;
                length = 1 + 2 * id + 8 + (b.getInt(i + 1 + id + 4) & 0xffffffffL) * id;
            } else if (tag == PRIM_ARRAY_DUMP) {
                if (i > bufferEnd - arrayHeader) break;
                int size = PRIMITIVE_SIZE[b.get(i + 1 + id + 8) & 0xff];
                if (size == 0) break; // no primitive type: heapDump names the damage
                length = 1 + id + 9 + (b.getInt(i + 1 + id + 4) & 0xffffffffL) * size;
            } else {
                long root = rootLength(tag & 0xff, id);
                if (root < 0 || i + root > limit) break; // a class, or anything unknown
                i += (int) root;
                continue;
            }
            if (i + length > limit) break; // past the buffer or the segment: heapDump checks and reads it
            final long oid = wide ? b.getLong(i + 1) : b.getInt(i + 1) & 0xffffffffL;
            if (filter != null && (filter[(int) (mix(oid) & mask)] & (1L << ((oid * 0x9E3779B97F4A7C15L) >>> 58))) != 0
                    && pending.containsKey(oid)) {
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

    /** Bytes of each primitive element type (by HPROF basic type), 0 for anything else. */
    private static final int[] PRIMITIVE_SIZE = new int[256];

    static {
        for (int t = 0; t < 256; t++) PRIMITIVE_SIZE[t] = t == OBJECT ? 0 : Math.max(0, sizeOf(t, 8));
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

    /** Longest fixed part of a sub-record: tag, two 8-byte ids, two u4 (instance and object array). */
    private static final int MAX_SUB_HEADER = 1 + 2 * 8 + 8;

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

    private void arrayRecord(DumpInput in, long id, HeapRecord.Kind kind, long classId, int type, long count, long n,
                             String what) {
        int[] p = wanted(id);
        if (p == null) {
            in.skip(n, what);
            return;
        }
        if (count > Integer.MAX_VALUE - 8) throw damaged(in, "an array has " + count + " elements, more than a Java array");
        HeapRecord r;
        if (inflated == null && !compressed) {
            r = new HeapRecord(id, kind, classId, type, (int) count, in.position(), null);
            in.skip(n, what);
        } else {
            r = new HeapRecord(id, kind, classId, type, (int) count, 0, capture(in, n, what));
        }
        found(r, p[0]);
    }

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
        String className = loadedClassNames.getOrDefault(id, "class@0x" + Long.toHexString(id));
        classes.put(id, new HprofClass(id, className, superId, loaderId, List.copyOf(fields), statics));
        classIdsByName.computeIfAbsent(className, k -> new ArrayList<>()).add(id);
        if (className.equals(RegistryLayout.ROOT_CLASS) && statics.get(RegistryLayout.ROOT_FIELD) instanceof ObjectId) {
            long root = ((ObjectId) statics.get(RegistryLayout.ROOT_FIELD)).id();
            // located during this pass if it lies ahead (a compressed dump has no index to look it up in)
            rootId = root;
            want(root, MODE_ROOT);
        }
    }

    private static String symbol(Map<Long, String> symbols, long id) {
        String s = symbols.get(id);
        return s == null ? "?" + Long.toHexString(id) : s;
    }

    /** A reference read from the dump (static field or constant); the reader turns it into a TargetObject. */
    record ObjectId(long id) {
    }

    /** Reads one value of a basic type; boxed the way JDI's values unbox, references as {@link ObjectId}. */
    Object value(DumpInput in, int type, String what) {
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

    // ---------------------------------------------------------------- prefetch

    private void want(long id, int mode) {
        if (id == 0 || records.containsKey(id) || missing.contains(id)) return;
        int[] p = pending.get(id);
        if (p == null) {
            pending.put(id, new int[] {mode, passes});
            addToFilter(id);
            pendingChanged = true;
        }
        else p[0] = Math.max(p[0], mode);
    }

    private void found(HeapRecord r, int mode) {
        pending.remove(r.id());
        records.put(r.id(), r);
        if (!follow(r, mode)) {
            deferred.add(r);
            deferredModes.put(r.id(), mode);
        }
    }

    /** Asks for what the decoder will read next from this object; false when its class is not known yet. */
    private boolean follow(HeapRecord r, int mode) {
        switch (r.kind()) {
            case INSTANCE: {
                HprofClass c = classes.get(r.classId());
                if (c == null) return false;
                boolean string = c.name().equals("java.lang.String");
                if (!string && mode < MODE_ROOT) return true;
                List<Long> refs = new ArrayList<>();
                if (!references(r, refs, string ? "value" : null)) return false;
                for (long ref : refs) want(ref, Math.max(MODE_LEAF, mode - 1));
                return true;
            }
            case OBJECT_ARRAY:
                if (mode < MODE_CHILD) return true;
                ByteBuffer b = ByteBuffer.wrap(elementBytes(r, 0, (long) r.length() * idSize));
                for (int i = 0; i < r.length(); i++) want(idSize == 4 ? b.getInt() & 0xffffffffL : b.getLong(), mode - 1);
                return true;
            default:
                return true;
        }
    }

    /** Reference fields of an instance (only {@code onlyField} if given); false when a class is unknown. */
    private boolean references(HeapRecord r, List<Long> out, String onlyField) {
        ByteBuffer b = ByteBuffer.wrap(r.data());
        long classId = r.classId();
        for (int depth = 0; classId != 0; depth++) {
            HprofClass c = classes.get(classId);
            if (c == null || depth > classes.size()) return false;
            for (HprofClass.Field f : c.fields()) {
                int size = sizeOf(f.type(), idSize);
                if (b.remaining() < size) return true; // layout mismatch: the reader reports it on access
                if (f.type() == OBJECT) {
                    long id = idSize == 4 ? b.getInt() & 0xffffffffL : b.getLong();
                    if (onlyField == null || onlyField.equals(f.name())) out.add(id);
                } else {
                    b.position(b.position() + size);
                }
            }
            classId = c.superId();
        }
        return true;
    }

    // ---------------------------------------------------------------- bytes

    private final ObjectBlocks blocks = new ObjectBlocks();

    private void within(DumpInput in, long n, long end, long at) {
        if (in.position() + n > end) {
            throw new TargetReadException(name + " is damaged: the object record at offset " + at + " claims " + n
                    + " bytes of data, past the end of its heap dump segment at offset " + end);
        }
    }

    /** The pending entry of an object id, or null; cheap for the millions of objects nobody asked for. */
    private int[] wanted(long id) {
        if (pending.isEmpty()) return null;
        long h = (id * 0x9E3779B97F4A7C15L) >>> 58; // top 6 bits
        if ((filter()[(int) (mix(id) & pendingMask)] & (1L << h)) == 0) return null;
        return pending.get(id);
    }

    /** The filter over pending ids, built now if dropped; ids found meanwhile may stay in it: a wasted lookup at most. */
    private long[] filter() {
        if (pendingFilter == null) rebuildFilter();
        return pendingFilter;
    }

    private long[] pendingFilter;
    private long pendingMask;

    /** Adds an id to the filter, or drops the filter when it is too full to stay selective. */
    private void addToFilter(long id) {
        if (pendingFilter == null) return;
        if (pending.size() * 4 > pendingFilter.length) {
            pendingFilter = null; // rebuilt, larger, at the next lookup
            return;
        }
        pendingFilter[(int) (mix(id) & pendingMask)] |= 1L << ((id * 0x9E3779B97F4A7C15L) >>> 58);
    }

    /** A small Bloom-style filter over the pending ids: one word per slot, one bit per id. */
    private void rebuildFilter() {
        int slots = Integer.highestOneBit(Math.max(64, pending.size() * 4)) * 2;
        pendingFilter = new long[slots];
        pendingMask = slots - 1;
        for (long id : pending.keySet()) {
            pendingFilter[(int) (mix(id) & pendingMask)] |= 1L << ((id * 0x9E3779B97F4A7C15L) >>> 58);
        }
    }

    private static long mix(long id) {
        long x = id ^ (id >>> 29);
        x *= 0xBF58476D1CE4E5B9L;
        return x ^ (x >>> 32);
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
            if (done == out.length) out = java.util.Arrays.copyOf(out, (int) Math.min(size, out.length * 2L));
            int k = Math.min(out.length - done, 1 << 20);
            in.bytes(out, done, k, what);
            done += k;
        }
        return out;
    }

    private byte[] readAt(long offset, int n) {
        if (offset < 0 || n < 0 || offset + n > fileSize) {
            throw new TargetReadException(name + " is damaged: a read of " + n + " bytes at offset " + offset
                    + " passes its end at " + fileSize);
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        try {
            while (b.hasRemaining()) {
                if (channel.read(b, offset + b.position()) < 0) throw new IOException("unexpected end of file");
            }
        } catch (IOException e) {
            throw new TargetReadException("cannot read " + name + " at offset " + offset + ": " + e.getMessage(), e);
        }
        return b.array();
    }

    private TargetReadException damaged(DumpInput in, String why) {
        return new TargetReadException(name + " is damaged: " + why + " (offset " + in.position() + ")");
    }

    /**
     * Whole passes through mapped windows instead of reads into a buffer (see docs/performance.md, "Heap dumps"):
     * on by default (less CPU, no copy); {@code -Dmpilens.hprof.mmap=false} reads into a buffer instead.
     */
    private static final boolean MAPPED_PASSES = !"false".equals(System.getProperty("mpilens.hprof.mmap"));

    /** Input for a whole pass: an uncompressed dump is read in large slices into native memory (or mapped). */
    private DumpInput passInput() {
        if (compressed) return input();
        try {
            if (MAPPED_PASSES) return new DumpInput.OfMapped(channel, 0, name);
            return new DumpInput.OfChannel(channel, 0, name, ByteBuffer.allocateDirect(DumpInput.PASS_BUFFER));
        } catch (IOException e) {
            throw new TargetReadException("cannot read heap dump " + path + ": " + e.getMessage(), e);
        }
    }

    private DumpInput input() {
        try {
            if (!compressed) return new DumpInput.OfChannel(channel, 0, name);
            if (inflated != null) return new DumpInput.OfStream(new ByteArrayInputStream(inflated), name);
            return new DumpInput.OfStream(new GZIPInputStream(new Counting(Files.newInputStream(path)), 1 << 16), name);
        } catch (IOException e) {
            throw new TargetReadException(name + " is not a readable gzip-compressed dump: " + e.getMessage(), e);
        }
    }

    private long fileDone(DumpInput in) {
        if (!compressed) return in.position();
        return inflated != null ? fileSize * in.position() / Math.max(1, inflated.length) : counted;
    }

    private byte[] inflate() {
        try (InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(path)), 1 << 16)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] b = new byte[1 << 16];
            long limit = 8 * INFLATE_IN_MEMORY;
            for (int n; (n = in.read(b)) > 0; ) {
                out.write(b, 0, n);
                if (out.size() > limit) return null; // larger than worth keeping: decompress per pass
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new TargetReadException(name + " cannot be decompressed (" + e.getMessage()
                    + "): the compressed file is damaged or truncated", e);
        }
    }

    private long counted;

    /** Counts compressed bytes read, for progress. */
    private final class Counting extends FilterInputStream {
        Counting(InputStream in) {
            super(new BufferedInputStream(in, 1 << 16));
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) counted++;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) counted += n;
            return n;
        }
    }

    @Override
    public void close() {
        try {
            if (first != null) first.close();
        } finally {
            first = null;
            close(channel);
        }
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
        return classIdsByName.getOrDefault(className, List.of());
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // read-only
        }
    }
}
