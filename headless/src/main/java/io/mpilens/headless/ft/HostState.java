package io.mpilens.headless.ft;

/** A host's processes and launcher daemons taken together. */
public enum HostState {
    UP,
    /** Some of its ranks failed, or its launcher daemon is gone. */
    PARTIAL,
    /** Every rank on it failed. */
    DOWN
}
