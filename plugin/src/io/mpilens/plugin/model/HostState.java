package io.mpilens.plugin.model;

/** A host is DOWN when all its processes failed, PARTIAL when some did. */
public enum HostState {
    UP, PARTIAL, DOWN;

    public static HostState of(Iterable<ProcessState> processes) {
        int n = 0, failed = 0;
        for (ProcessState s : processes) {
            n++;
            if (s == ProcessState.FAILED) failed++;
        }
        if (failed == 0) return UP;
        return failed == n ? DOWN : PARTIAL;
    }
}
