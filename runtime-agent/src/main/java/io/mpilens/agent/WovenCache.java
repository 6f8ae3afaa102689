package io.mpilens.agent;

import io.mpilens.agent.job.Environment;
import io.mpilens.agent.job.JobRecords;
import java.io.File;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.ProtectionDomain;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The binding's classes as the agent wove them, kept on disk so that the next JVM with the same
 * agent jar and the same binding jar loads them as they are, without building the weaver at all:
 * most of the agent's start-up was Byte Buddy's (loading, verifying and running about 1,300 of
 * its classes to weave some 40 of the binding's), seconds per job on a busy node.
 *
 * <p>An entry is keyed by a 128-bit checksum (Adler-32 and CRC-32, each over two inputs) of the
 * class as loaded, of the jar it came from (its content: a launcher may copy the binding per job)
 * and of what changes the weaving (agent jar path, size and time; the options that select advice;
 * the JDK version); it holds the woven bytes after their own length and checksum, checked on
 * every read, so a damaged entry is woven again. Checksums, not a cryptographic digest: the
 * directory is private to the user, the entries only need to be told apart and found intact,
 * and a JVM that loads no {@code MessageDigest} saves the security providers' start-up in every
 * rank (docs/performance.md, start-up). A class the weaver leaves alone has an empty entry. Entries are written to a
 * temporary file and renamed, so ranks starting together at most weave the same class twice.
 * The directory must be this user's and private (as the agent makes it); anything else, or any
 * error, means no cache: classes are woven as without it. Agent option {@code wovenCache=false}
 * turns it off; {@code wovenCacheDir=DIR} moves it (default
 * {@code ${XDG_CACHE_HOME:-~/.cache}/mpilens/woven}, one subdirectory per agent jar; those not
 * used for 30 days are removed).
 *
 * <p>The entries of one binding jar and weaving are also kept together in one bundle file
 * ({@code CONTEXT.bundle}: each entry's file name and bytes, as they are in their own files), read
 * once by the JVM's first binding class: the next JVM opens one file instead of one per class
 * (≈ 40 for Open MPI; docs/performance.md, start-up). A JVM that took any class from elsewhere
 * (an entry file, or the weaver) writes the bundle again at its exit from the entry files then in
 * the directory; every entry in the bundle is checked like an entry file, and one that fails is
 * read from its own file.
 */
final class WovenCache implements ClassFileTransformer {
    private static final byte[] MAGIC = utf8("mpilens-woven/2\n");
    /** After the magic: the body's length (4 bytes) and checksum (8 bytes). */
    private static final int HEAD = 16 + 12;
    private static final long UNUSED_DAYS = 30;

    private final Path dir;
    private final String weaving;
    private final Supplier<ClassFileTransformer> weaver;
    private final Predicate<String> failed;
    private volatile ClassFileTransformer built;
    final AtomicInteger hits = new AtomicInteger();
    final AtomicInteger woven = new AtomicInteger();
    /** Of {@link #hits}: those read from a bundle. */
    final AtomicInteger fromBundle = new AtomicInteger();
    /** Bundles read, by context: entry file name to {offset, length} in the bundle's bytes. */
    private final java.util.Map<String, Bundle> bundles = new java.util.concurrent.ConcurrentHashMap<>();
    /** Contexts of which this JVM took a class from outside their bundle: their bundles are written at exit. */
    private final java.util.Set<String> stale = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private WovenCache(Path dir, String weaving, Supplier<ClassFileTransformer> weaver, Predicate<String> failed) {
        this.dir = dir;
        this.weaving = weaving;
        this.weaver = weaver;
        this.failed = failed;
    }

    /**
     * The cache for this agent jar, or null (no cache: no home directory, not private, not
     * writable, no agent jar to name it by). {@code weaving}: the options that select advice (and
     * the JDK); {@code weaver}: builds the weaver, on the first class not in the cache;
     * {@code failed}: whether the weaver reported an error for a class (dotted name), which is
     * then not kept. A configured directory is made private (0700) like the default one.
     */
    static WovenCache open(String configuredDir, String weaving, Supplier<ClassFileTransformer> weaver,
                           Predicate<String> failed) {
        try {
            File agentJar = ownJar();
            if (agentJar == null) return null;
            Path base = configuredDir != null ? Paths.get(configuredDir).toAbsolutePath() : defaultBase();
            if (base == null) return null;
            // createDirectories on a directory that exists throws and catches an exception first
            Path parent = base.getParent();
            if (parent != null && !Files.isDirectory(parent)) Files.createDirectories(parent);
            JobRecords.createPrivate(base); // this user's, 0700, or refused (an exception: no cache)
            byte[] jarId = utf8(agentJar.getAbsolutePath() + "\n" + agentJar.length() + "\n" + agentJar.lastModified());
            String agentId = (hex(checksum(jarId)) + hex(jarId.length)).substring(0, 20);
            Path dir = base.resolve(agentId);
            if (JobRecords.createPrivate(dir)) removeUnused(base, dir); // a new agent jar
            return new WovenCache(dir, weaving, weaver, failed);
        } catch (Throwable t) {
            return null;
        }
    }

    /**
     * UTF-8 by the charset's name: {@code StandardCharsets} would initialise its class and five
     * charsets that nothing else in a rank JVM uses at start-up; the name finds the JVM's default
     * UTF-8 in the charset cache.
     */
    static byte[] utf8(String s) {
        try {
            return s.getBytes("UTF-8");
        } catch (java.io.UnsupportedEncodingException e) {
            throw new IllegalStateException(e); // every JDK has UTF-8
        }
    }

    static String utf8(byte[] b, int from, int length) {
        try {
            return new String(b, from, length, "UTF-8");
        } catch (java.io.UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    Path directory() {
        return dir;
    }

    @Override
    public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes)
            throws IllegalClassFormatException {
        if (name == null || !name.startsWith("mpi/")) return null;
        File source = redefined == null ? source(loader, name, pd) : null;
        String context = source == null ? null : context(source);
        String entryName = context == null ? null : entryName(name, context, bytes);
        Path entry = null;
        if (entryName != null) {
            byte[] cached = bundle(context).read(entryName);
            if (cached != null) {
                fromBundle.incrementAndGet();
            } else {
                entry = entry(entryName);
                cached = entry == null ? null : read(entry);
                if (cached != null) staleAtExit(context);
            }
            if (cached != null) {
                hits.incrementAndGet();
                return cached.length == 0 ? null : cached;
            }
        }
        byte[] out = weaver().transform(loader, name, redefined, pd, bytes);
        woven.incrementAndGet();
        if (entryName != null && entry == null) entry = entry(entryName);
        if (entry != null && (out != null || !failed.test(name.replace('/', '.')))) {
            write(entry, out == null ? new byte[0] : out);
            staleAtExit(context);
        }
        return out;
    }

    /** The bundle of {@code context}, read on first use (empty when there is none or it cannot be read). */
    private Bundle bundle(String context) {
        Bundle b = bundles.get(context);
        if (b == null) {
            b = Bundle.read(dir.resolve(context + BUNDLE));
            Bundle raced = bundles.putIfAbsent(context, b);
            if (raced != null) b = raced;
        }
        return b;
    }

    /** The first class of {@code context} taken from outside its bundle: the bundle is written again at exit. */
    private void staleAtExit(String context) {
        if (!stale.add(context) || stale.size() != 1) return;
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() { // no lambda on the start-up path
                @Override
                public void run() {
                    for (String c : stale) writeBundle(dir, c);
                }
            }, "mpilens-woven-bundle"));
        } catch (Throwable t) {
            // no bundle: the next JVM reads the entry files
        }
    }

    private ClassFileTransformer weaver() {
        ClassFileTransformer w = built;
        if (w == null) {
            synchronized (this) {
                w = built;
                if (w == null) built = w = weaver.get();
            }
        }
        return w;
    }

    /**
     * The jar (or class file) a class came from: its protection domain's code source, else where
     * its loader finds its class file (MPJ Express's per-rank loaders under multicore define the
     * binding's classes without a code source); null when neither says.
     */
    static File source(ClassLoader loader, String name, ProtectionDomain pd) {
        try {
            if (pd != null && pd.getCodeSource() != null && pd.getCodeSource().getLocation() != null) {
                Object[] last = lastDomain; // the binding's classes share one domain: one URI and stat, not one per class
                if (last != null && ((java.lang.ref.Reference<?>) last[0]).get() == pd) return (File) last[1];
                File f = new File(pd.getCodeSource().getLocation().toURI());
                if (f.isFile()) {
                    lastDomain = new Object[] {new java.lang.ref.WeakReference<>(pd), f};
                    return f;
                }
            }
            java.net.URL url = loader == null ? null : loader.getResource(name + ".class");
            if (url == null) return null;
            if (url.getProtocol().equals("jar")) {
                String path = url.getPath(); // file:/…/mpj.jar!/mpi/Comm.class
                int bang = path.indexOf("!/");
                if (bang < 0) return null;
                File f = new File(new java.net.URI(path.substring(0, bang)));
                return f.isFile() ? f : null;
            }
            if (url.getProtocol().equals("file")) {
                File f = new File(url.toURI());
                return f.isFile() ? f : null;
            }
            return null;
        } catch (Throwable t) {
            return null;
        }
    }

    /** The last protection domain with a jar as its code source, and that jar (one entry, held weakly). */
    private static volatile Object[] lastDomain;

    /** Jars already named, by path: the key part their content and the weaving give (a launcher may copy MPJ Express's home per job). */
    private final java.util.Map<String, String> contexts = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The checksum of the weaving and of a binding jar's content (up to 64 MB; a larger one by
     * path, size and time), computed once per jar.
     */
    private String context(File source) {
        String path = source.getAbsolutePath();
        String known = contexts.get(path);
        if (known != null) return known;
        String id = null;
        try {
            if (source.length() <= 64L << 20) id = hex(checksum(readAll(source)));
        } catch (Throwable t) {
            // named by path below
        }
        if (id == null) id = path + "\n" + source.length() + "\n" + source.lastModified();
        String context = hex(checksum(utf8(weaving + "\n" + id)));
        contexts.putIfAbsent(path, context);
        return context;
    }

    /** The file name of this class's entry (and its name in the bundle). */
    private static String entryName(String name, String context, byte[] bytes) {
        return name.replace('/', '.') + "-" + hex(checksum(bytes)) + context + ENTRY;
    }

    /** Where the entry of that name is, or null when it cannot be named here. */
    private Path entry(String entryName) {
        try {
            return dir.resolve(entryName);
        } catch (Throwable t) {
            return null;
        }
    }

    private static final String ENTRY = ".class";
    private static final String BUNDLE = ".bundle";
    private static final byte[] BUNDLE_MAGIC = utf8("mpilens-bundle/1");

    /** One bundle's bytes and where each entry is in them. */
    private static final class Bundle {
        private final byte[] all;
        private final java.util.Map<String, int[]> at;

        private Bundle(byte[] all, java.util.Map<String, int[]> at) {
            this.all = all;
            this.at = at;
        }

        /**
         * The bundle file, or an empty one: after the magic, entries as (file name: UTF, length:
         * int, the entry file's bytes); reading stops at the first entry that does not fit.
         */
        static Bundle read(Path file) {
            java.util.Map<String, int[]> at = new java.util.HashMap<>();
            byte[] all = new byte[0];
            try {
                File f = file.toFile();
                if (!f.isFile()) return new Bundle(all, at);
                all = readAll(f);
                // read by hand, as body() reads an entry (no ByteBuffer: see there)
                if (all.length < BUNDLE_MAGIC.length) return new Bundle(new byte[0], at);
                for (int i = 0; i < BUNDLE_MAGIC.length; i++) {
                    if (all[i] != BUNDLE_MAGIC[i]) return new Bundle(new byte[0], at);
                }
                int pos = BUNDLE_MAGIC.length;
                while (all.length - pos >= 2) {
                    int nameLength = (int) bigEndian(all, pos, 2);
                    pos += 2;
                    if (all.length - pos < nameLength + 4) break;
                    String name = utf8(all, pos, nameLength);
                    pos += nameLength;
                    int length = (int) bigEndian(all, pos, 4);
                    pos += 4;
                    if (length < 0 || length > all.length - pos) break;
                    at.put(name, new int[] {pos, length});
                    pos += length;
                }
            } catch (Throwable t) {
                // what was read so far stands; the rest comes from the entry files
            }
            return new Bundle(all, at);
        }

        /** The woven bytes of the entry of that file name, checked as its file would be; null when absent or damaged. */
        byte[] read(String entryName) {
            int[] p = at.get(entryName);
            return p == null ? null : body(all, p[0], p[1]);
        }
    }

    /**
     * Writes the bundle of {@code context} from the entry files in {@code dir} that are whole
     * (atomically: a JVM reading it meanwhile sees the old bundle or the new one).
     */
    static void writeBundle(Path dir, String context) {
        try {
            File[] files = dir.toFile().listFiles();
            if (files == null) return;
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.write(BUNDLE_MAGIC);
            java.io.DataOutputStream data = new java.io.DataOutputStream(out);
            String suffix = context + ENTRY;
            for (File f : files) {
                String name = f.getName();
                if (!name.endsWith(suffix) || !f.isFile()) continue;
                byte[] bytes = readAll(f);
                if (body(bytes, 0, bytes.length) == null) continue;
                byte[] n = utf8(name);
                data.writeShort(n.length);
                data.write(n);
                data.writeInt(bytes.length);
                data.write(bytes);
            }
            data.flush();
            JobRecords.writeAtomically(dir.resolve(context + BUNDLE), out.toByteArray());
        } catch (Throwable t) {
            // no bundle: the next JVM reads the entry files
        }
    }

    /** The woven bytes of an entry (empty: left alone), or null when it is absent or damaged. */
    static byte[] read(Path entry) {
        try {
            if (!Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) return null;
            byte[] all = readAll(entry.toFile());
            return body(all, 0, all.length);
        } catch (Throwable t) {
            return null;
        }
    }

    /** The woven bytes of the entry at {@code all[offset, offset + length)}, or null when it is not whole. */
    private static byte[] body(byte[] all, int offset, int length) {
        if (length < HEAD || offset < 0 || offset + length > all.length) return null;
        // by hand, not through a ByteBuffer and Arrays.equals: their first use in a JVM (buffer and
        // scoped-memory classes, the vectorized mismatch) cost every rank ≈ 1 ms at start-up
        for (int i = 0; i < MAGIC.length; i++) if (all[offset + i] != MAGIC[i]) return null;
        int at = offset + MAGIC.length;
        int bodyLength = (int) bigEndian(all, at, 4);
        long sum = bigEndian(all, at + 4, 8);
        if (bodyLength != length - HEAD) return null;
        byte[] body = Arrays.copyOfRange(all, offset + HEAD, offset + length);
        return checksum(body) == sum ? body : null;
    }

    /** {@code n} bytes at {@code at}, most significant first (as a ByteBuffer writes them). */
    private static long bigEndian(byte[] b, int at, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) v = v << 8 | (b[at + i] & 0xff);
        return v;
    }

    /** A whole file by java.io (a NIO channel's first use costs every rank JVM its natives and classes). */
    private static byte[] readAll(File f) throws java.io.IOException {
        try (java.io.InputStream in = new java.io.FileInputStream(f)) {
            return in.readAllBytes();
        }
    }

    private static void write(Path entry, byte[] body) {
        try {
            byte[] all = new byte[HEAD + body.length];
            System.arraycopy(MAGIC, 0, all, 0, MAGIC.length);
            java.nio.ByteBuffer.wrap(all, MAGIC.length, HEAD - MAGIC.length).putInt(body.length).putLong(checksum(body));
            System.arraycopy(body, 0, all, HEAD, body.length);
            JobRecords.writeAtomically(entry, all);
        } catch (Throwable t) {
            // no entry: the next JVM weaves this class again
        }
    }

    private static Path defaultBase() {
        String xdg = Environment.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isEmpty() && Paths.get(xdg).isAbsolute()) return Paths.get(xdg, "mpilens", "woven");
        String home = System.getProperty("user.home");
        if (home == null || home.isEmpty() || home.equals("?")) return null;
        return Paths.get(home, ".cache", "mpilens", "woven");
    }

    /** Other agent jars' directories not written for {@link #UNUSED_DAYS} days. */
    static void removeUnused(Path base, Path keep) {
        long before = System.currentTimeMillis() - UNUSED_DAYS * 24 * 3600 * 1000;
        // only what this class makes (wovenCacheDir may name a directory that holds other things):
        // directories named like an agent id, and in them entries and temporary files; a directory
        // with anything else in it stays
        File[] dirs = base.toFile().listFiles(f -> f.isDirectory() && f.getName().matches("[0-9a-f]{20}"));
        if (dirs == null) return;
        for (File d : dirs) {
            if (d.toPath().equals(keep) || d.lastModified() > before || Files.isSymbolicLink(d.toPath())) continue;
            File[] entries = d.listFiles(f -> f.isFile() && (f.getName().endsWith(ENTRY) || f.getName().endsWith(BUNDLE)
                    || f.getName().endsWith(".tmp")));
            if (entries != null) for (File e : entries) e.delete();
            d.delete(); // fails, harmlessly, when something else is in it
        }
    }

    private static File ownJar() {
        try {
            ProtectionDomain pd = WovenCache.class.getProtectionDomain();
            if (pd == null || pd.getCodeSource() == null) return null;
            File f = new File(pd.getCodeSource().getLocation().toURI());
            return f.isFile() ? f : null;
        } catch (Throwable t) {
            return null;
        }
    }

    /**
     * Adler-32 in the high half, CRC-32 in the low half: two independent checksums of the bytes,
     * both computed by the JDK's native zlib. Not CRC-32C: its class initialiser builds 8 KB of
     * tables in interpreted Java, 3 ms of every rank JVM's start-up (docs/performance.md, start-up).
     */
    static long checksum(byte[] b) {
        java.util.zip.Adler32 c = new java.util.zip.Adler32();
        c.update(b, 0, b.length);
        java.util.zip.CRC32 d = new java.util.zip.CRC32();
        d.update(b, 0, b.length);
        return c.getValue() << 32 | d.getValue();
    }

    private static String hex(long v) {
        String h = Long.toHexString(v);
        return "0000000000000000".substring(h.length()) + h;
    }
}
