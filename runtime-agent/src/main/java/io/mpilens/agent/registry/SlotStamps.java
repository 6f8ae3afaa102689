package io.mpilens.agent.registry;

/**
 * The seqlock bracket around a write to one published slot (a row, a history or an error
 * entry): its stamp turns odd before the slot's values are stored and even after, so a reader
 * that stopped the VM mid-write sees the slot as torn, not as garbage. Writers hold the
 * registry lock.
 */
final class SlotStamps {
    private SlotStamps() {}

    static void begin(int[] stamps, int i) {
        Ordered.setOpaque(stamps, i, stamps[i] + 1);
        Ordered.storeStoreFence();
    }

    static void end(int[] stamps, int i) {
        Ordered.setRelease(stamps, i, stamps[i] + 1);
    }
}
