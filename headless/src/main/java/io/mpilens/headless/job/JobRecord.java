package io.mpilens.headless.job;

import io.mpilens.api.model.RankRecord;
import io.mpilens.headless.jdi.JdwpAddress;
import java.nio.file.Path;
import java.time.Instant;

/**
 * What one rank's agent wrote about itself (schema {@code mpilens-job-record/1}, written by the
 * runtime agent's {@code JobRecords}): where to find it and which incarnation it is. The model
 * ({@code ft}) sees it as a {@link RankRecord}, without its file and addresses.
 *
 * @param jdwp    {@code host:port} of the JVM's JDWP listener, or null when it has none
 * @param epoch   0, and one more each time the rank re-registered from a new process
 * @param mpiState {@code INITIALIZED} or {@code FINALIZED}
 * @param exited  when the JVM exited (its agent's exit hook: a normal exit, {@code System.exit}, a
 *                SIGTERM from a launcher), null while it runs or when it died without exiting
 *                (SIGKILL, a crash) or its agent predates the field
 * @param spawnedBy the launcher namespace of the job that spawned this process ({@code MPI_Comm_spawn}),
 *                null for a rank the launcher started; then {@code rank} and {@code size} are those
 *                of the process's own COMM_WORLD, and the job model decides which rank it replaces
 * @param namespace a spawned process's own launcher namespace, null otherwise
 * @param share   {@code host:port} of a running share ({@code mpilens share}) that holds this JVM's
 *                JDWP connection and serves it to any number of debuggers; null when none does
 * @param startTicks the process's start in clock ticks since boot ({@code /proc/<pid>/stat} field
 *                22), -1 when the record does not say (an older agent, not Linux): unlike
 *                {@code startTime}, no step of the wall clock moves it ({@code ProcessStart})
 */
public record JobRecord(String job, int rank, int size, long pid, long parentPid, String host, String jdwp,
                        String binding, int epoch, Instant startTime, Instant updated, String mpiState,
                        String agentVersion, Path file, Instant exited, String spawnedBy, String namespace,
                        String share, long startTicks) implements RankRecord {

    /** A record as its agent wrote it, with no share. */
    public JobRecord(String job, int rank, int size, long pid, long parentPid, String host, String jdwp,
                     String binding, int epoch, Instant startTime, Instant updated, String mpiState,
                     String agentVersion, Path file, Instant exited, String spawnedBy, String namespace, long startTicks) {
        this(job, rank, size, pid, parentPid, host, jdwp, binding, epoch, startTime, updated, mpiState, agentVersion,
                file, exited, spawnedBy, namespace, null, startTicks);
    }

    /** A record that does not say its start in clock ticks. */
    public JobRecord(String job, int rank, int size, long pid, long parentPid, String host, String jdwp,
                     String binding, int epoch, Instant startTime, Instant updated, String mpiState,
                     String agentVersion, Path file, Instant exited, String spawnedBy, String namespace) {
        this(job, rank, size, pid, parentPid, host, jdwp, binding, epoch, startTime, updated, mpiState, agentVersion,
                file, exited, spawnedBy, namespace, null, -1);
    }

    /** A rank the launcher started. */
    public JobRecord(String job, int rank, int size, long pid, long parentPid, String host, String jdwp,
                     String binding, int epoch, Instant startTime, Instant updated, String mpiState,
                     String agentVersion, Path file, Instant exited) {
        this(job, rank, size, pid, parentPid, host, jdwp, binding, epoch, startTime, updated, mpiState, agentVersion,
                file, exited, null, null);
    }

    /** Whether a running job spawned it (it is not one of the ranks the launcher started). */
    public boolean spawned() {
        return spawnedBy != null;
    }

    public boolean finalized() {
        return "FINALIZED".equals(mpiState);
    }

    /**
     * The JDWP address to attach to, or null: the share's port while a share serves this JVM (the
     * JVM's own listener then has its one debugger, the share), else the JVM's own.
     */
    public JdwpAddress jdwpAddress() {
        return share != null ? JdwpAddress.parse(share) : jvmAddress();
    }

    /** The JVM's own JDWP listener, as its agent wrote it, or null: what a share connects to. */
    public JdwpAddress jvmAddress() {
        return jdwp == null ? null : JdwpAddress.parse(jdwp);
    }

    /** This record, read through the share at {@code address}. */
    public JobRecord sharedAt(String address) {
        return new JobRecord(job, rank, size, pid, parentPid, host, jdwp, binding, epoch, startTime, updated, mpiState,
                agentVersion, file, exited, spawnedBy, namespace, address, startTicks);
    }
}
