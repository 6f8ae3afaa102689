package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The identity index of wrappers: what it finds, and that churn does not grow it. */
class WrapperIndexTest {
    private final WrapperIndex index = new WrapperIndex(new ReferenceQueue<>());

    @Test
    void wrappersThatComeAndGoLeaveTheTableAtItsSize() {
        // MPJ Express: every message adds two request wrappers and removes them again
        List<Object> kept = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Object w = new Object();
            kept.add(w);
            index.put(w, i, i + 1);
        }
        for (int i = 0; i < 1_000_000; i++) {
            Object a = new Object();
            Object b = new Object();
            index.put(a, 1000, 10_000 + 2L * i);
            index.put(b, 1001, 10_001 + 2L * i);
            index.remove(a);
            index.remove(b);
        }
        assertEquals(WrapperIndex.MIN_CAPACITY, index.capacity(), "a million wrappers that came and went");
        for (int i = 0; i < kept.size(); i++) {
            WrapperIndex.Entry e = index.entry(kept.get(i));
            assertNotNull(e, "wrapper " + i + " still indexed");
            assertEquals(i + 1, e.id);
        }
    }

    @Test
    void manyLiveWrappersGrowItAndRemovingThemLetsItShrinkAtTheNextRehash() {
        List<Object> live = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            Object w = new Object();
            live.add(w);
            index.put(w, i, i + 1);
        }
        assertTrue(index.capacity() >= 200_000, "at most half full: " + index.capacity());
        for (Object w : live) assertNotNull(index.entry(w));
        for (Object w : live.subList(10, live.size())) index.remove(w);
        for (int i = 0; i < 200_000; i++) {
            Object a = new Object();
            index.put(a, 0, 1);
            index.remove(a);
        }
        assertTrue(index.capacity() < 200_000, "back to the size of what lives: " + index.capacity());
        for (int i = 0; i < 10; i++) assertEquals(i + 1, index.entry(live.get(i)).id);
        assertNull(index.entry(live.get(10)));
    }

    @Test
    void randomPutsAndRemovesAgreeWithAPlainMap() {
        java.util.Random random = new java.util.Random(42);
        java.util.IdentityHashMap<Object, Long> expected = new java.util.IdentityHashMap<>();
        List<Object> known = new ArrayList<>();
        for (int step = 0; step < 300_000; step++) {
            if (known.isEmpty() || random.nextInt(3) > 0 && known.size() < 5_000) {
                Object w = new Object();
                known.add(w);
                expected.put(w, (long) step + 1);
                index.put(w, step, step + 1);
            } else {
                Object w = known.remove(random.nextInt(known.size()));
                expected.remove(w);
                index.remove(w);
                assertNull(index.entry(w), "removed at step " + step);
            }
            if (step % 10_000 == 0) {
                for (Object w : known) assertEquals(expected.get(w).longValue(), index.entry(w).id, "step " + step);
            }
        }
        for (Object w : known) assertEquals(expected.get(w).longValue(), index.entry(w).id);
    }
}
