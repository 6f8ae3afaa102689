package io.mpilens.agent.registry;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

/**
 * Maps the application's wrapper objects to registry slots without keeping them alive:
 * an open-addressing table of weak references keyed by identity hash. Not thread-safe; the
 * registry guards it.
 */
final class WrapperIndex {
    static final class Entry extends WeakReference<Object> {
        final int hash;
        int slot;

        Entry(Object wrapper, int hash, int slot, ReferenceQueue<Object> queue) {
            super(wrapper, queue);
            this.hash = hash;
            this.slot = slot;
        }
    }

    private static final Entry TOMBSTONE = new Entry(null, 0, -1, null);
    private final ReferenceQueue<Object> queue;
    private Entry[] table = new Entry[256];
    private int used; // live entries + tombstones

    WrapperIndex(ReferenceQueue<Object> queue) {
        this.queue = queue;
    }

    /** Slot of this wrapper, or -1. */
    int slotOf(Object wrapper) {
        Entry e = find(wrapper);
        return e == null ? -1 : e.slot;
    }

    void put(Object wrapper, int slot) {
        Entry existing = find(wrapper);
        if (existing != null) {
            existing.slot = slot;
            return;
        }
        if ((used + 1) * 2 > table.length) rehash(table.length * 2);
        int h = System.identityHashCode(wrapper);
        int mask = table.length - 1;
        for (int i = mix(h) & mask; ; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null || e == TOMBSTONE) {
                if (e == null) used++;
                table[i] = new Entry(wrapper, h, slot, queue);
                return;
            }
        }
    }

    void remove(Object wrapper) {
        int h = System.identityHashCode(wrapper);
        int mask = table.length - 1;
        for (int i = mix(h) & mask; table[i] != null; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e != TOMBSTONE && e.hash == h && e.get() == wrapper) {
                e.clear();
                table[i] = TOMBSTONE;
                return;
            }
        }
    }

    /** Forget an entry whose wrapper was collected. */
    void removeEntry(Entry dead) {
        int mask = table.length - 1;
        for (int i = mix(dead.hash) & mask; table[i] != null; i = (i + 1) & mask) {
            if (table[i] == dead) {
                table[i] = TOMBSTONE;
                return;
            }
        }
    }

    private Entry find(Object wrapper) {
        int h = System.identityHashCode(wrapper);
        int mask = table.length - 1;
        for (int i = mix(h) & mask; ; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null) return null;
            if (e != TOMBSTONE && e.hash == h && e.get() == wrapper) return e;
        }
    }

    private void rehash(int capacity) {
        Entry[] old = table;
        int live = 0;
        for (Entry e : old) if (e != null && e != TOMBSTONE && e.get() != null) live++;
        while (live * 2 >= capacity) capacity *= 2;
        table = new Entry[capacity];
        used = 0;
        int mask = capacity - 1;
        for (Entry e : old) {
            if (e == null || e == TOMBSTONE || e.get() == null) continue;
            int i = mix(e.hash) & mask;
            while (table[i] != null) i = (i + 1) & mask;
            table[i] = e;
            used++;
        }
    }

    private static int mix(int h) {
        return h * 0x9E3779B9 >>> 1;
    }
}
