package io.mpilens.agent.registry;

/**
 * Writes the ring of MPI exceptions: one entry per exception a binding call raised, into the
 * registry root's published {@code errCount} and {@code err*} columns; entry i lives at
 * {@code i % CAPACITY}, stamped as a row is, and a nested call's entry can be overwritten by the
 * application's outer call. Called under the root's lock only.
 */
final class ErrorRing {
    static final int CAPACITY = 64;
    /** Messages are cut here, not interned, so the ring stays bounded. */
    private static final int MESSAGE_CHARS = 200;

    private ErrorRing() {}

    /**
     * {@code replace}: the entry to overwrite (kept only while still in the ring), or -1 for a new
     * one. {@code callIndex}, {@code causeIndex}: interned strings. Returns the entry number.
     */
    static long record(HandleRegistry root, long replace, int proc, long handleId, int peer, int errorClass,
                       int errorCode, int callIndex, int causeIndex, String message) {
        boolean overwrite = replace >= 0 && replace < root.errCount && root.errCount - replace <= CAPACITY;
        long entry = overwrite ? replace : root.errCount;
        int e = (int) (entry % CAPACITY);
        SlotStamps.begin(root.errStamp, e);
        if (!overwrite) root.errTime[e] = System.nanoTime();
        root.errOwner[e] = proc;
        root.errHandle[e] = handleId;
        root.errPeer[e] = peer;
        root.errClass[e] = errorClass;
        root.errCode[e] = errorCode;
        root.errCall[e] = callIndex;
        root.errCause[e] = causeIndex;
        root.errMessage[e] = message == null || message.length() <= MESSAGE_CHARS ? message
                : message.substring(0, MESSAGE_CHARS);
        SlotStamps.end(root.errStamp, e);
        if (!overwrite) root.errCount++;
        return entry;
    }
}
