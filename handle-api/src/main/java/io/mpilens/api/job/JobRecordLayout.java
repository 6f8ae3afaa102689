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
    /** Permissions of the private directories (records are 0600: the writer's {@code writeAtomically}). */
    public static final String DIRECTORY_MODE = "rwx------";
    /** A glob for a job directory's records. */
    public static final String RECORD_GLOB = "rank-*.json";

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
    public static final String FIELD_UPDATED = "updated";
    public static final String FIELD_MPI_STATE = "mpiState";
    public static final String FIELD_AGENT_VERSION = "agentVersion";
    /**
     * When the JVM exited (epoch milliseconds), written by the agent's shutdown hook: on a normal
     * exit, {@code System.exit} and SIGTERM/SIGINT/SIGHUP, not on SIGKILL or a crash. Null while
     * it runs, and for a process that died without exiting. Additive: absent in older records.
     */
    public static final String FIELD_EXITED = "exited";

    /** The record file of one rank. */
    public static String recordFileName(int rank) {
        return "rank-" + rank + ".json";
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
