package io.mpilens.api.model;

/** Where a process is in its MPI life, as its agent saw it. */
public enum MpiState {
    /** Agent loaded, MPI not initialised yet. */
    NOT_INITIALIZED,
    INITIALIZED,
    FINALIZED;

    private static final MpiState[] BY_CODE = values();

    public byte code() { return (byte) ordinal(); }

    public static MpiState ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown MPI state code " + code);
        }
        return BY_CODE[code];
    }
}
