package io.mpilens.agent.registry;

import java.util.Arrays;

/**
 * Keeps the side-record pool: the registry root's published {@code sidePool} and
 * {@code sidePoolUsed}, one array holding every row's side record so a snapshot reads them all
 * in one bulk read. Records are appended; a full pool is compacted to the records of live rows
 * (main rows and the shared request table's) and grown, with the root's generation odd
 * meanwhile. Called under the root's lock only.
 */
final class SidePool {
    private SidePool() {}

    /** Appends a record and returns its offset. */
    static int store(HandleRegistry root, long[] record) {
        if (root.sidePoolUsed + record.length > root.sidePool.length) compact(root, record.length);
        int at = root.sidePoolUsed;
        System.arraycopy(record, 0, root.sidePool, at, record.length);
        Ordered.storeStoreFence();
        root.sidePoolUsed = at + record.length;
        return at;
    }

    /** The record stored at {@code at} (none: {@code at} -1), as a copy. */
    static long[] copy(HandleRegistry root, int at, int len) {
        return at >= 0 ? Arrays.copyOfRange(root.sidePool, at, at + len) : new long[0];
    }

    /** {@link SideRecord#firstStackString} of the record stored at {@code at}. */
    static int firstStackString(HandleRegistry root, int at, int len) {
        return SideRecord.firstStackString(root.sidePool, at, len);
    }

    private static void compact(HandleRegistry root, int needed) {
        long[] old = root.sidePool;
        long[] id = root.id;
        int[] sideAt = root.sideAt, sideLen = root.sideLen;
        int highWater = root.highWater;
        int live = 0;
        for (int i = 0; i < highWater; i++) if (id[i] != 0 && sideAt[i] >= 0) live += sideLen[i];
        RequestTable t = root.requests().shared; // only the shared table has side records
        for (int r = 0; r < t.reqHighWater; r++) if (t.id(r) != 0 && t.sideAt(r) >= 0) live += t.sideLen(r);
        int capacity = old.length;
        while (capacity < 2 * (live + needed)) capacity *= 2;
        long[] pool = new long[capacity];
        int used = 0;
        root.generation++; // odd: readers retry
        for (int i = 0; i < highWater; i++) {
            if (id[i] != 0 && sideAt[i] >= 0) {
                System.arraycopy(old, sideAt[i], pool, used, sideLen[i]);
                sideAt[i] = used;
                used += sideLen[i];
            } else {
                sideAt[i] = -1;
            }
        }
        for (int r = 0; r < t.reqHighWater; r++) {
            if (t.id(r) != 0 && t.sideAt(r) >= 0) {
                int len = t.sideLen(r);
                System.arraycopy(old, t.sideAt(r), pool, used, len);
                t.reqSideAt[r] = used;
                used += len;
            } else if (t.reqSideAt != null) {
                t.reqSideAt[r] = -1;
            }
        }
        root.sidePool = pool;
        root.sidePoolUsed = used;
        root.generation++;
    }
}
