package io.mpilens.api.model;

import java.util.Objects;

/**
 * An MPI exception a binding call raised in the application, as the agent recorded it: which
 * call, on which handle, towards which peer, and what the binding said. Point-to-point calls
 * carry their peer; collectives and calls whose peer is not known have {@link HandleInfo#UNKNOWN}.
 */
public final class MpiError {
    private final long nanoTime;
    private final int rank;
    private final String call;
    private final long handleId;
    private final int peer;
    private final int errorClass;
    private final int errorCode;
    private final String causeClass;
    private final String message;

    public MpiError(long nanoTime, int rank, String call, long handleId, int peer, int errorClass, int errorCode,
                    String causeClass, String message) {
        this.nanoTime = nanoTime;
        this.rank = rank;
        this.call = call;
        this.handleId = handleId;
        this.peer = peer;
        this.errorClass = errorClass;
        this.errorCode = errorCode;
        this.causeClass = causeClass;
        this.message = message;
    }

    /** {@code System.nanoTime()} in the target JVM: orders errors of one JVM, not across JVMs. */
    public long nanoTime() { return nanoTime; }
    /** COMM_WORLD rank of the process whose call threw, {@link HandleInfo#UNKNOWN} if not known. */
    public int rank() { return rank; }
    /** The binding method that threw, e.g. {@code barrier} or {@code Send}. */
    public String call() { return call; }
    /** Registry id of the communicator, request or window the call was on; 0 if not known. */
    public long handleId() { return handleId; }
    /** Peer rank of a point-to-point call, {@link HandleInfo#UNKNOWN} otherwise. */
    public int peer() { return peer; }
    /** MPI error class (Open MPI's {@code getErrorClass()}), {@link HandleInfo#UNKNOWN} if the binding gives none. */
    public int errorClass() { return errorClass; }
    public int errorCode() { return errorCode; }
    /** Class name of the innermost cause, e.g. {@code java.nio.channels.ClosedChannelException}. */
    public String causeClass() { return causeClass; }
    public String message() { return message; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MpiError)) return false;
        MpiError e = (MpiError) o;
        return nanoTime == e.nanoTime && rank == e.rank && handleId == e.handleId && peer == e.peer
                && errorClass == e.errorClass && errorCode == e.errorCode && Objects.equals(call, e.call)
                && Objects.equals(causeClass, e.causeClass) && Objects.equals(message, e.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(nanoTime, rank, call, handleId, peer, errorClass, errorCode, causeClass, message);
    }

    @Override
    public String toString() {
        return "MpiError[" + call + " on " + HandleIds.label(handleId) + (peer == HandleInfo.UNKNOWN ? "" : " peer " + peer)
                + ": " + causeClass + ": " + message + "]";
    }
}
