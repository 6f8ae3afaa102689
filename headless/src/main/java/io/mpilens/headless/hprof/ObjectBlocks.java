package io.mpilens.headless.hprof;

import java.util.Arrays;

/**
 * Where the objects of an uncompressed dump lie, coarsely: consecutive heap dump sub-records of
 * about {@link #BLOCK} bytes, each block with the lowest and highest object id in it. The first
 * pass builds it; later lookups parse only the blocks whose id range can hold an id asked for,
 * instead of passing over the whole dump again. HotSpot writes objects in address order, so the
 * ranges are tight; were they not, lookups would only read more blocks, never miss an object.
 * Memory: 32 bytes a block, under 1 MB for a 1 GB dump.
 */
final class ObjectBlocks {
    static final int BLOCK = 64 << 10;
    /** A dump cut into more blocks than this (millions of tiny segments) is read by whole passes. */
    private static final int MAX_BLOCKS = 1 << 20;

    private long[] start, end, min, max;
    private int count;
    private boolean open, overflow;
    private long openStart, openMin, openMax;

    ObjectBlocks() {
        this(16);
    }

    /** An index expected to hold about {@code blocks} blocks (it grows if it must). */
    ObjectBlocks(int blocks) {
        int n = Math.max(1, Math.min(blocks, 1 << 16));
        start = new long[n];
        end = new long[n];
        min = new long[n];
        max = new long[n];
    }

    /** The sub-record of object {@code id} starts at offset {@code at}. */
    void object(long id, long at) {
        if (!open || at - openStart >= BLOCK) {
            close(at);
            open = true;
            openStart = at;
            openMin = id;
            openMax = id;
        } else if (id < openMin) {
            openMin = id;
        } else if (id > openMax) {
            openMax = id;
        }
    }

    /** Offset from which {@link #object} begins a new block (at once when none is open); the skim loop keeps it in a local. */
    long openLimit() {
        return open ? openStart + BLOCK : Long.MIN_VALUE;
    }

    long openMin() {
        return openMin;
    }

    long openMax() {
        return openMax;
    }

    /** The open block's id range becomes {@code [min, max]} (a range that includes the old one: the skim loop's). */
    void widen(long min, long max) {
        if (!open) return;
        openMin = min;
        openMax = max;
    }

    /** A heap dump segment ends at {@code at}: a block never spans two. */
    void segmentEnd(long at) {
        close(at);
    }

    boolean usable() {
        return !overflow;
    }

    int size() {
        return count;
    }

    /** Offsets {@code [start, end)} of the blocks that may hold one of the sorted {@code ids}, in file order. */
    long[][] covering(long[] ids) {
        long[][] out = new long[16][];
        int n = 0;
        for (int i = 0; i < count; i++) {
            int at = Arrays.binarySearch(ids, min[i]);
            if (at < 0) at = -at - 1; // the first id >= min
            if (at < ids.length && ids[at] <= max[i]) {
                if (n == out.length) out = Arrays.copyOf(out, n * 2);
                out[n++] = new long[] {start[i], end[i]};
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** Adds the blocks of another index of later, closed segments (the second thread's, {@link SecondHalfSkim}); none is open here. */
    void append(ObjectBlocks later) {
        for (int i = 0; i < later.count; i++) add(later.start[i], later.end[i], later.min[i], later.max[i]);
        if (later.overflow) drop();
    }

    private void close(long at) {
        if (!open) return;
        open = false;
        add(openStart, at, openMin, openMax);
    }

    private void drop() {
        count = 0;
        overflow = true;
        start = end = min = max = new long[0];
    }

    private void add(long from, long to, long lo, long hi) {
        if (overflow) return;
        if (count == MAX_BLOCKS) {
            drop();
            return;
        }
        if (count == start.length) {
            int grown = count * 2;
            start = Arrays.copyOf(start, grown);
            end = Arrays.copyOf(end, grown);
            min = Arrays.copyOf(min, grown);
            max = Arrays.copyOf(max, grown);
        }
        start[count] = from;
        end[count] = to;
        min[count] = lo;
        max[count] = hi;
        count++;
    }
}
