package io.mpilens.agent.boot;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The agent's classes as one resource, {@value #ENTRY}, which {@code Premain} defines straight
 * into the boot loader at start-up; this class writes it at build time and is not loaded at run time.
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
 * class loader as before; a failure after it installs nothing at all ({@code Premain}).
 */
public final class BootPack {
    /** The resource in the agent jar. */
    public static final String ENTRY = "META-INF/mpilens/boot.pack";
    /** The pack's first bytes (ASCII): a constant, compiled into {@code Premain}, which reads the pack. */
    static final String MAGIC = "mpilens-boot-pack/1\n";
    /** The agent's entry point in the pack: the reachability root. */
    static final String ROOT = "io/mpilens/agent/MpiLensAgent";
    /** Packages never packed: they must stay with the system class loader. */
    static final String[] STAY_OUT = {"io/mpilens/agent/boot/", "io/mpilens/agent/weave/"};
    /** What a packed class may not name (the boot loader cannot resolve it). */
    static final String[] UNREACHABLE_FROM_BOOT = {"io/mpilens/agent/boot/", "io/mpilens/agent/weave/", "net/bytebuddy/",
            "io/mpilens/agent/shaded/"};

    private BootPack() {
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
        classes.replaceAll((name, b) -> jitAnnotations(b));
        List<String> order = order(classes);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MAGIC.getBytes(StandardCharsets.US_ASCII));
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

    /** The agent's JIT hints ({@code io.mpilens.agent.jit}) and the JDK's annotations they stand for. */
    static final Map<String, String> JIT_ANNOTATIONS = Map.of(
            "Lio/mpilens/agent/jit/ForceInline;", "Ljdk/internal/vm/annotation/ForceInline;",
            "Lio/mpilens/agent/jit/DontInline;", "Ljdk/internal/vm/annotation/DontInline;",
            "Lio/mpilens/agent/jit/Stable;", "Ljdk/internal/vm/annotation/Stable;");

    /**
     * The class file with the agent's JIT hints renamed to java.base's annotations, which HotSpot
     * honours in a boot class (package {@code io.mpilens.agent.jit}: why). Only constant pool
     * strings that are exactly an annotation's descriptor change; a class without one comes back as
     * it was. Everything after the constant pool refers to it by index, so it is copied unchanged.
     */
    static byte[] jitAnnotations(byte[] classFile) {
        Pool pool = Pool.of(classFile);
        ByteArrayOutputStream out = null;
        int copied = 0;
        for (int i = 1; i < pool.utf.length; i++) {
            String renamed = pool.utf[i] == null ? null : JIT_ANNOTATIONS.get(pool.utf[i]);
            if (renamed == null) continue;
            if (out == null) out = new ByteArrayOutputStream(classFile.length + 64);
            out.write(classFile, copied, pool.start[i] - copied);
            byte[] utf = renamed.getBytes(StandardCharsets.US_ASCII); // the descriptors are ASCII
            out.write(1);
            out.write(utf.length >>> 8);
            out.write(utf.length & 0xff);
            out.write(utf, 0, utf.length);
            copied = pool.start[i + 1];
        }
        if (out == null) return classFile;
        out.write(classFile, copied, classFile.length - copied);
        return out.toByteArray();
    }

    /**
     * A class file's constant pool: its strings, the string index of each class entry, where each
     * entry starts ({@code start[count]}: where the pool ends), and a reader past it.
     */
    static final class Pool {
        final String[] utf;
        final int[] classIndex;
        final int[] start;
        final DataInputStream rest;

        private Pool(String[] utf, int[] classIndex, int[] start, DataInputStream rest) {
            this.utf = utf;
            this.classIndex = classIndex;
            this.start = start;
            this.rest = rest;
        }

        static Pool of(byte[] b) {
            try {
                ByteArrayInputStream bytes = new ByteArrayInputStream(b);
                DataInputStream in = new DataInputStream(bytes);
                if (in.readInt() != 0xCAFEBABE) throw new IllegalStateException("not a class file");
                in.readUnsignedShort();
                in.readUnsignedShort();
                int count = in.readUnsignedShort();
                String[] utf = new String[count];
                int[] classIndex = new int[count];
                int[] start = new int[count + 1];
                for (int i = 1; i < count; i++) {
                    start[i] = b.length - bytes.available();
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
                        start[i] = b.length - bytes.available();
                    } else {
                        throw new IllegalStateException("constant pool tag " + tag);
                    }
                }
                start[count] = b.length - bytes.available();
                return new Pool(utf, classIndex, start, in);
            } catch (IOException e) {
                throw new IllegalStateException("BootPack: a class file that does not parse: " + e, e);
            }
        }
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
                Pool pool = Pool.of(b);
                String[] utf = pool.utf;
                int[] classIndex = pool.classIndex;
                int count = utf.length;
                DataInputStream in = pool.rest;
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
