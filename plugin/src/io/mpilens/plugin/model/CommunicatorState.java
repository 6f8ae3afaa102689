package io.mpilens.plugin.model;

/** FT-MPI's communicator states, derived from the member processes' states. */
public enum CommunicatorState {
    OK, DETECTED, FAILED;

    /** Some member failed: DETECTED; every member failed: FAILED. */
    public static CommunicatorState of(Iterable<ProcessState> members) {
        int n = 0, failed = 0;
        for (ProcessState s : members) {
            n++;
            if (s == ProcessState.FAILED) failed++;
        }
        if (failed == 0) return OK;
        return failed == n ? FAILED : DETECTED;
    }
}
