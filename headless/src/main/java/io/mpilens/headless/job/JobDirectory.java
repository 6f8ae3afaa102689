package io.mpilens.headless.job;

import io.mpilens.api.job.JobRecordLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The per-user directory where each rank's agent registers itself:
 * {@code ${XDG_RUNTIME_DIR:-/tmp}/mpilens-<uid>/jobs/<jobId>/rank-<r>.json} (or
 * {@code $MPILENS_JOBS/<jobId>/…}). Only directories and records of this user without group or
 * other permissions are believed: anything else is refused with the reason, since a record
 * decides which address mpilens connects a debugger to.
 */
public final class JobDirectory {
    private static final Set<PosixFilePermission> GROUP_OR_OTHER = Set.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    /** How many known job ids an error message names (newest first). */
    private static final int KNOWN_SHOWN = 8;

    private final Path root;
    private final String uid;

    public JobDirectory(Path root) {
        this.root = root;
        this.uid = currentUid();
    }

    /** The directory the agents of this user write to, as they compute it. */
    public static JobDirectory forCurrentUser(Map<String, String> env) {
        return new JobDirectory(JobRecordLayout.root(env, System.getProperty(JobRecordLayout.ROOT_PROPERTY), currentUid()));
    }

    public Path root() {
        return root;
    }

    /** One registered job: its records, and the files that were refused (with why). */
    public record JobEntry(String id, Path dir, List<JobRecord> records, List<String> refused) {
        public int size() {
            return records.stream().mapToInt(JobRecord::size).max().orElse(records.size());
        }
    }

    /** Every job with at least one record or refusal, newest first. */
    public List<JobEntry> jobs() throws IOException {
        List<JobEntry> out = new ArrayList<>();
        for (JobEntry j : directories()) if (!j.records().isEmpty() || !j.refused().isEmpty()) out.add(j);
        return out;
    }

    /** Every job directory, also those with nothing (or only an unfinished write) in them, newest first. */
    private List<JobEntry> directories() throws IOException {
        List<JobEntry> out = new ArrayList<>();
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) return out;
        String bad = unsafe(root, true);
        if (bad != null) throw new IOException(bad);
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
            for (Path d : dirs) {
                if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) continue;
                out.add(read(d));
            }
        }
        sortNewestFirst(out);
        return out;
    }

    /** One job by id; fails with the known ids when there is no such job. */
    public JobEntry job(String id) throws IOException {
        if (id == null || id.isBlank() || id.contains("/") || id.startsWith(".")) {
            throw new IOException("'" + id + "' is not a job id: run 'mpilens jobs' to list them");
        }
        Path d = root.resolve(id);
        if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
            List<String> known = new ArrayList<>();
            for (JobEntry j : jobs()) known.add(j.id());
            String list = known.size() <= KNOWN_SHOWN ? String.join(", ", known)
                    : String.join(", ", known.subList(0, KNOWN_SHOWN)) + " and " + (known.size() - KNOWN_SHOWN)
                    + " more ('mpilens jobs' lists them, 'mpilens jobs --prune' removes ended ones)";
            throw new IOException("no job '" + id + "' in " + root + (known.isEmpty() ? " (no jobs registered)"
                    : "; known: " + list) + ". Ranks register when MPI_Init returns in a JVM"
                    + " started with the mpilens agent.");
        }
        String bad = unsafe(root, true);
        if (bad != null) throw new IOException(bad);
        return read(d);
    }

    /**
     * {@code r} as its file says now, for what the rank wrote after {@code r} was read: its agent
     * marks MPI finalize in the file before the process exits, so a reader that read the records,
     * then found the process gone, reads the mark here and does not call a rank that finalized and
     * exited in between failed. {@code r} itself when the file is gone, refused, unreadable or
     * another process's now (a new incarnation of the rank); the share's port stays.
     */
    public JobRecord reread(JobRecord r) {
        if (r.file() == null) return r;
        try {
            if (unsafe(r.file(), false) != null) return r;
            JobRecord now = parse(Files.readString(r.file(), StandardCharsets.UTF_8), r.file());
            if (now.pid() != r.pid() || now.epoch() != r.epoch() || !Objects.equals(now.host(), r.host())) return r;
            return r.share() != null ? now.sharedAt(r.share()) : now;
        } catch (IOException | RuntimeException e) {
            return r;
        }
    }

    /** What {@link #prune} did to one job. */
    public record Pruned(String id, int recordsRemoved, boolean directoryRemoved, String keptBecause) {
    }

    /**
     * Removes the records of jobs whose processes have all ended ({@code ended} says so for every
     * record), temporary record files left by a process that died while writing one (older than
     * {@link #UNFINISHED_WRITE}), and the directories when nothing else is left in them (a
     * directory with no record at all only once it is that old too: an agent may be registering).
     * Only this user's private files are touched (the ones {@link #jobs()} believes); refused
     * files, foreign files and jobs with a live rank are left alone.
     */
    public List<Pruned> prune(java.util.function.Predicate<JobRecord> ended) throws IOException {
        return prune(ended, Instant.now());
    }

    /**
     * An agent writes its record to a temporary file and renames it, in milliseconds; a temporary
     * file (or an empty job directory) older than this was left by a process that died in between.
     */
    static final java.time.Duration UNFINISHED_WRITE = java.time.Duration.ofMinutes(1);

    List<Pruned> prune(java.util.function.Predicate<JobRecord> ended, Instant now) throws IOException {
        List<Pruned> out = new ArrayList<>();
        for (JobEntry j : directories()) {
            if (j.records().isEmpty() && !j.refused().isEmpty()) {
                out.add(new Pruned(j.id(), 0, false, "only refused files"));
                continue;
            }
            if (!j.records().stream().allMatch(ended)) {
                out.add(new Pruned(j.id(), 0, false, "a rank may still run"));
                continue;
            }
            int removed = 0;
            for (JobRecord r : j.records()) {
                if (unsafe(r.file(), false) == null && Files.deleteIfExists(r.file())) removed++;
            }
            boolean quiet = olderThan(j.dir(), now); // before a removal below touches it
            removeUnfinishedWrites(j.dir(), now);
            ShareRecords.removeEnded(j.dir(), this);
            if (j.records().isEmpty() && !quiet) {
                out.add(new Pruned(j.id(), 0, false, "no records yet")); // an agent may be registering
                continue;
            }
            boolean dirRemoved = false;
            String kept = null;
            try (DirectoryStream<Path> rest = Files.newDirectoryStream(j.dir())) {
                if (rest.iterator().hasNext()) kept = "other files are in " + j.dir();
            }
            if (kept == null && unsafe(j.dir(), true) == null) {
                try {
                    Files.delete(j.dir());
                    dirRemoved = true;
                } catch (java.nio.file.DirectoryNotEmptyException e) {
                    kept = "a file appeared in " + j.dir(); // an agent registering right now
                }
            }
            out.add(new Pruned(j.id(), removed, dirRemoved, kept));
        }
        return out;
    }

    /** This user's temporary record files in {@code dir} older than {@link #UNFINISHED_WRITE}. */
    private void removeUnfinishedWrites(Path dir, Instant now) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, ".rank-*.tmp")) {
            for (Path f : files) {
                if (unsafe(f, false) == null && olderThan(f, now)) Files.deleteIfExists(f);
            }
        }
    }

    private static boolean olderThan(Path p, Instant now) throws IOException {
        Instant modified = Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toInstant();
        return modified.plus(UNFINISHED_WRITE).isBefore(now);
    }

    private JobEntry read(Path dir) throws IOException {
        List<JobRecord> records = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        String badDir = unsafe(dir, true);
        if (badDir != null) {
            refused.add(badDir);
            return new JobEntry(dir.getFileName().toString(), dir, records, refused);
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, JobRecordLayout.RECORD_GLOB)) {
            for (Path f : files) {
                if (!JobRecordLayout.isRecordFile(f.getFileName().toString())) continue;
                String bad = unsafe(f, false);
                if (bad != null) {
                    refused.add(bad);
                    continue;
                }
                try {
                    records.add(parse(Files.readString(f, StandardCharsets.UTF_8), f));
                } catch (IOException | RuntimeException e) {
                    refused.add(f + ": not a job record (" + e.getMessage() + "); delete it");
                }
            }
        }
        return entry(dir.getFileName().toString(), dir, ShareRecords.applied(records, ShareRecords.read(dir, this)), refused);
    }

    /**
     * A job of {@code records} read here or on other hosts (their collectors'), in this directory's
     * order: the launcher's ranks first, then spawned processes in the order they started.
     */
    public static JobEntry entry(String id, Path dir, List<JobRecord> records, List<String> refused) {
        List<JobRecord> sorted = new ArrayList<>(records);
        sorted.sort(Comparator.comparing(JobRecord::spawned).thenComparing(r -> r.spawned() ? r.startTime() : Instant.EPOCH)
                .thenComparingInt(JobRecord::rank));
        return new JobEntry(id, dir, sorted, refused);
    }

    /** Jobs newest first (by their first rank's start), as {@link #jobs()} lists them. */
    public static void sortNewestFirst(List<JobEntry> jobs) {
        jobs.sort(Comparator.comparing((JobEntry j) -> j.records().stream().map(JobRecord::startTime)
                .min(Comparator.naturalOrder()).orElse(Instant.EPOCH)).reversed().thenComparing(JobEntry::id));
    }

    /** Null when {@code p} is this user's and private; otherwise the reason it is refused. */
    String unsafe(Path p, boolean directory) throws IOException {
        if (Files.isSymbolicLink(p)) return p + " is a symbolic link: refused (records must be plain files of this user)";
        if (directory ? !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) : !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            return p + " is not a " + (directory ? "directory" : "regular file") + ": refused";
        }
        String owner = String.valueOf(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        if (!owner.equals(uid)) {
            return p + " belongs to " + Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName() + " (uid " + owner
                    + "), not to you (uid " + uid + "): refused, a record decides where mpilens attaches a debugger."
                    + " Remove it, or run mpilens as that user.";
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
        for (PosixFilePermission x : perms) {
            if (GROUP_OR_OTHER.contains(x)) {
                return p + " is accessible to other users (" + java.nio.file.attribute.PosixFilePermissions.toString(perms)
                        + "): refused. The agent writes " + (directory ? "0700" : "0600") + "; fix it with chmod "
                        + (directory ? "700" : "600") + " or delete it.";
            }
        }
        return null;
    }

    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(null|true|false|-?\\d+|\"((?:[^\"\\\\]|\\\\.)*)\")");

    /**
     * The fields of a flat JSON object (strings, integers, booleans, null; no nesting), as the agent
     * writes a record and a collector writes its lines: name to text, null for null.
     */
    public static Map<String, String> flatFields(String text) {
        Map<String, String> f = new java.util.HashMap<>();
        Matcher m = FIELD.matcher(text);
        while (m.find()) f.put(m.group(1), m.group(3) != null ? unescape(m.group(3)) : m.group(2).equals("null") ? null : m.group(2));
        return f;
    }

    /** Reads the agent's flat JSON object (strings, numbers, null); {@code file}: where it was read (on its host). */
    public static JobRecord parse(String text, Path file) throws IOException {
        Map<String, String> f = flatFields(text);
        String schema = f.get(JobRecordLayout.FIELD_SCHEMA);
        if (!JobRecordLayout.SCHEMA.equals(schema)) {
            throw new IOException("schema " + schema + ", expected " + JobRecordLayout.SCHEMA + " (agent of another version?)");
        }
        return new JobRecord(f.get(JobRecordLayout.FIELD_JOB), integer(f, JobRecordLayout.FIELD_RANK),
                integer(f, JobRecordLayout.FIELD_SIZE), number(f, JobRecordLayout.FIELD_PID),
                number(f, JobRecordLayout.FIELD_PARENT_PID), f.get(JobRecordLayout.FIELD_HOST), f.get(JobRecordLayout.FIELD_JDWP),
                f.get(JobRecordLayout.FIELD_BINDING), integer(f, JobRecordLayout.FIELD_EPOCH),
                Instant.ofEpochMilli(number(f, JobRecordLayout.FIELD_START_TIME)),
                Instant.ofEpochMilli(number(f, JobRecordLayout.FIELD_UPDATED)),
                f.get(JobRecordLayout.FIELD_MPI_STATE), f.get(JobRecordLayout.FIELD_AGENT_VERSION), file,
                f.get(JobRecordLayout.FIELD_EXITED) == null ? null
                        : Instant.ofEpochMilli(number(f, JobRecordLayout.FIELD_EXITED)),
                f.get(JobRecordLayout.FIELD_SPAWNED_BY), f.get(JobRecordLayout.FIELD_NAMESPACE),
                f.get(JobRecordLayout.FIELD_START_TICKS) == null ? -1 : number(f, JobRecordLayout.FIELD_START_TICKS));
    }

    private static long number(Map<String, String> f, String name) throws IOException {
        String v = f.get(name);
        if (v == null) throw new IOException("no " + name);
        return Long.parseLong(v);
    }

    private static int integer(Map<String, String> f, String name) throws IOException {
        return Math.toIntExact(number(f, name));
    }

    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) return s;
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                b.append(c);
                continue;
            }
            char n = s.charAt(++i);
            if (n == 'u' && i + 4 < s.length()) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                i += 4;
            } else {
                b.append(n);
            }
        }
        return b.toString();
    }

    private static String currentUid() {
        try {
            return String.valueOf(Files.getAttribute(Paths.get("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "?"; // not Linux: no uid to compare with, so every record is refused with the reason
        }
    }
}
