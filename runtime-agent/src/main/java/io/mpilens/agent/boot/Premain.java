package io.mpilens.agent.boot;

import java.io.DataInputStream;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.Set;

/**
 * Every entry point of the agent jar — {@code -javaagent} ({@code Premain-Class}), a late attach
 * ({@code Agent-Class}) — and, with {@link AttachMain} ({@code java -jar mpilens-agent.jar attach}),
 * its only class files besides the weaver's: the agent's classes travel in the pack
 * {@link BootPack} wrote at build time. They are defined in the boot loader, then
 * {@code io.mpilens.agent.MpiLensAgent} takes over. Never throws into the application.
 *
 * <p>The one class the system class loader loads at start-up, and the one compiled against
 * java.base's internals (its own compiler execution in runtime-agent/pom.xml): it calls
 * {@code jdk.internal.misc.Unsafe.defineClass} directly, once java.base exports that package to
 * this module (reflection's generated accessor after 15 calls cost ≈ 4 ms; a method handle's
 * first call spins four lambda forms). Everything here was four classes (this, the reading,
 * an interface and its implementation, an enum), each found on the class path, read from the jar
 * and verified while all of that was interpreted (≈ 2 ms; docs/performance.md, start-up). It names
 * no other class of the agent, so none is loaded by the system class loader before the pack is
 * defined; {@link BootPack}'s constants are compiled in. The jar holds no copy of the agent's
 * classes as files: the class path indexes every entry of the agent jar, in interpreted code,
 * when it loads this class (≈ 3.5 ms of every rank JVM's start-up for the 115 it had).
 *
 * <p>All or nothing: when a class cannot be defined the agent is not installed (and says so on
 * stderr); the application runs without it.
 */
public final class Premain {
    static final String AGENT = "io.mpilens.agent.MpiLensAgent";
    /** {@link #defineAll}'s outcomes: nothing defined, all, some then a failure. */
    static final int NONE = 0, ALL = 1, PARTIAL = 2;

    private Premain() {
    }

    public static void premain(String args, Instrumentation inst) {
        start("premain", args, inst);
    }

    /**
     * A late attach ({@code Agent-Class}): the same, unless the boot loader already has the agent
     * (a JVM started with {@code -javaagent}), whose own {@code agentmain} then sees it installed.
     */
    public static void agentmain(String args, Instrumentation inst) {
        start("agentmain", args, inst);
    }

    private static void start(String entry, String args, Instrumentation inst) {
        try {
            Class<?> agent = "agentmain".equals(entry) ? bootAgent() : null;
            if (agent == null) {
                StringBuilder why = new StringBuilder();
                int outcome = defineAll(inst, Premain.class.getProtectionDomain(), why);
                // nothing defined because the boot loader has it all: this jar given twice, the
                // first copy runs (and sees itself installed)
                agent = outcome == ALL ? Class.forName(AGENT, true, null) : outcome == NONE ? bootAgent() : null;
                if (agent == null) {
                    System.err.println("mpilens: agent not installed, the application runs without it: " + why);
                    return;
                }
            }
            agent.getMethod(entry, String.class, Instrumentation.class).invoke(null, args, inst);
        } catch (Throwable t) {
            System.err.println("mpilens: agent not installed, the application runs without it: " + t);
        }
    }

    /** The agent's entry class in the boot loader, null when it is not defined there. */
    private static Class<?> bootAgent() {
        try {
            return Class.forName(AGENT, false, null);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /** The pack from the agent jar, null (and why) when it cannot be had. Never throws. */
    static byte[] readPack(ProtectionDomain domain, StringBuilder why) {
        // from the agent jar itself, not through a resource URL: the class path's resource search
        // looks in the JDK's modules first and builds a URL connection (≈ 10 ms that early)
        try (java.util.zip.ZipFile jar = new java.util.zip.ZipFile(new File(domain.getCodeSource().getLocation().toURI()))) {
            java.util.zip.ZipEntry entry = jar.getEntry(BootPack.ENTRY);
            if (entry == null) {
                why.append("no ").append(BootPack.ENTRY).append(" in the agent jar");
                return null;
            }
            byte[] pack;
            try (InputStream in = jar.getInputStream(entry)) {
                // its size is known: one array, filled by one read of the stored entry (readAllBytes
                // grows a list of 8 KB buffers in interpreted code: 3 ms of the start-up)
                long size = entry.getSize();
                if (size < 0 || size > Integer.MAX_VALUE - 8) {
                    pack = in.readAllBytes();
                } else {
                    pack = new byte[(int) size];
                    if (in.readNBytes(pack, 0, pack.length) != pack.length) throw new EOFException(BootPack.ENTRY + " is cut short");
                }
            }
            String magic = BootPack.MAGIC;
            boolean ours = pack.length >= magic.length() + 4;
            for (int i = 0; ours && i < magic.length(); i++) ours = pack[i] == magic.charAt(i);
            if (!ours) {
                why.append(BootPack.ENTRY).append(" is not a pack of this agent");
                return null;
            }
            return pack;
        } catch (Throwable t) {
            why.append("cannot read ").append(BootPack.ENTRY).append(": ").append(t);
            return null;
        }
    }

    /**
     * Defines the pack's classes in the boot loader, with {@code domain} as their protection domain
     * (the agent jar's: the woven-class cache finds the jar through it). Never throws: {@link #NONE}
     * when nothing was defined, {@link #PARTIAL} when a class failed after others were.
     */
    static int defineAll(Instrumentation inst, ProtectionDomain domain, StringBuilder why) {
        byte[] pack = readPack(domain, why);
        if (pack == null) return NONE;
        int[] defined = new int[1];
        try {
            // jdk.internal.misc.Unsafe is the one JDK interface that defines a class in the boot
            // loader without touching the boot class path; java.base exports it to this module
            // only, and only now
            exportInternals(inst, Premain.class.getModule());
            Module agentModule = forEachClass(pack, jdk.internal.misc.Unsafe.getUnsafe(), domain, null, defined);
            exportToAgent(inst, agentModule);
            return ALL;
        } catch (Throwable t) {
            why.append("defining the agent's classes in the boot loader failed after ").append(defined[0])
                    .append(" classes: ").append(t);
            return defined[0] == 0 ? NONE : PARTIAL;
        }
    }

    /**
     * Each class of the pack, in its order: defined in the boot loader through {@code unsafe}, or
     * copied into {@code into} when that is not null; {@code count[0]} counts them. Returns the
     * module of the classes defined (null when none was). Read in place, as DataOutputStream wrote
     * it (not through a DataInputStream: a virtual call per byte in interpreted code, and
     * readUTF's decoding, for 80 names).
     */
    static Module forEachClass(byte[] pack, jdk.internal.misc.Unsafe unsafe, ProtectionDomain domain,
                               java.util.Map<String, byte[]> into, int[] count) throws IOException {
        Module module = null;
        int at = BootPack.MAGIC.length();
        int n = int32(pack, at);
        at += 4;
        for (int i = 0; i < n; i++) {
            if (at + 2 > pack.length) throw new EOFException(BootPack.ENTRY + " is cut short");
            int nameLength = (pack[at] & 0xff) << 8 | (pack[at + 1] & 0xff);
            String name = name(pack, at, nameLength);
            at += 2 + nameLength;
            int length = int32(pack, at);
            at += 4;
            if (length < 0 || length > pack.length - at) throw new EOFException(BootPack.ENTRY + " is cut short");
            if (into != null) {
                into.put(name, java.util.Arrays.copyOfRange(pack, at, at + length));
            } else {
                Class<?> c = unsafe.defineClass(name, pack, at, length, null, domain);
                if (module == null) module = c.getModule();
            }
            at += length;
            count[0]++;
        }
        return module;
    }

    /**
     * The same export to the agent's classes (the boot loader's unnamed module): the registry's
     * ordered stores use {@code jdk.internal.misc.Unsafe} where they may, VarHandles (linked on
     * first use, ≈ 5 ms at start-up) where not ({@code io.mpilens.agent.registry.Ordered}). The
     * JDK's code behind this call is linked by the first one: it costs little. A failure leaves
     * the agent on VarHandles.
     */
    private static void exportToAgent(Instrumentation inst, Module agentModule) {
        if (agentModule == null) return;
        try {
            exportInternals(inst, agentModule);
        } catch (Throwable t) {
            // the agent works without it
        }
    }

    /** java.base exports jdk.internal.misc to {@code module}. */
    private static void exportInternals(Instrumentation inst, Module module) {
        inst.redefineModule(Object.class.getModule(), Set.of(), Map.of("jdk.internal.misc", Set.of(module)), Map.of(), Set.of(), Map.of());
    }

    private static int int32(byte[] b, int at) throws EOFException {
        if (at < 0 || at + 4 > b.length) throw new EOFException(BootPack.ENTRY + " is cut short");
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | (b[at + 3] & 0xff);
    }

    /** The name written by {@code writeUTF} at {@code at} (its length first): ASCII as it is, anything else decoded. */
    private static String name(byte[] b, int at, int length) throws IOException {
        if (at + 2 + length > b.length) throw new EOFException(BootPack.ENTRY + " is cut short");
        for (int i = at + 2; i < at + 2 + length; i++) {
            if (b[i] <= 0) return new DataInputStream(new ByteArrayInputStream(b, at, length + 2)).readUTF();
        }
        // ASCII, widened by hand: naming a charset initialises StandardCharsets and five charsets
        char[] c = new char[length];
        for (int i = 0; i < length; i++) c[i] = (char) b[at + 2 + i];
        return new String(c);
    }
}
