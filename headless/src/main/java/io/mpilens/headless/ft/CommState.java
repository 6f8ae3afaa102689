package io.mpilens.headless.ft;

/** FT-MPI's communicator states. */
public enum CommState {
    OK,
    /** A member failed; no communicator derived from it excludes the failed members yet. */
    DETECTED,
    /** A member failed and a communicator derived from it (lineage) holds exactly its surviving members (a shrink). */
    RECOVERED,
    /** Every member failed: nothing is left to recover. */
    FAILED
}
