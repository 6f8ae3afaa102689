package io.mpilens.headless.job;

import io.mpilens.headless.jdi.JdwpAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ports of a share ({@code mpilens share}), beside the job's records: one file per host,
 * {@code share-<host>.json}, one flat JSON object per shared rank JVM. A reader believes a line
 * only while the sharing process named in it runs (same pid, same start) and the record of the
 * rank still names the JVM listener the share holds; then {@link JobRecord#jdwpAddress()} is the
 * share's port, so every {@code --job} read goes through the share.
 */
public final class ShareRecords {
    public static final String SCHEMA = "mpilens-share/1";
    static final String PREFIX = "share-";

    private ShareRecords() {
    }

    /**
     * One rank JVM served by a share.
     *
     * @param sharePid   the sharing process
     * @param shareStart its start (ms since the epoch, as {@link ProcessHandle.Info#startInstant()} says)
     * @param shareTicks its start in clock ticks since boot ({@link ProcessStart}), -1 when the file
     *                   does not say (a share of an older version); compared instead of {@code shareStart}
     *                   when present, since a step of the wall clock moves that one
     * @param pid        the rank JVM's pid
     * @param jvm        the JVM's own JDWP listener, which the share holds
     * @param port       where debuggers and mpilens attach instead: 127.0.0.1 and the share's port
     */
    public record Entry(long sharePid, long shareStart, long shareTicks, String host, int rank, long pid, String jvm, String port) {
        public JdwpAddress portAddress() {
            return JdwpAddress.parse(port);
        }
    }

    public static String fileName(String host) {
        return PREFIX + host.replaceAll("[^A-Za-z0-9._-]", "_") + ".json";
    }

    /** This process's start, as a reader compares it. */
    public static long thisProcessStart() {
        return ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    }

    /**
     * Writes this host's share file for the job in {@code jobDir} (0600, whole or not at all):
     * {@code lines}, one JSON object of an {@link Entry}'s fields each (the share writes them with
     * the one JSON writer).
     */
    public static void write(Path jobDir, String host, String lines) throws IOException {
        CharSequence b = lines;
        Path target = jobDir.resolve(fileName(host));
        Path tmp = Files.createTempFile(jobDir, ".share-", ".tmp", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, b, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Removes this host's share file of the job (the share ended). */
    public static void remove(Path jobDir, String host) throws IOException {
        Files.deleteIfExists(jobDir.resolve(fileName(host)));
    }

    /** Every entry of every share file in {@code jobDir}, running share or not; unreadable lines are skipped. */
    static List<Entry> read(Path jobDir, JobDirectory safety) throws IOException {
        List<Entry> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(jobDir, PREFIX + "*.json")) {
            for (Path f : files) {
                if (safety.unsafe(f, false) != null) continue; // a share file decides where mpilens attaches, like a record
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    Map<String, String> m = JobDirectory.flatFields(line);
                    if (!SCHEMA.equals(m.get("schema"))) continue;
                    try {
                        out.add(new Entry(Long.parseLong(m.get("sharePid")), Long.parseLong(m.get("shareStart")), ticks(m), m.get("host"),
                                Integer.parseInt(m.get("rank")), Long.parseLong(m.get("pid")), m.get("jvm"), m.get("port")));
                    } catch (RuntimeException e) {
                        // a line of another version: not believed
                    }
                }
            }
        }
        return out;
    }

    /** Removes this user's share files in {@code jobDir} whose shares all ended (killed: no clean-up of their own). */
    static void removeEnded(Path jobDir, JobDirectory safety) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(jobDir, PREFIX + "*.json")) {
            for (Path f : files) {
                if (safety.unsafe(f, false) != null) continue;
                boolean running = false;
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    Map<String, String> m = JobDirectory.flatFields(line);
                    try {
                        running |= shareRuns(new Entry(Long.parseLong(m.get("sharePid")), Long.parseLong(m.get("shareStart")),
                                ticks(m), null, 0, 0, null, null));
                    } catch (RuntimeException e) {
                        running = true; // not ours to judge: left alone
                    }
                }
                if (!running) Files.deleteIfExists(f);
            }
        }
    }

    /** Whether the share that wrote {@code e} still runs. */
    public static boolean shareRuns(Entry e) {
        Optional<ProcessHandle> p = ProcessHandle.of(e.sharePid());
        // nothing to tell it by: not believed (the port would be a stranger's)
        return p.isPresent() && p.get().isAlive() && ProcessStart.same(p.get(), e.shareTicks(), e.shareStart(), 0, false);
    }

    private static long ticks(Map<String, String> line) {
        String t = line.get("shareTicks");
        return t == null ? -1 : Long.parseLong(t);
    }

    /** {@code records} with the port of a running share where one serves the record's JVM. */
    static List<JobRecord> applied(List<JobRecord> records, List<Entry> entries) {
        if (entries.isEmpty()) return records;
        List<Entry> live = entries.stream().filter(ShareRecords::shareRuns).toList();
        List<JobRecord> out = new ArrayList<>(records.size());
        for (JobRecord r : records) {
            Entry served = null;
            for (Entry e : live) {
                if (e.pid() == r.pid() && e.host() != null && e.host().equals(r.host()) && e.jvm() != null && e.jvm().equals(r.jdwp())) {
                    served = e;
                }
            }
            out.add(served == null ? r : r.sharedAt(served.port()));
        }
        return out;
    }
}
