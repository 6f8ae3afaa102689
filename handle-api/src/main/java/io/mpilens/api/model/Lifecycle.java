package io.mpilens.api.model;

/**
 * Lifecycle of an MPI object: the application frees its handle ({@link #FREED}), but MPI keeps
 * the object while something still references it (an orphan, reference count above zero);
 * it is {@link #RELEASED} when the last holder goes.
 */
public enum Lifecycle {
    ACTIVE, FREED, RELEASED;

    private static final Lifecycle[] BY_CODE = values();

    public byte code() {
        return (byte) ordinal();
    }

    public static Lifecycle ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown lifecycle code " + code);
        }
        return BY_CODE[code];
    }
}
