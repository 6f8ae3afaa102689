package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The native-handle map against java.util.HashMap under random puts and removes. */
class LongSlotMapTest {
    @Test
    void behavesLikeAHashMapUnderRandomChurn() {
        LongSlotMap map = new LongSlotMap();
        Map<Long, Integer> reference = new HashMap<>();
        Random random = new Random(42);
        for (int step = 0; step < 200_000; step++) {
            // few distinct keys, so probe runs collide and removals shift entries back
            long key = 1 + random.nextInt(3000) * 64L;
            if (random.nextInt(3) == 0) {
                Integer expected = reference.remove(key);
                assertEquals(expected == null ? -1 : expected, map.remove(key), "remove " + key);
            } else if (random.nextBoolean()) {
                int slot = random.nextInt(1 << 20);
                reference.put(key, slot);
                map.put(key, slot);
            } else {
                Integer expected = reference.get(key);
                assertEquals(expected == null ? -1 : expected, map.get(key), "get " + key);
            }
        }
        assertEquals(reference.size(), map.size());
        for (Map.Entry<Long, Integer> e : reference.entrySet()) assertEquals(e.getValue(), map.get(e.getKey()));
    }
}
