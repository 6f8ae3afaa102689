package io.mpilens.headless.ft;

import io.mpilens.api.model.HandleInfo;
import java.util.List;

/**
 * An MPI call a thread of a rank is inside right now, and whether it can ever complete.
 *
 * @param rank       COMM_WORLD rank of the thread's process
 * @param thread     the thread's name
 * @param call       binding class and method, e.g. {@code mpi.Intracomm.barrier}
 * @param receiver   what the call is on: the handle's name or {@code #id} when it was mapped to
 *                   the registry, else the receiver's class (or null for a static method)
 * @param handleId   registry id of the communicator, request or window, 0 when not mapped
 * @param peer       COMM_WORLD rank of the peer of a point-to-point call or request, -1 when none or unknown
 * @param failedPeers FAILED ranks the call waits for: a collective's failed members, or its failed peer
 * @param neverCompletes the call waits for a FAILED rank: a collective on a communicator with a
 *                   FAILED member, a send/receive from or to a FAILED peer, or a wait for all of
 *                   an array of requests one of which is on a FAILED peer
 * @param requests   for a call over an array of requests ({@code waitAll}, {@code waitAny}…): the
 *                   registry id of each pending request in it, 0 for an element not found pending in
 *                   the registry; null for other calls, or when the array was not read. Under MPJ
 *                   Express, whose woven frames give no arguments, a {@code Waitall} or
 *                   {@code Sendrecv} has the one request of the {@code Wait} it is inside now
 * @param anySource  a receive from {@code MPI.ANY_SOURCE} (its own, or of the request it waits for);
 *                   {@code peer} is then -1
 * @param tag        the tag of a point-to-point call or of the request it waits for, {@link #ANY_TAG}
 *                   for {@code MPI.ANY_TAG}, {@link HandleInfo#UNKNOWN} when none or unknown
 * @param sendTo     for a send-receive ({@code sendRecv}, {@code Sendrecv}…), whose receive half
 *                   {@code peer}, {@code anySource} and {@code tag} describe: the COMM_WORLD rank it
 *                   sends to, -1 when unknown or for any other call
 * @param sendTag    the tag of a send-receive's send half, UNKNOWN when unknown or for any other call
 */
public record InFlightCall(int rank, String thread, String call, String receiver, long handleId, int peer,
                           List<Integer> failedPeers, boolean neverCompletes, List<Long> requests,
                           boolean anySource, int tag, int sendTo, int sendTag) {
    /** {@link #tag} of a receive from any tag, whatever the binding's value of {@code MPI.ANY_TAG}. */
    public static final int ANY_TAG = -1;

    public InFlightCall(int rank, String thread, String call, String receiver, long handleId, int peer,
                        List<Integer> failedPeers, boolean neverCompletes, List<Long> requests) {
        this(rank, thread, call, receiver, handleId, peer, failedPeers, neverCompletes, requests, false,
                HandleInfo.UNKNOWN);
    }

    public InFlightCall(int rank, String thread, String call, String receiver, long handleId, int peer,
                        List<Integer> failedPeers, boolean neverCompletes, List<Long> requests, boolean anySource,
                        int tag) {
        this(rank, thread, call, receiver, handleId, peer, failedPeers, neverCompletes, requests, anySource, tag, -1,
                HandleInfo.UNKNOWN);
    }

    public InFlightCall(int rank, String thread, String call, String receiver, long handleId, int peer,
                        List<Integer> failedPeers, boolean neverCompletes) {
        this(rank, thread, call, receiver, handleId, peer, failedPeers, neverCompletes, null);
    }
}
