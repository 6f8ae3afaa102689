package io.mpilens.plugin.model;

import io.mpilens.api.model.MpiState;

/**
 * State of one MPI process as the views show it (DESIGN §6 names). Until the headless
 * fault-tolerance model exists (issue 4) it is derived from what the debugger knows: its
 * connection to the rank and the agent's MPI state.
 */
public enum ProcessState {
    JOINING, OK, UNAVAILABLE, FAILED, FINALIZED;

    /**
     * @param connectionLost the rank's debug target is terminated or disconnected
     * @param answered the rank's registry was read in this refresh
     * @param mpiState what the agent reported, null when it was not read
     */
    public static ProcessState of(boolean connectionLost, boolean answered, MpiState mpiState) {
        if (connectionLost) return FAILED;
        if (!answered || mpiState == null) return UNAVAILABLE; // slow or stopped is not dead
        switch (mpiState) {
            case NOT_INITIALIZED: return JOINING;
            case FINALIZED: return FINALIZED;
            default: return OK;
        }
    }
}
