package io.mpilens.agent.job;

import io.mpilens.api.job.HostName;
import io.mpilens.api.job.JobRecordLayout;
import io.mpilens.api.job.RankVariables;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The per-rank job records with which {@code mpilens jobs} and {@code --job ID} find a job's
 * ranks: one small JSON file per rank, {@code <root>/<jobId>/rank-<r>.json}, written when MPI
 * init returns (the rank is known) and again at finalize and when the JVM's JDWP listener
 * moves. Directories are 0700, records 0600, replaced atomically (temp file + rename). Opens
 * no socket; every failure is counted in {@code lastError} and never reaches the application.
 *
 * <p>The format is read by {@code io.mpilens.headless.job.JobDirectory}; field names are the contract.
 *
 * <p>Why this file is long: a record's whole life (written at init, at finalize, when the JDWP
 * listener moves, at exit) together with each file-system failure on the way, none of which may
 * reach the application; the JSON it writes is a few lines of it.
 */
public final class JobRecords {
    private static final String JDWP_PROPERTY = "sun.jdwp.listenerAddress";
    private static final long REFRESH_MILLIS = 250;
    private static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString(JobRecordLayout.DIRECTORY_MODE);

    private static volatile Instrumentation instrumentation;
    private static volatile String agentVersion = "dev";
    private static volatile String binding = "";
    private static volatile String lastError;
    /** Rank to its record, for every rank of this JVM (several under MPJ multicore). */
    private static final Map<Integer, Record> RECORDS = new TreeMap<>();
    private static Properties agentProperties;
    private static Path jobDir;
    private static String jobId;
    private static Thread refresher;

    private JobRecords() {
    }

    /**
     * Called once by the agent's install. Nothing is written before MPI init, except in a process
     * spawned by a running job ({@link JobRecordLayout#PARENT_PORT_ENV}): it registers at once
     * (mpiState {@code STARTING}), so the job shows it joining while its parents wait in the spawn.
     */
    public static void install(Instrumentation inst, String version, String bindingId) {
        instrumentation = inst;
        agentVersion = version;
        binding = bindingId;
        if (JobRecordLayout.parentNamespace(Environment.get(JobRecordLayout.PARENT_PORT_ENV)) == null) return;
        try {
            int rank = (int) numberAfter(String.valueOf(Environment.get(RankVariables.OMPI_RANK)), "");
            int size = (int) numberAfter(String.valueOf(Environment.get(RankVariables.OMPI_SIZE)), "");
            if (rank < 0 || size <= 0) return;
            synchronized (JobRecords.class) {
                register(rank, size, "STARTING", 0);
            }
        } catch (Throwable t) {
            failed("job record of a spawned process", t);
        }
    }

    /** MPI init returned in this JVM with COMM_WORLD rank {@code rank} of {@code size}. */
    public static void initialized(int rank, int size) {
        try {
            synchronized (JobRecords.class) {
                // a spawned process's rank is its own COMM_WORLD's: the reader tells which rank of the job it replaces
                register(rank, size, "INITIALIZED", spawnedBy() != null ? 0 : nextEpoch(rank));
                if (!exitHookAdded) {
                    exitHookAdded = true;
                    addExitHook();
                }
            }
        } catch (Throwable t) {
            failed("job record at MPI init", t);
        }
    }

    private static boolean exitHookAdded;

    /**
     * Writes this JVM's record for COMM_WORLD rank {@code rank} (class lock held), with its JDWP
     * address when it listens; the refresher republishes the address if the listener moves or
     * publishes it only later.
     */
    private static void register(int rank, int size, String mpiState, int epoch) throws IOException {
        Record r = new Record(rank, size);
        r.mpiState = mpiState;
        r.epoch = epoch;
        boolean jdwp = jdwpRequested();
        r.jdwp = jdwp ? jdwpAddress() : null;
        RECORDS.put(rank, r);
        write(r);
        if (jdwp) startRefresher();
    }

    /**
     * At JVM exit (normal, {@code System.exit}, SIGTERM/SIGINT/SIGHUP — what a launcher sends
     * the ranks it ends after one died; not SIGKILL or a crash) every record of this JVM says
     * when, so a job that aborted tells the rank that died first from those the launcher ended.
     * The hook never waits for a lock, waits at most {@link #EXIT_WRITE_MILLIS} for its writes
     * (done by a daemon thread) and never throws.
     */
    private static void addExitHook() {
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() { // no lambda on the start-up path
                @Override
                public void run() {
                    exiting();
                }
            }, "mpilens-exit"));
        } catch (Throwable t) {
            failed("registering the exit hook", t);
        }
    }

    /** How long the exit hook waits for its writes: a records directory on a hung file system must not hold up the exit. */
    static final long EXIT_WRITE_MILLIS = 500;

    static void exiting() {
        try {
            final Record[] all;
            try {
                all = RECORDS.values().toArray(new Record[0]); // no lock: a thread holding it may be the one exiting
            } catch (RuntimeException e) {
                return;
            }
            final long now = System.currentTimeMillis();
            Thread writer = new Thread(AgentThreads.group(), new Runnable() {
                @Override
                public void run() {
                    for (Record r : all) {
                        r.exited = now;
                        try {
                            write(r);
                        } catch (Throwable t) {
                            // the JVM is going away: nothing to report to
                        }
                    }
                }
            }, "mpilens-exit-write");
            writer.setDaemon(true); // never keeps the JVM alive once the hook returns
            writer.start();
            writer.join(EXIT_WRITE_MILLIS);
        } catch (Throwable t) {
            // never into the application's exit
        }
    }

    /** MPI finalize returned for {@code rank}. */
    public static void finalized(int rank) {
        try {
            synchronized (JobRecords.class) {
                Record r = RECORDS.get(rank);
                if (r == null) return;
                r.mpiState = "FINALIZED";
                write(r);
            }
        } catch (Throwable t) {
            failed("job record at MPI finalize", t);
        }
    }

    /** The last failure while writing records, or null (for tests and {@code verbose}). */
    public static String lastError() {
        return lastError;
    }

    /**
     * The job id: our launcher's, else (a spawned process) the namespace of the job that spawned
     * it, else Open MPI's, else the parent process. Safe as a file name.
     */
    static String jobId(Map<String, String> env, String property, long parentPid) {
        return jobId(env, property, parentPid, null);
    }

    /**
     * The same; {@code cmdline}: this JVM's command line (NUL-separated, /proc/self/cmdline), where
     * MPJ Express's daemon names the starter that runs the job ({@link #mpjStarter}).
     */
    static String jobId(Map<String, String> env, String property, long parentPid, String cmdline) {
        String id = property;
        if (blank(id)) id = env.get(JobRecordLayout.JOB_ENV);
        if (blank(id)) id = JobRecordLayout.parentNamespace(env.get(JobRecordLayout.PARENT_PORT_ENV));
        if (blank(id)) id = env.get("PMIX_NAMESPACE");
        if (blank(id)) id = env.get("OMPI_MCA_orte_ess_jobid");
        if (blank(id)) id = mpjStarter(cmdline);
        if (blank(id)) id = "ppid-" + parentPid;
        return safe(id);
    }

    /**
     * An MPJ Express niodev rank runs {@code runtime.daemon.Wrapper PORTS NP DEVICE STARTER_HOST
     * STARTER_PORT RANK CLASS …}, started by the daemon of its host: the starter's host and port are
     * the same for every rank of the job on every host (the daemon's pid, the fallback, is not: each
     * host has its own daemon, and one daemon serves job after job); null when this is not one.
     */
    static String mpjStarter(String cmdline) {
        if (cmdline == null) return null;
        String[] args = cmdline.split("\0");
        for (int i = 0; i + 5 < args.length; i++) {
            if (!args[i].equals("runtime.daemon.Wrapper")) continue;
            String host = args[i + 4], port = args[i + 5];
            if (host.isEmpty() || port.isEmpty()) return null;
            for (int c = 0; c < port.length(); c++) {
                if (!Character.isDigit(port.charAt(c))) return null; // a loop, not a lambda: this runs at MPI init
            }
            return "mpj-" + host + "-" + port;
        }
        return null;
    }

    /** {@code id} as a file name: a character loop, not replaceAll (no regular expression compiled in every rank at MPI init). */
    static String safe(String id) {
        char[] safe = id.trim().toCharArray();
        for (int i = 0; i < safe.length; i++) {
            char c = safe[i];
            boolean ok = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-';
            if (!ok || i == 0 && c == '.') safe[i] = '_';
        }
        return new String(safe);
    }


    /** {@code host:port} from the JDWP agent's listener property ({@code dt_socket:PORT} or {@code dt_socket:HOST:PORT}). */
    static String parseListenerAddress(String value) {
        if (blank(value)) return null;
        String v = value.trim();
        int colon = v.indexOf(':');
        if (colon >= 0 && v.substring(0, colon).startsWith("dt_")) v = v.substring(colon + 1);
        if (v.isEmpty()) return null;
        if (v.chars().allMatch(Character::isDigit)) return "127.0.0.1:" + v; // no host: loopback or all interfaces
        return v;
    }

    // ------------------------------------------------------------------ internals

    private static final class Record {
        final int rank;
        final int size;
        final long pid = ThisProcess.pid();
        final long parentPid = ThisProcess.parentPid();
        final long startTime = ThisProcess.startMillis();
        final long startTicks = ThisProcess.startTicks();
        int epoch;
        String jdwp;
        String mpiState = "INITIALIZED";
        /** When the JVM exited (the exit hook), -1 while it runs. */
        volatile long exited = -1;

        Record(int rank, int size) {
            this.rank = rank;
            this.size = size;
        }
    }

    /** The job's directory, made on first use and kept: the job id must not change when the parent exits. */
    private static Path jobDir() throws IOException {
        if (jobDir != null) return jobDir;
        Map<String, String> env = Environment.map();
        long ppid = ThisProcess.parentPid();
        String property = System.getProperty(JobRecordLayout.ROOT_PROPERTY);
        Path root = JobRecordLayout.root(env, property, uid());
        boolean defaultRoot = JobRecordLayout.isDefaultRoot(env, property);
        if (defaultRoot) createPrivate(root.getParent()); // mpilens-<uid> under /tmp or $XDG_RUNTIME_DIR
        createPrivate(root);
        jobId = jobId(env, System.getProperty(JobRecordLayout.JOB_PROPERTY), ppid, ThisProcess.read("/proc/self/cmdline"));
        Path dir = root.resolve(jobId);
        createPrivate(dir);
        jobDir = dir;
        return dir;
    }

    /**
     * Makes {@code dir} (mode 0700) unless it exists; either way it must be a real directory of
     * this user (a directory planted by someone else in /tmp is refused), and it is left 0700.
     * Also the woven-class cache's ({@code WovenCache}). True when this call made it.
     */
    public static boolean createPrivate(Path dir) throws IOException {
        // one stat for type, owner and mode; made first where it is missing (the usual case, a
        // directory that exists, costs one stat: these run at every rank JVM's start-up)
        Map<String, Object> a;
        boolean made = false;
        try {
            a = Files.readAttributes(dir, "unix:isDirectory,uid,mode", LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException missing) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR_MODE));
                made = true;
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // another rank made it at the same moment: checked below
            }
            a = Files.readAttributes(dir, "unix:isDirectory,uid,mode", LinkOption.NOFOLLOW_LINKS);
        }
        if (!Boolean.TRUE.equals(a.get("isDirectory"))) {
            throw new IOException(dir + " is not a directory (or is a symbolic link)");
        }
        String owner = String.valueOf(a.get("uid"));
        if (!owner.equals(uid())) throw new IOException(dir + " belongs to uid " + owner + ", not to this user");
        if ((((Integer) a.get("mode")) & 0777) != 0700) Files.setPosixFilePermissions(dir, DIR_MODE);
        return made;
    }

    private static String uid() throws IOException {
        return ThisProcess.uid();
    }

    /** Epoch 0, or the previous record's + 1 when it was written by another process. */
    private static int nextEpoch(int rank) throws IOException {
        Path old = jobDir().resolve(JobRecordLayout.recordFileName(rank));
        if (!Files.isRegularFile(old, LinkOption.NOFOLLOW_LINKS)) return 0;
        String text = ThisProcess.read(old.toString());
        long previous = text == null ? -1 : numberAfter(text, "\"" + JobRecordLayout.FIELD_EPOCH + "\":");
        long pid = text == null ? -1 : numberAfter(text, "\"" + JobRecordLayout.FIELD_PID + "\":");
        if (previous < 0 || pid < 0) return 0;
        return pid == ThisProcess.pid() ? (int) previous : (int) previous + 1;
    }

    /** The decimal number right after {@code key} in a record we wrote, or -1. */
    static long numberAfter(String text, String key) {
        int at = text.indexOf(key);
        if (at < 0) return -1;
        int from = at + key.length();
        int to = from;
        while (to < text.length() && to - from < 18 && Character.isDigit(text.charAt(to))) to++;
        return to == from ? -1 : Long.parseLong(text.substring(from, to));
    }

    private static void write(Record r) throws IOException {
        String spawnedBy = spawnedBy();
        String name = spawnedBy == null ? JobRecordLayout.recordFileName(r.rank)
                : JobRecordLayout.spawnedRecordFileName(safe(ownNamespace()), r.rank);
        writeAtomically(jobDir().resolve(name), json(r).getBytes("UTF-8"));
    }

    /** The namespace of the job that spawned this process, null for a rank its launcher started. */
    private static String spawnedBy() {
        return JobRecordLayout.parentNamespace(Environment.get(JobRecordLayout.PARENT_PORT_ENV));
    }

    private static String ownNamespace() {
        String ns = Environment.get("PMIX_NAMESPACE");
        return blank(ns) ? "pid" + ThisProcess.pid() : ns;
    }

    private static final java.util.concurrent.atomic.AtomicLong TEMPORARIES = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Writes a 0600 file whole or not at all: a temporary beside it, renamed over it. The
     * temporary is named by pid and a counter, not by {@code Files.createTempFile}, whose
     * SecureRandom would initialise the security providers in every rank JVM (start-up CPU).
     */
    public static void writeAtomically(Path target, byte[] content) throws IOException {
        File tmp = target.resolveSibling("." + target.getFileName() + "-" + ThisProcess.pid() + "-"
                + TEMPORARIES.incrementAndGet() + ".tmp").toFile();
        try {
            // java.io, not a NIO channel: a channel's first use loads the JDK's NIO natives and
            // ≈ 25 classes in every rank JVM. The name is unique to this process; the directory
            // is private (0700, this user's), and the file is made 0600 before it is renamed.
            try (FileOutputStream out = new FileOutputStream(tmp)) {
                out.write(content);
            }
            if (!(tmp.setReadable(false, false) && tmp.setWritable(false, false) && tmp.setExecutable(false, false)
                    && tmp.setReadable(true, true) && tmp.setWritable(true, true))) {
                throw new IOException("cannot make " + tmp + " private (0600)");
            }
            // rename(2): atomic, replaces the target
            if (!tmp.renameTo(target.toFile())) throw new IOException("cannot rename " + tmp + " to " + target);
        } finally {
            if (tmp.exists()) tmp.delete();
        }
    }

    private static String json(Record r) {
        StringBuilder b = new StringBuilder(320);
        field(b, JobRecordLayout.FIELD_SCHEMA, quote(JobRecordLayout.SCHEMA));
        field(b, JobRecordLayout.FIELD_JOB, quote(jobId));
        field(b, JobRecordLayout.FIELD_RANK, Integer.toString(r.rank));
        field(b, JobRecordLayout.FIELD_SIZE, Integer.toString(r.size));
        field(b, JobRecordLayout.FIELD_PID, Long.toString(r.pid));
        field(b, JobRecordLayout.FIELD_PARENT_PID, Long.toString(r.parentPid));
        field(b, JobRecordLayout.FIELD_HOST, quote(HostName.local()));
        field(b, JobRecordLayout.FIELD_JDWP, r.jdwp == null ? "null" : quote(r.jdwp));
        field(b, JobRecordLayout.FIELD_BINDING, quote(binding));
        field(b, JobRecordLayout.FIELD_EPOCH, Integer.toString(r.epoch));
        field(b, JobRecordLayout.FIELD_START_TIME, Long.toString(r.startTime));
        if (r.startTicks >= 0) field(b, JobRecordLayout.FIELD_START_TICKS, Long.toString(r.startTicks));
        field(b, JobRecordLayout.FIELD_UPDATED, Long.toString(System.currentTimeMillis()));
        field(b, JobRecordLayout.FIELD_MPI_STATE, quote(r.mpiState));
        field(b, JobRecordLayout.FIELD_AGENT_VERSION, quote(agentVersion));
        field(b, JobRecordLayout.FIELD_EXITED, r.exited < 0 ? "null" : Long.toString(r.exited));
        String spawnedBy = spawnedBy();
        if (spawnedBy != null) {
            field(b, JobRecordLayout.FIELD_SPAWNED_BY, quote(spawnedBy));
            field(b, JobRecordLayout.FIELD_NAMESPACE, quote(ownNamespace()));
        }
        b.append("}\n");
        return b.toString();
    }


    private static void field(StringBuilder b, String name, String json) {
        b.append(b.length() == 0 ? "{" : ",").append('"').append(name).append("\":").append(json);
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    /**
     * The JVM's JDWP listener, as the JDWP agent publishes it in the agent properties (it follows
     * a re-listen on a new port after a debugger detaches). Null without JDWP.
     */
    private static String jdwpAddress() {
        try {
            if (agentProperties == null) {
                Module base = Object.class.getModule();
                Instrumentation inst = instrumentation;
                if (inst != null && !base.isExported("jdk.internal.vm", JobRecords.class.getModule())) {
                    inst.redefineModule(base, Set.of(), Map.of("jdk.internal.vm", Set.of(JobRecords.class.getModule())),
                            Map.of(), Set.of(), Map.of());
                }
                agentProperties = (Properties) Class.forName("jdk.internal.vm.VMSupport")
                        .getMethod("getAgentProperties").invoke(null);
            }
            return parseListenerAddress(agentProperties.getProperty(JDWP_PROPERTY));
        } catch (Throwable t) {
            failed("reading the JDWP listener address", t);
            return null;
        }
    }

    /**
     * Agent option {@code jdwpLine=true}: the JDWP listener's address, once, on standard output
     * ({@link JobRecordLayout#JDWP_LINE}), for a launcher that starts the JDWP agent quiet. The JDWP
     * agent must come before {@code -javaagent} on the command line: it publishes its address when
     * it starts listening, and agents start in command-line order. Never throws.
     */
    public static void announceJdwp(Instrumentation inst) {
        try {
            if (instrumentation == null) instrumentation = inst;
            String address = jdwpAddress();
            if (address != null) {
                System.out.println(JobRecordLayout.JDWP_LINE + address);
                System.out.flush();
            } else {
                System.err.println("mpilens: jdwpLine: no JDWP listener is known yet (-agentlib:jdwp must come before"
                        + " -javaagent)");
            }
        } catch (Throwable t) {
            failed("announcing the JDWP listener", t);
        }
    }

    /**
     * Whether this JVM was started with a JDWP agent ({@code -agentlib:jdwp} or {@code -Xrunjdwp},
     * on its command line or in the launcher's option variables): without one there is no
     * listener to publish or follow, and neither the property read nor the refresher is needed.
     */
    static boolean jdwpRequested() {
        for (String v : new String[] {Environment.get("JAVA_TOOL_OPTIONS"), Environment.get("JDK_JAVA_OPTIONS"),
                Environment.get("_JAVA_OPTIONS")}) {
            if (v != null && v.contains("jdwp")) return true;
        }
        try {
            String cmdline = ThisProcess.read("/proc/self/cmdline");
            return cmdline == null || cmdline.contains("jdwp");
        } catch (RuntimeException e) {
            return true; // cannot tell: look for a listener as before
        }
    }

    /** Rewrites the records when the JDWP listener moved; a property read every 250 ms. */
    private static void startRefresher() {
        if (refresher != null) return;
        refresher = new Thread(AgentThreads.group(), () -> {
            while (true) {
                try {
                    Thread.sleep(REFRESH_MILLIS);
                    synchronized (JobRecords.class) {
                        String now = jdwpAddress();
                        for (Record r : RECORDS.values()) {
                            if (now != null && !now.equals(r.jdwp)) {
                                r.jdwp = now;
                                write(r);
                            }
                        }
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Throwable t) {
                    failed("refreshing the job record", t);
                }
            }
        }, "mpilens-job-record");
        refresher.setDaemon(true);
        refresher.setPriority(Thread.MIN_PRIORITY);
        refresher.start();
    }

    private static void failed(String where, Throwable t) {
        String message = where + ": " + t;
        if (!message.equals(lastError)) {
            lastError = message;
            System.err.println("mpilens: no job record (" + message + "); the application is not affected");
        }
    }

    private static boolean blank(String s) {
        return s == null || s.trim().isEmpty();
    }
}
