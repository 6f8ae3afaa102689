package io.mpilens.api.job;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

/**
 * The job-record format, the one contract between the agent that writes the records
 * ({@code runtime-agent}'s {@code JobRecords}) and the readers that find jobs by them
 * ({@code headless}'s {@code JobDirectory}), as {@code RegistryLayout} is for the registry:
 * one small JSON object per rank, {@code <root>/<jobId>/rank-<r>.json}; directories 0700,
 * records 0600, replaced atomically; field names below.
 */
public final class JobRecordLayout {
    private JobRecordLayout() {
    }

    public static final String SCHEMA = "mpilens-job-record/1";
    /** Where the records go: this system property, else this environment variable, else {@link #root}'s default. */
    public static final String ROOT_PROPERTY = "mpilens.jobs";
    public static final String ROOT_ENV = "MPILENS_JOBS";
    /** A job id the user chooses (else the launcher's). */
    public static final String JOB_PROPERTY = "mpilens.job";
    public static final String JOB_ENV = "MPILENS_JOB";
    /**
     * What the agent prints once on standard output, before this prefix's {@code HOST:PORT}, with the
     * agent option {@code jdwpLine=true}: mpilens's launcher starts the JDWP agent quiet (else it
     * prints its "Listening for transport …" line again at every re-listen, after each debugger that
     * detaches: every collector's round) and learns the port from this line instead.
     */
    public static final String JDWP_LINE = "mpilens: JDWP listening at ";
    /** Permissions of the private directories (records are 0600: the writer's {@code writeAtomically}). */
    public static final String DIRECTORY_MODE = "rwx------";
    /** A glob for a job directory's records (ranks' and spawned processes'; {@link #isRecordFile} tells them from others). */
    public static final String RECORD_GLOB = "*.json";
    /**
     * What Open MPI puts in the environment of a process started by {@code MPI_Comm_spawn} (checked
     * with 4.1 here): {@code <parent namespace>.<spawning root's rank>:<tag>}. A process with it was
     * spawned; its own launcher namespace ({@code PMIX_NAMESPACE}) is a new one.
     */
    public static final String PARENT_PORT_ENV = "OMPI_PARENT_PORT";

    // ---- field names
    public static final String FIELD_SCHEMA = "schema";
    public static final String FIELD_JOB = "job";
    public static final String FIELD_RANK = "rank";
    public static final String FIELD_SIZE = "size";
    public static final String FIELD_PID = "pid";
    public static final String FIELD_PARENT_PID = "parentPid";
    public static final String FIELD_HOST = "host";
    public static final String FIELD_JDWP = "jdwp";
    public static final String FIELD_BINDING = "binding";
    public static final String FIELD_EPOCH = "epoch";
    public static final String FIELD_START_TIME = "startTime";
    /**
     * The process's start in clock ticks since boot ({@link ProcStat#START_TICKS}): what a reader on
     * the same host compares to tell the rank's process from a later one with its pid. The start
     * time above is wall-clock and moves when the clock is stepped (NTP, a virtual machine resumed
     * or forked). Additive: absent in older records and where {@code /proc} does not say.
     */
    public static final String FIELD_START_TICKS = "startTicks";
    public static final String FIELD_UPDATED = "updated";
    public static final String FIELD_MPI_STATE = "mpiState";
    public static final String FIELD_AGENT_VERSION = "agentVersion";
    /**
     * When the JVM exited (epoch milliseconds), written by the agent's shutdown hook: on a normal
     * exit, {@code System.exit} and SIGTERM/SIGINT/SIGHUP, not on SIGKILL or a crash. Null while
     * it runs, and for a process that died without exiting. Additive: absent in older records.
     */
    public static final String FIELD_EXITED = "exited";
    /**
     * The launcher namespace of the job that spawned this process ({@link #PARENT_PORT_ENV}), null
     * for a rank the launcher started. Such a record's {@code rank} and {@code size} are its own
     * (spawned) COMM_WORLD's; the reader decides which rank of the job it replaces. Additive.
     */
    public static final String FIELD_SPAWNED_BY = "spawnedBy";
    /** A spawned process's own launcher namespace ({@code PMIX_NAMESPACE}), null otherwise. Additive. */
    public static final String FIELD_NAMESPACE = "namespace";

    /** The record file of one rank. */
    public static String recordFileName(int rank) {
        return "rank-" + rank + ".json";
    }

    /** The record file of a spawned process: its own namespace and its rank in its own COMM_WORLD. */
    public static String spawnedRecordFileName(String namespace, int rank) {
        return "spawned-" + namespace + "-" + rank + ".json";
    }

    /** Whether a file name is a rank's ({@link #recordFileName}) or a spawned process's ({@link #spawnedRecordFileName}) record. */
    public static boolean isRecordFile(String fileName) {
        if (rankOfRecordFile(fileName) >= 0) return true;
        int dash = fileName.lastIndexOf('-');
        return fileName.startsWith("spawned-") && dash > "spawned-".length()
                && rankOfRecordFile("rank-" + fileName.substring(dash + 1)) >= 0;
    }

    /** The parent's namespace in an {@link #PARENT_PORT_ENV} value, or null when it is not one. */
    public static String parentNamespace(String parentPort) {
        if (blank(parentPort)) return null;
        int colon = parentPort.indexOf(':');
        int dot = parentPort.lastIndexOf('.', colon < 0 ? parentPort.length() : colon);
        return dot <= 0 ? null : parentPort.substring(0, dot).trim();
    }

    /** The rank a record file is for, -1 when the name is not {@code rank-<digits>.json}. */
    public static int rankOfRecordFile(String fileName) {
        String prefix = "rank-", suffix = ".json";
        if (!fileName.startsWith(prefix) || !fileName.endsWith(suffix)) return -1;
        String digits = fileName.substring(prefix.length(), fileName.length() - suffix.length());
        if (digits.isEmpty() || digits.length() > 9) return -1;
        for (int i = 0; i < digits.length(); i++) if (digits.charAt(i) < '0' || digits.charAt(i) > '9') return -1;
        return Integer.parseInt(digits);
    }

    /**
     * {@code <root>} holding one directory per job: {@code property} when set, else
     * {@code $MPILENS_JOBS}, else {@code ${XDG_RUNTIME_DIR:-/tmp}/mpilens-<uid>/jobs}.
     */
    public static Path root(Map<String, String> env, String property, String uid) {
        if (!blank(property)) return Paths.get(property);
        if (!blank(env.get(ROOT_ENV))) return Paths.get(env.get(ROOT_ENV));
        String base = env.get("XDG_RUNTIME_DIR");
        if (blank(base)) base = "/tmp";
        return Paths.get(base, "mpilens-" + uid, "jobs");
    }

    /** Whether {@link #root} is the default under {@code mpilens-<uid>} (whose parent the writer creates private). */
    public static boolean isDefaultRoot(Map<String, String> env, String property) {
        return blank(property) && blank(env.get(ROOT_ENV));
    }

    private static boolean blank(String s) {
        return s == null || s.trim().isEmpty();
    }
}
