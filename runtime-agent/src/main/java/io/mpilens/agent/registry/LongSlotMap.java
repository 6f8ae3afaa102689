package io.mpilens.agent.registry;

import java.util.Arrays;

/**
 * Open-addressing map from a request's native handle to its registry slot: the request hot
 * path needs no allocation and no reference to the application's object. Guarded by the registry.
 */
final class LongSlotMap {
    private static final long EMPTY = 0L;
    private static final long DELETED = Long.MIN_VALUE;
    private long[] keys = new long[1024];
    private int[] slots = new int[1024];
    private int used;

    int get(long key) {
        if (key == EMPTY || key == DELETED) return -1;
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) return slots[i];
            if (k == EMPTY) return -1;
        }
    }

    void put(long key, int slot) {
        if (key == EMPTY || key == DELETED) return;
        if ((used + 1) * 2 > keys.length) rehash();
        int mask = keys.length - 1;
        int tomb = -1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                slots[i] = slot;
                return;
            }
            if (k == DELETED && tomb < 0) tomb = i;
            if (k == EMPTY) {
                int at = tomb >= 0 ? tomb : i;
                if (at == i) used++;
                keys[at] = key;
                slots[at] = slot;
                return;
            }
        }
    }

    int remove(long key) {
        if (key == EMPTY || key == DELETED) return -1;
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                keys[i] = DELETED;
                return slots[i];
            }
            if (k == EMPTY) return -1;
        }
    }

    private void rehash() {
        long[] oldKeys = keys;
        int[] oldSlots = slots;
        int live = 0;
        for (long k : oldKeys) if (k != EMPTY && k != DELETED) live++;
        int cap = oldKeys.length;
        while (live * 4 >= cap) cap *= 2;
        keys = new long[cap];
        slots = new int[cap];
        Arrays.fill(slots, -1);
        used = 0;
        int mask = cap - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            long k = oldKeys[j];
            if (k == EMPTY || k == DELETED) continue;
            int i = mix(k) & mask;
            while (keys[i] != EMPTY) i = (i + 1) & mask;
            keys[i] = k;
            slots[i] = oldSlots[j];
            used++;
        }
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
