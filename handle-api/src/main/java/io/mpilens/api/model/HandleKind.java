package io.mpilens.api.model;

/** The kinds of MPI object mpilens tracks. A binding reports the subset it has. */
public enum HandleKind {
    COMMUNICATOR, REQUEST, DATATYPE, GROUP, WINDOW, ERRHANDLER, OP, INFO, FILE, MESSAGE;

    private static final HandleKind[] BY_CODE = values();

    /** The code stored in the registry's {@code kind} column. */
    public byte code() {
        return (byte) ordinal();
    }

    public static HandleKind ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown handle kind code " + code);
        }
        return BY_CODE[code];
    }
}
