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
    /**
     * ULFM's revoke ({@code MPI_Comm_revoke}): a member revoked it, so every later call on it fails
     * with {@code MPI_ERR_REVOKED} until the survivors shrink it. Seen from an MPI exception of that
     * class on it. Not reachable with today's Java bindings (neither has ULFM): the model is ready
     * for one ({@link FaultModel#ULFM_ERR_REVOKED}).
     */
    REVOKED,
    /** Every member failed: nothing is left to recover. */
    FAILED
}
