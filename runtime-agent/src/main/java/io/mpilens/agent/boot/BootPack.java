package io.mpilens.agent.boot;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The agent's classes as one resource, {@value #ENTRY}, defined straight into the boot loader at
 * start-up.
 *
 * <p>Why: the agent's start-up cost was mostly class loading. Each of the ≈ 60 classes it needs
 * before {@code main} went through the system class loader's Java code (class path search, jar
 * entry, code source, package, then verification), all of it interpreted that early and then
 * compiled by the JIT because it ran so often — about 0.066 s of CPU per rank JVM of the 0.165 s
 * mpilens added above an empty agent (docs/performance.md, start-up). Classes defined in the boot loader
 * skip all of that. Putting the agent jar on the boot class path would do the same, but any
 * append to the boot class path makes JDK 17 print a warning on the application's stderr and
 * stop sharing its CDS archive's application classes; defining the classes does neither.
 *
 * <p>What goes in (computed at build time by {@link #main}, checked there): the classes reachable
 * by name from {@code io.mpilens.agent.MpiLensAgent} and from the woven code, ordered so that a
 * class comes after its supertypes. What stays out: this package (it runs in the system class
 * loader and does the defining) and {@code io.mpilens.agent.weave} (it names Byte Buddy, which is
 * on the system class path only); a packed class that names one of those fails the build, since
 * the boot loader could never resolve it.
 *
 * <p>All or nothing: a failure before the first class is defined leaves the agent to the system
 * class loader as before; a failure after it installs nothing at all ({@link Premain}).
 */
public final class BootPack {
    /** The resource in the agent jar. */
    public static final String ENTRY = "META-INF/mpilens/boot.pack";
    static final byte[] MAGIC = "mpilens-boot-pack/1\n".getBytes(StandardCharsets.US_ASCII);
    /** The agent's entry point in the pack: the reachability root. */
    static final String ROOT = "io/mpilens/agent/MpiLensAgent";
    /** Packages never packed: they must stay with the system class loader. */
    static final String[] STAY_OUT = {"io/mpilens/agent/boot/", "io/mpilens/agent/weave/"};
    /** What a packed class may not name (the boot loader cannot resolve it). */
    static final String[] UNREACHABLE_FROM_BOOT = {"io/mpilens/agent/boot/", "io/mpilens/agent/weave/", "net/bytebuddy/",
            "io/mpilens/agent/shaded/"};

    /** Defines one class in the boot loader ({@link Define}: compiled apart, against java.base's internals). */
    interface Definer {
        Class<?> define(String name, byte[] b, int off, int len, ProtectionDomain domain);
    }

    /** How {@link #defineAll} ended. */
    enum Outcome {
        /** There is no pack, or it could not be defined: nothing was defined, load the agent as before. */
        NONE,
        /** Every class of the pack is in the boot loader. */
        ALL,
        /** Some were defined, then one failed: the agent must not start (its classes would be split). */
        PARTIAL
    }

    private BootPack() {
    }

    /**
     * Defines the pack's classes in the boot loader, with {@code domain} as their protection domain
     * (the agent jar's: the woven-class cache finds the jar through it). Never throws.
     */
    static Outcome defineAll(Instrumentation inst, ProtectionDomain domain, StringBuilder why) {
        byte[] pack;
        // from the agent jar itself, not through a resource URL: the class path's resource search
        // looks in the JDK's modules first and builds a URL connection (≈ 10 ms that early)
        try (java.util.zip.ZipFile jar = new java.util.zip.ZipFile(new File(domain.getCodeSource().getLocation().toURI()))) {
            java.util.zip.ZipEntry entry = jar.getEntry(ENTRY);
            if (entry == null) {
                why.append("no ").append(ENTRY).append(" in the agent jar");
                return Outcome.NONE;
            }
            try (InputStream in = jar.getInputStream(entry)) {
                // its size is known: one array, filled by few large inflates (readAllBytes grows
                // a list of 8 KB buffers in interpreted code: 3 ms of the start-up)
                long size = entry.getSize();
                if (size < 0 || size > Integer.MAX_VALUE - 8) {
                    pack = in.readAllBytes();
                } else {
                    pack = new byte[(int) size];
                    if (in.readNBytes(pack, 0, pack.length) != pack.length) throw new java.io.EOFException(ENTRY + " is cut short");
                }
            }
        } catch (Throwable t) {
            why.append("cannot read ").append(ENTRY).append(": ").append(t);
            return Outcome.NONE;
        }
        int defined = 0;
        try {
            if (pack.length < MAGIC.length + 4 || !java.util.Arrays.equals(pack, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
                why.append(ENTRY).append(" is not a pack of this agent");
                return Outcome.NONE;
            }
            // jdk.internal.misc.Unsafe is the one JDK interface that defines a class in the boot
            // loader without touching the boot class path; java.base exports it to this module
            // only, and only now
            inst.redefineModule(Object.class.getModule(), Set.of(),
                    Map.of("jdk.internal.misc", Set.of(BootPack.class.getModule())), Map.of(), Set.of(), Map.of());
            // a direct call, by a class compiled apart (the agent compiles against --release 11,
            // which hides jdk.internal.*): not reflection, whose accessor generated after 15
            // calls cost ≈ 4 ms, nor a method handle, whose first call spins four lambda forms
            Definer define = (Definer) Class.forName(BootPack.class.getPackageName() + ".Define")
                    .getDeclaredConstructor().newInstance();
            // read in place, as DataOutputStream wrote it (not through a DataInputStream: a virtual
            // call per byte in interpreted code, and readUTF's decoding, for 80 names)
            int at = MAGIC.length;
            int n = int32(pack, at);
            at += 4;
            for (int i = 0; i < n; i++) {
                int nameLength = (pack[at] & 0xff) << 8 | (pack[at + 1] & 0xff);
                String name = name(pack, at, nameLength);
                at += 2 + nameLength;
                int length = int32(pack, at);
                at += 4;
                if (length < 0 || length > pack.length - at) throw new java.io.EOFException(ENTRY + " is cut short");
                define.define(name, pack, at, length, domain);
                at += length;
                defined++;
            }
            return Outcome.ALL;
        } catch (Throwable t) {
            why.append("defining the agent's classes in the boot loader failed after ").append(defined)
                    .append(" classes: ").append(t);
            return defined == 0 ? Outcome.NONE : Outcome.PARTIAL;
        }
    }

    private static int int32(byte[] b, int at) throws java.io.EOFException {
        if (at < 0 || at + 4 > b.length) throw new java.io.EOFException(ENTRY + " is cut short");
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | (b[at + 3] & 0xff);
    }

    /** The name written by {@code writeUTF} at {@code at} (its length first): ASCII as it is, anything else decoded. */
    private static String name(byte[] b, int at, int length) throws IOException {
        if (at + 2 + length > b.length) throw new java.io.EOFException(ENTRY + " is cut short");
        for (int i = at + 2; i < at + 2 + length; i++) {
            if (b[i] <= 0) return new DataInputStream(new ByteArrayInputStream(b, at, length + 2)).readUTF();
        }
        return new String(b, at + 2, length, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /**
     * Build time: {@code BootPack OUTPUT CLASSPATH} writes the pack of the classes under
     * {@code io/mpilens/} on CLASSPATH (directories and jars, separated by the path separator).
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: BootPack OUTPUT CLASSPATH");
            System.exit(2);
        }
        Map<String, byte[]> classes = new TreeMap<>();
        for (String element : args[1].split(File.pathSeparator)) {
            if (!element.isEmpty()) read(new File(element), classes);
        }
        List<String> order = order(classes);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MAGIC);
            out.writeInt(order.size());
            for (String name : order) {
                byte[] b = classes.get(name);
                out.writeUTF(name.replace('/', '.'));
                out.writeInt(b.length);
                out.write(b);
            }
        }
        Path output = Path.of(args[0]);
        Files.createDirectories(output.getParent());
        Files.write(output, bytes.toByteArray());
        System.out.println("BootPack: " + order.size() + " classes of " + classes.size() + ", " + bytes.size()
                + " bytes -> " + output);
    }

    /**
     * The classes reachable from {@link #ROOT} and from the woven code, each after its supertypes;
     * fails when a packed class names something the boot loader cannot resolve.
     */
    static List<String> order(Map<String, byte[]> classes) {
        Map<String, ClassRefs> refs = new TreeMap<>();
        for (Map.Entry<String, byte[]> e : classes.entrySet()) refs.put(e.getKey(), ClassRefs.of(e.getValue()));
        if (!refs.containsKey(ROOT)) throw new IllegalStateException("BootPack: " + ROOT + " is not on the class path");
        Set<String> reached = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>();
        todo.add(ROOT);
        for (Map.Entry<String, ClassRefs> e : refs.entrySet()) {
            if (staysOut(e.getKey())) todo.addAll(e.getValue().named); // what the woven code calls
        }
        while (!todo.isEmpty()) {
            String c = todo.poll();
            if (!refs.containsKey(c) || staysOut(c) || !reached.add(c)) continue;
            todo.addAll(refs.get(c).named);
        }
        List<String> problems = new ArrayList<>();
        for (String c : reached) {
            for (String n : refs.get(c).named) {
                for (String bad : UNREACHABLE_FROM_BOOT) {
                    if (n.startsWith(bad)) problems.add(c + " names " + n);
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("BootPack: classes for the boot loader name classes it cannot see"
                    + " (reach them by name through the system class loader, as WeaverJar does): " + problems);
        }
        List<String> order = new ArrayList<>();
        Set<String> placed = new LinkedHashSet<>();
        for (String c : reached) place(c, refs, reached, placed, order);
        return order;
    }

    private static void place(String c, Map<String, ClassRefs> refs, Set<String> reached, Set<String> placed,
                              List<String> order) {
        if (!reached.contains(c) || !placed.add(c)) return;
        for (String s : refs.get(c).supertypes) place(s, refs, reached, placed, order);
        order.add(c);
    }

    private static boolean staysOut(String c) {
        for (String p : STAY_OUT) if (c.startsWith(p)) return true;
        return false;
    }

    /** The classes under {@code io/mpilens/} in a class path element (a directory or a jar), by internal name; the first one kept. */
    static void read(File element, Map<String, byte[]> classes) throws IOException {
        if (element.isDirectory()) {
            Path root = element.toPath();
            Path mpilens = root.resolve("io/mpilens");
            if (!Files.isDirectory(mpilens)) return;
            try (var all = Files.walk(mpilens)) {
                for (Path p : (Iterable<Path>) all::iterator) {
                    String rel = root.relativize(p).toString().replace(File.separatorChar, '/');
                    if (rel.endsWith(".class")) classes.putIfAbsent(rel.substring(0, rel.length() - 6), Files.readAllBytes(p));
                }
            }
        } else if (element.isFile()) {
            try (JarFile jar = new JarFile(element)) {
                for (JarEntry e : java.util.Collections.list(jar.entries())) {
                    String n = e.getName();
                    if (!n.startsWith("io/mpilens/") || !n.endsWith(".class")) continue;
                    try (InputStream in = jar.getInputStream(e)) {
                        classes.putIfAbsent(n.substring(0, n.length() - 6), in.readAllBytes());
                    }
                }
            }
        }
    }

    /** What a class file names: its supertypes, and every class in its constant pool or its descriptors. */
    static final class ClassRefs {
        final List<String> supertypes = new ArrayList<>();
        final Set<String> named = new LinkedHashSet<>();

        static ClassRefs of(byte[] b) {
            try {
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
                if (in.readInt() != 0xCAFEBABE) throw new IllegalStateException("not a class file");
                in.readUnsignedShort();
                in.readUnsignedShort();
                int count = in.readUnsignedShort();
                String[] utf = new String[count];
                int[] classIndex = new int[count];
                for (int i = 1; i < count; i++) {
                    int tag = in.readUnsignedByte();
                    if (tag == 1) {
                        utf[i] = in.readUTF();
                    } else if (tag == 7) {
                        classIndex[i] = in.readUnsignedShort();
                    } else if (tag == 8 || tag == 16 || tag == 19 || tag == 20) {
                        in.readUnsignedShort();
                    } else if (tag == 15) {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    } else if (tag == 3 || tag == 4 || (tag >= 9 && tag <= 12) || tag == 17 || tag == 18) {
                        in.readInt();
                    } else if (tag == 5 || tag == 6) {
                        in.readLong();
                        i++;
                    } else {
                        throw new IllegalStateException("constant pool tag " + tag);
                    }
                }
                ClassRefs r = new ClassRefs();
                for (int i = 1; i < count; i++) {
                    if (classIndex[i] != 0) r.named.add(arrayElement(utf[classIndex[i]]));
                    if (utf[i] != null) descriptorClasses(utf[i], r.named);
                }
                in.readUnsignedShort(); // access
                in.readUnsignedShort(); // this
                int superIndex = in.readUnsignedShort();
                if (superIndex != 0) r.supertypes.add(utf[classIndex[superIndex]]);
                int interfaces = in.readUnsignedShort();
                for (int i = 0; i < interfaces; i++) r.supertypes.add(utf[classIndex[in.readUnsignedShort()]]);
                return r;
            } catch (IOException e) {
                throw new IllegalStateException("BootPack: a class file that does not parse: " + e, e);
            }
        }

        private static String arrayElement(String name) {
            if (!name.startsWith("[")) return name;
            int at = name.lastIndexOf('[') + 1;
            return name.charAt(at) == 'L' ? name.substring(at + 1, name.length() - 1) : name;
        }

        /** {@code Lio/mpilens/x/Y;} inside a descriptor or signature. */
        private static void descriptorClasses(String s, Set<String> into) {
            for (String prefix : new String[] {"Lio/mpilens/", "Lnet/bytebuddy/"}) {
                int at = s.indexOf(prefix);
                while (at >= 0) {
                    int end = at + 1;
                    while (end < s.length() && s.charAt(end) != ';' && s.charAt(end) != '<') end++;
                    into.add(s.substring(at + 1, end));
                    at = s.indexOf(prefix, end);
                }
            }
        }
    }
}
