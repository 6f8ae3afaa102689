package io.mpilens.headless.hprof;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** The instances of some classes one pass collects ({@link HeapDumpScan#instancesOf}): at most a limit of ids, in dump order. */
final class InstanceCollection {
    /** Class ids, sorted: the skim loop leaves their instances to the reader. */
    final long[] classIds;
    private final List<Long> ids = new ArrayList<>();
    private final int limit;
    private long beyond;

    InstanceCollection(Set<Long> classIds, int limit) {
        this.classIds = classIds.stream().mapToLong(Long::longValue).sorted().toArray();
        this.limit = limit;
    }

    /** True when an instance of this class is one to collect, and it is taken (not beyond the limit). */
    boolean take(long id, long classId) {
        if (Arrays.binarySearch(classIds, classId) < 0) return false;
        if (ids.size() >= limit) {
            beyond++;
            return false;
        }
        ids.add(id);
        return true;
    }

    HeapDumpScan.Instances result() {
        return new HeapDumpScan.Instances(List.copyOf(ids), beyond);
    }
}
