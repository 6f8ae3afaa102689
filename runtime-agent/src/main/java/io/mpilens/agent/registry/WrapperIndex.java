package io.mpilens.agent.registry;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

/**
 * Maps the application's wrapper objects to registry slots without keeping them alive:
 * an open-addressing table of weak references keyed by identity hash, linear probing with
 * backward-shift deletion (no tombstones: wrappers that come and go, one or two MPJ Express
 * requests per message, leave nothing behind to rehash). Not thread-safe; the registry guards it.
 *
 * <p>Part of the registry contract ({@code RegistryLayout.WRAPPERS}): a debugger or a heap-dump
 * reader maps a wrapper to its handle id by reading {@code table[]} (null and cleared entries
 * skipped) and each entry's {@code referent} (the wrapper) and {@code id}. An entry may outlive
 * its handle (freed and then released): its id then names no live row, and the agent checks
 * the id before it trusts an entry's slot.
 */
final class WrapperIndex {
    static final class Entry extends WeakReference<Object> {
        final int hash;
        int slot;
        /** The handle's registry id (contract field {@code RegistryLayout.WRAPPER_ID}). */
        long id;

        Entry(Object wrapper, int hash, int slot, long id, ReferenceQueue<Object> queue) {
            super(wrapper, queue);
            this.hash = hash;
            this.slot = slot;
            this.id = id;
        }
    }

    private final ReferenceQueue<Object> queue;
    static final int MIN_CAPACITY = 256;
    private Entry[] table = new Entry[MIN_CAPACITY];
    private int used; // entries in the table (their wrappers may have been collected since)

    WrapperIndex(ReferenceQueue<Object> queue) {
        this.queue = queue;
    }

    /** The entry of this wrapper, or null. */
    Entry entry(Object wrapper) {
        return find(wrapper);
    }

    void put(Object wrapper, int slot, long id) {
        Entry existing = find(wrapper);
        if (existing != null) {
            existing.id = 0; // a reader sees the old id, 0, or the new one, never a mix with the old slot
            existing.slot = slot;
            existing.id = id;
            return;
        }
        if ((used + 1) * 2 > table.length) rehash();
        int h = System.identityHashCode(wrapper);
        int mask = table.length - 1;
        int i = mix(h) & mask;
        while (table[i] != null) i = (i + 1) & mask;
        table[i] = new Entry(wrapper, h, slot, id, queue);
        used++;
    }

    void remove(Object wrapper) {
        int h = System.identityHashCode(wrapper);
        int mask = table.length - 1;
        for (int i = mix(h) & mask; table[i] != null; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e.hash == h && e.get() == wrapper) {
                e.clear();
                delete(i);
                return;
            }
        }
    }

    /** Forget an entry whose wrapper was collected. */
    void removeEntry(Entry dead) {
        int mask = table.length - 1;
        for (int i = mix(dead.hash) & mask; table[i] != null; i = (i + 1) & mask) {
            if (table[i] == dead) {
                delete(i);
                return;
            }
        }
    }

    /** Empties slot i and moves back the entries of its probe run that may no longer be reached. */
    private void delete(int i) {
        Entry[] t = table;
        int mask = t.length - 1;
        int hole = i;
        for (int j = (hole + 1) & mask; t[j] != null; j = (j + 1) & mask) {
            int home = mix(t[j].hash) & mask;
            // t[j] stays where it is if its home lies cyclically in (hole, j]
            boolean stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (!stays) {
                t[hole] = t[j];
                hole = j;
            }
        }
        t[hole] = null;
        used--;
        // after a peak of live wrappers, give the memory back once few are left
        if (t.length > MIN_CAPACITY && used * 16 < t.length) rehash();
    }

    private Entry find(Object wrapper) {
        int h = System.identityHashCode(wrapper);
        int mask = table.length - 1;
        for (int i = mix(h) & mask; ; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null) return null;
            if (e.hash == h && e.get() == wrapper) return e;
        }
    }

    /**
     * The table is half full, or a sixteenth full after deletions. The new size follows the entries whose wrappers are still alive
     * (at most a quarter full, at least {@link #MIN_CAPACITY}); entries of collected wrappers
     * are dropped here if the reference queue has not brought them yet.
     */
    private void rehash() {
        Entry[] old = table;
        int live = 0;
        for (Entry e : old) if (e != null && e.get() != null) live++;
        int capacity = MIN_CAPACITY;
        while (live * 4 > capacity) capacity *= 2;
        table = new Entry[capacity];
        used = 0;
        int mask = capacity - 1;
        for (Entry e : old) {
            if (e == null || e.get() == null) continue;
            int i = mix(e.hash) & mask;
            while (table[i] != null) i = (i + 1) & mask;
            table[i] = e;
            used++;
        }
    }

    /** Slots of the table (tests). */
    int capacity() {
        return table.length;
    }

    private static int mix(int h) {
        return h * 0x9E3779B9 >>> 1;
    }
}
