package io.mpilens.agent.registry;

/**
 * Open-addressing map from a request's native handle to its registry slot: the request hot
 * path needs no allocation and no reference to the application's object. Linear probing with
 * backward-shift deletion, so requests that come and go leave no tombstones behind.
 * Written by one thread at a time (a table's owner, or the registry lock's holder); a reader
 * on another thread may see it mid-change and must verify what it finds.
 */
final class LongSlotMap {
    private static final long EMPTY = 0L;
    private long[] keys;
    private int[] slots;
    private int size;

    LongSlotMap() {
        this(1024);
    }

    /** {@code capacity}: a power of two. */
    LongSlotMap(int capacity) {
        keys = new long[capacity];
        slots = new int[capacity];
    }

    int get(long key) {
        if (key == EMPTY) return -1;
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) return slots[i];
            if (k == EMPTY) return -1;
        }
    }

    /** {@link #get} from a thread that does not write this map: a stale or missed answer is possible. */
    int getRacy(long key) {
        if (key == EMPTY) return -1;
        long[] ks = keys;
        int[] ss = slots;
        if (ss.length != ks.length) return -1; // replaced mid-read
        int mask = ks.length - 1;
        int i = mix(key) & mask;
        for (int n = 0; n < ks.length; n++, i = (i + 1) & mask) {
            long k = ks[i];
            if (k == key) return ss[i];
            if (k == EMPTY) return -1;
        }
        return -1;
    }

    /** Maps key to slot; returns the slot it mapped to before, or -1. */
    int put(long key, int slot) {
        if (key == EMPTY) return -1;
        if ((size + 1) * 2 > keys.length) resize(keys.length * 2);
        long[] ks = keys;
        int mask = ks.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            long k = ks[i];
            if (k == key) {
                int old = slots[i];
                slots[i] = slot;
                return old;
            }
            if (k == EMPTY) {
                ks[i] = key;
                slots[i] = slot;
                size++;
                return -1;
            }
        }
    }

    int remove(long key) {
        if (key == EMPTY) return -1;
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (true) {
            long k = keys[i];
            if (k == EMPTY) return -1;
            if (k == key) break;
            i = (i + 1) & mask;
        }
        int removed = slots[i];
        size--;
        if (keys[(i + 1) & mask] == EMPTY) { // the common case: nothing to shift back
            keys[i] = EMPTY;
            return removed;
        }
        shiftBack(i, mask);
        return removed;
    }

    /** Shifts back the entries of the probe run after the hole, so no tombstone is needed. */
    private void shiftBack(int i, int mask) {
        int hole = i;
        for (int j = (hole + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
            int home = mix(keys[j]) & mask;
            boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                keys[hole] = keys[j];
                slots[hole] = slots[j];
                hole = j;
            }
        }
        keys[hole] = EMPTY;
    }

    int size() {
        return size;
    }

    private void resize(int capacity) {
        long[] oldKeys = keys;
        int[] oldSlots = slots;
        keys = new long[capacity];
        slots = new int[capacity];
        int mask = capacity - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            long k = oldKeys[j];
            if (k == EMPTY) continue;
            int i = mix(k) & mask;
            while (keys[i] != EMPTY) i = (i + 1) & mask;
            keys[i] = k;
            slots[i] = oldSlots[j];
        }
    }

    static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32);
    }
}
