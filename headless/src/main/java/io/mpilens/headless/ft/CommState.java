package io.mpilens.headless.ft;

/** FT-MPI's communicator states. */
public enum CommState {
    OK,
    /** A member failed; no communicator derived from it excludes the failed members yet. */
    DETECTED,
    /**
     * A member failed and live members are inside a call that rebuilds or shrinks it (on it or a
     * communicator derived from it), seen in their threads' frames: FT-MPI's recovery in progress.
     */
    RECOVERING,
    /** A member failed and a communicator derived from it (lineage) holds exactly its surviving members (a shrink). */
    RECOVERED,
    /** Every member failed: nothing is left to recover. */
    FAILED
}
