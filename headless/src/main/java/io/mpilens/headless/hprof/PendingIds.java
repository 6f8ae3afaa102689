package io.mpilens.headless.hprof;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The object ids asked for and not located yet, each with its prefetch depth and the pass it was
 * asked in, and a small Bloom-style filter over them (one word per slot, one bit per id): the
 * skim loop tests the millions of ids nobody asked for against it in a few instructions each.
 */
final class PendingIds {
    private final Map<Long, int[]> pending = new HashMap<>(); // id -> {mode, pass it was asked in}
    private long[] filter;
    private long mask;

    boolean isEmpty() {
        return pending.isEmpty();
    }

    boolean contains(long id) {
        return pending.containsKey(id);
    }

    /** Asks for {@code id} in pass {@code pass}, or raises its depth; true when it was not pending before. */
    boolean add(long id, int mode, int pass) {
        int[] p = pending.get(id);
        if (p != null) {
            p[0] = Math.max(p[0], mode);
            return false;
        }
        pending.put(id, new int[] {mode, pass});
        addToFilter(id);
        return true;
    }

    void remove(long id) {
        pending.remove(id);
    }

    /** The {mode, pass} entry of an id, or null; cheap for the millions of objects nobody asked for. */
    int[] entry(long id) {
        if (pending.isEmpty()) return null;
        if ((filter()[(int) (mix(id) & mask)] & bit(id)) == 0) return null;
        return pending.get(id);
    }

    long[] sortedIds() {
        return pending.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /** Moves the ids asked for before pass {@code pass} (and still not seen) into {@code absent}. */
    void retireBefore(int pass, Set<Long> absent) {
        pending.entrySet().removeIf(e -> {
            if (e.getValue()[1] < pass) {
                absent.add(e.getKey());
                return true;
            }
            return false;
        });
    }

    /** The filter, built now if dropped; ids found meanwhile may stay in it: a wasted lookup at most. */
    long[] filter() {
        if (filter == null) rebuildFilter();
        return filter;
    }

    /** The slot mask of {@link #filter()} (read after it). */
    long mask() {
        return mask;
    }

    /** The slot of an id in the filter is {@code mix(id) & mask()}. */
    static long mix(long id) {
        long x = id ^ (id >>> 29);
        x *= 0xBF58476D1CE4E5B9L;
        return x ^ (x >>> 32);
    }

    /** The bit of an id in its slot: the top 6 bits of another hash. */
    static long bit(long id) {
        return 1L << ((id * 0x9E3779B97F4A7C15L) >>> 58);
    }

    /** Adds an id to the filter, or drops the filter when it is too full to stay selective. */
    private void addToFilter(long id) {
        if (filter == null) return;
        if (pending.size() * 4 > filter.length) {
            filter = null; // rebuilt, larger, at the next lookup
            return;
        }
        filter[(int) (mix(id) & mask)] |= bit(id);
    }

    private void rebuildFilter() {
        int slots = Integer.highestOneBit(Math.max(64, pending.size() * 4)) * 2;
        filter = new long[slots];
        mask = slots - 1;
        for (long id : pending.keySet()) filter[(int) (mix(id) & mask)] |= bit(id);
    }
}
