package io.mpilens.headless.hprof;

import static io.mpilens.headless.hprof.HprofFormat.HEAP_DUMP;
import static io.mpilens.headless.hprof.HprofFormat.HEAP_DUMP_SEGMENT;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The first pass over a large uncompressed dump on two threads: a second thread steps over
 * the heap dump segments of the second half of the file (by bytes) with the same skim loop
 * ({@link HprofRecordReader#skim}), each into an index of its own, while the pass reads the first
 * half. The pass then takes the index of each segment the second thread got through whole, and
 * reads every other one itself (a class, anything odd or damaged, a failure of any kind: the
 * pass's own checks then name the damage). Segments are independent in HPROF, so nothing else is
 * shared. Off by default: on the loaded 2-vCPU machine it was measured on it cost 10–25% more CPU
 * and no wall time (docs/performance.md, "Heap dumps"), and with it the first pass does not stop
 * at the registry but reads the whole dump; {@code -Dmpilens.hprof.threads=2} turns it on for
 * dumps with at least {@value #PARALLEL_FROM_DEFAULT} bytes of segments
 * ({@code -Dmpilens.hprof.parallelFrom=BYTES} changes that).
 */
final class SecondHalfSkim implements Runnable {
    private static final long PARALLEL_FROM_DEFAULT = 64L << 20;
    private static final int MAX_SEGMENT = 1 << 30;
    /** More segments than this (tiny ones) are not worth a thread, and their indexes would cost memory. */
    private static final int MAX_SEGMENTS = 1 << 16;
    private final DumpFile file;
    private final int idSize;
    private final List<long[]> segments; // {start of the body, end}
    private final Map<Long, ObjectBlocks> done = new HashMap<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private volatile boolean cancelled;
    private boolean joined;

    private SecondHalfSkim(DumpFile file, int idSize, List<long[]> segments) {
        this.file = file;
        this.idSize = idSize;
        this.segments = segments;
    }

    /**
     * Starts the second thread for the first pass over a dump whose records begin at
     * {@code headerEnd}, or returns null when the dump is small, compressed or read by one thread.
     */
    static SecondHalfSkim start(DumpFile file, int idSize, long headerEnd) {
        if (file.compressed || !DumpFile.MAPPED_PASSES || Integer.getInteger("mpilens.hprof.threads", 1) < 2) {
            return null;
        }
        List<long[]> all = segments(file, headerEnd);
        long total = 0;
        for (long[] seg : all) total += seg[1] - seg[0];
        if (all.size() < 2 || all.size() > MAX_SEGMENTS
                || total < Long.getLong("mpilens.hprof.parallelFrom", PARALLEL_FROM_DEFAULT)) {
            return null;
        }
        int from = 0;
        for (long sum = 0; from < all.size() && sum < total / 2; from++) sum += all.get(from)[1] - all.get(from)[0];
        if (from >= all.size()) return null;
        SecondHalfSkim half = new SecondHalfSkim(file, idSize, new ArrayList<>(all.subList(from, all.size())));
        Thread t = new Thread(half, "mpilens-hprof-skim");
        t.setDaemon(true);
        t.start();
        return half;
    }

    @Override
    public void run() {
        try (DumpInput in = new DumpInput.OfMapped(file.channel, segments.get(0)[0], file.name)) {
            in.idSize = idSize;
            for (long[] seg : segments) {
                if (cancelled) break;
                long length = seg[1] - seg[0];
                if (seg[0] < in.position() || length <= 0 || length > MAX_SEGMENT) continue;
                in.skip(seg[0] - in.position(), "a heap dump sub-record");
                if (!in.fill((int) length)) break;
                ObjectBlocks into = new ObjectBlocks((int) (length / ObjectBlocks.BLOCK) + 2);
                HprofRecordReader.skim(in, seg[1], into, null, null, idSize);
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

    /** The heap dump segments ({start of the body, end}) of an uncompressed dump, as far as their headers are sound. */
    private static List<long[]> segments(DumpFile file, long headerEnd) {
        List<long[]> out = new ArrayList<>();
        try (DumpInput in = new DumpInput.OfMapped(file.channel, 0, file.name)) {
            in.skip(headerEnd, "the header");
            while (in.fill(9)) {
                int tag = in.u1("a record tag");
                in.u4("the time stamp of a record");
                long length = in.u4("the length of a record") & 0xffffffffL;
                long body = in.position();
                if (body + length > file.size) break;
                if (tag == HEAP_DUMP || tag == HEAP_DUMP_SEGMENT) out.add(new long[] {body, body + length});
                in.skip(length, "a record");
            }
        } catch (IOException | RuntimeException | InternalError e) {
            // the pass itself reports a damaged or changing file
        }
        return out;
    }
}
