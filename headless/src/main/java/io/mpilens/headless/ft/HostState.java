package io.mpilens.headless.ft;

/** A host's processes and launcher daemons taken together. */
public enum HostState {
    UP,
    /** Some of its ranks failed, or its launcher daemon is gone while a rank has not finalized. */
    PARTIAL,
    /** Every rank on it failed. */
    DOWN,
    /**
     * No rank on it could be read (all UNAVAILABLE: stopped, busy, or not reachable) and none is
     * known to have failed: whether the host is up is not known.
     */
    UNKNOWN
}
