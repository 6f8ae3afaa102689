package io.mpilens.api.model;

import java.time.Instant;

/**
 * What the model reads of one rank's job record (the file its agent writes, schema
 * {@code mpilens-job-record/1}): which rank and incarnation it is, where its process runs, and
 * how it ended. The headless side's {@code job.JobRecord} is one; the model sees no file, path or
 * debugger address.
 */
public interface RankRecord {
    /** The rank in COMM_WORLD; for a {@link #spawned()} process, in its own COMM_WORLD. */
    int rank();

    /** 0, and one more each time the rank re-registered from a new process. */
    int epoch();

    long pid();

    /** The process's parent (the launcher's daemon), 0 when unknown. */
    long parentPid();

    /** The host the process runs on, null when the record names none. */
    String host();

    /** {@code host:port} of the JVM's JDWP listener as its agent wrote it, or null. */
    String jdwp();

    /** When the JVM exited (its agent's exit hook), null while it runs or when it died without exiting. */
    Instant exited();

    /** Whether a running job spawned it ({@code MPI_Comm_spawn}): numbered by its own COMM_WORLD. */
    boolean spawned();

    /** Whether the rank passed {@code MPI_Finalize}. */
    boolean finalized();
}
