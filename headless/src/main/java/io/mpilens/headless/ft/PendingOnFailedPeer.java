package io.mpilens.headless.ft;

/**
 * A request of a live rank that is still pending on a {@code FAILED} peer: its receive or send
 * waits for a process that is gone, so it can never complete (neither binding has ULFM's
 * failure notification, so MPI itself never completes it with an error).
 *
 * @param rank              COMM_WORLD rank of the process that holds the request
 * @param requestId         the request's registry id (per process)
 * @param call              the call that created it ({@code iRecv}, {@code Isend}, ...), null if unknown
 * @param peer              the FAILED peer as a COMM_WORLD rank
 * @param tag               its message tag
 * @param communicator      key of its communicator ({@link CommunicatorView#key()}), null when not known
 * @param communicatorLabel what users read for that communicator
 */
public record PendingOnFailedPeer(int rank, long requestId, String call, int peer, int tag, String communicator,
                                  String communicatorLabel) {
}
