package io.mpilens.agent.registry;

/**
 * What the weaver adds, besides {@link RequestHolder}, to the root classes of communicators,
 * windows and files of a binding whose requests the ring keys by a sequence number their wrapper
 * carries (MPJ Express, whose multicore device runs the ranks as threads of one JVM): the block of
 * numbers this holder's requests are numbered from, taken from one counter shared by the JVM
 * ({@code WrapperRequests}). A rank's communicators are its own objects, so ranks never share a
 * block, and a request is numbered with two field reads and a write on an object the creating
 * call just used, no thread-local lookup. Two threads of one rank making requests on one
 * communicator at the same moment (MPI_THREAD_MULTIPLE) can draw the same number: see
 * {@link RequestRing} on races.
 */
public interface SequenceBlock extends RequestHolder {
    /** The next number of the block (0: none taken yet). */
    int mpilens$next();

    void mpilens$next(int next);

    /** The first number past the block. */
    int mpilens$end();

    void mpilens$end(int end);
}
