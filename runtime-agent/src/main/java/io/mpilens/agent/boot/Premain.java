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
 * The {@code -javaagent} entry point: defines the agent's classes in the boot loader from the
 * pack {@link BootPack} wrote at build time, then hands over to
 * {@code io.mpilens.agent.MpiLensAgent}. Never throws into the application.
 *
 * <p>The one class the system class loader loads at start-up, and the one compiled against
 * java.base's internals (its own compiler execution in runtime-agent/pom.xml): it calls
 * {@code jdk.internal.misc.Unsafe.defineClass} directly, once java.base exports that package to
 * this module (reflection's generated accessor after 15 calls cost ≈ 4 ms; a method handle's
 * first call spins four lambda forms). Everything here was four classes (this, the reading,
 * an interface and its implementation, an enum), each found on the class path, read from the jar
 * and verified while all of that was interpreted (≈ 2 ms; docs/performance.md, start-up). It names
 * no other class of the agent, so none is loaded by the system class loader before the pack is
 * defined; {@link BootPack}'s constants are compiled in.
 *
 * <p>All or nothing: a failure before the first class is defined leaves the agent to the system
 * class loader, as without a pack; a failure after it installs nothing at all (its classes would
 * be split between two loaders).
 */
public final class Premain {
    static final String AGENT = "io.mpilens.agent.MpiLensAgent";
    /** {@link #defineAll}'s outcomes: nothing defined (load the agent as before), all, some then a failure. */
    static final int NONE = 0, ALL = 1, PARTIAL = 2;

    private Premain() {
    }

    public static void premain(String args, Instrumentation inst) {
        try {
            StringBuilder why = new StringBuilder();
            int outcome = defineAll(inst, Premain.class.getProtectionDomain(), why);
            if (outcome == PARTIAL) {
                System.err.println("mpilens: agent not installed, the application runs without it: " + why);
                return;
            }
            // ALL: the boot loader has it; NONE: the system class loader finds it in the agent jar
            Class<?> agent = Class.forName(AGENT, true, outcome == ALL ? null : Premain.class.getClassLoader());
            agent.getMethod("premain", String.class, Instrumentation.class).invoke(null, args, inst);
        } catch (Throwable t) {
            System.err.println("mpilens: agent not installed, the application runs without it: " + t);
        }
    }

    /**
     * Defines the pack's classes in the boot loader, with {@code domain} as their protection domain
     * (the agent jar's: the woven-class cache finds the jar through it). Never throws.
     */
    static int defineAll(Instrumentation inst, ProtectionDomain domain, StringBuilder why) {
        byte[] pack;
        // from the agent jar itself, not through a resource URL: the class path's resource search
        // looks in the JDK's modules first and builds a URL connection (≈ 10 ms that early)
        try (java.util.zip.ZipFile jar = new java.util.zip.ZipFile(new File(domain.getCodeSource().getLocation().toURI()))) {
            java.util.zip.ZipEntry entry = jar.getEntry(BootPack.ENTRY);
            if (entry == null) {
                why.append("no ").append(BootPack.ENTRY).append(" in the agent jar");
                return NONE;
            }
            try (InputStream in = jar.getInputStream(entry)) {
                // its size is known: one array, filled by few large inflates (readAllBytes grows
                // a list of 8 KB buffers in interpreted code: 3 ms of the start-up)
                long size = entry.getSize();
                if (size < 0 || size > Integer.MAX_VALUE - 8) {
                    pack = in.readAllBytes();
                } else {
                    pack = new byte[(int) size];
                    if (in.readNBytes(pack, 0, pack.length) != pack.length) throw new EOFException(BootPack.ENTRY + " is cut short");
                }
            }
        } catch (Throwable t) {
            why.append("cannot read ").append(BootPack.ENTRY).append(": ").append(t);
            return NONE;
        }
        int defined = 0;
        try {
            String magic = BootPack.MAGIC;
            boolean ours = pack.length >= magic.length() + 4;
            for (int i = 0; ours && i < magic.length(); i++) ours = pack[i] == magic.charAt(i);
            if (!ours) {
                why.append(BootPack.ENTRY).append(" is not a pack of this agent");
                return NONE;
            }
            // jdk.internal.misc.Unsafe is the one JDK interface that defines a class in the boot
            // loader without touching the boot class path; java.base exports it to this module
            // only, and only now
            exportInternals(inst, Premain.class.getModule());
            jdk.internal.misc.Unsafe unsafe = jdk.internal.misc.Unsafe.getUnsafe();
            Module agentModule = null;
            // read in place, as DataOutputStream wrote it (not through a DataInputStream: a virtual
            // call per byte in interpreted code, and readUTF's decoding, for 80 names)
            int at = magic.length();
            int n = int32(pack, at);
            at += 4;
            for (int i = 0; i < n; i++) {
                int nameLength = (pack[at] & 0xff) << 8 | (pack[at + 1] & 0xff);
                String name = name(pack, at, nameLength);
                at += 2 + nameLength;
                int length = int32(pack, at);
                at += 4;
                if (length < 0 || length > pack.length - at) throw new EOFException(BootPack.ENTRY + " is cut short");
                Class<?> c = unsafe.defineClass(name, pack, at, length, null, domain);
                if (agentModule == null) agentModule = c.getModule();
                at += length;
                defined++;
            }
            exportToAgent(inst, agentModule);
            return ALL;
        } catch (Throwable t) {
            why.append("defining the agent's classes in the boot loader failed after ").append(defined)
                    .append(" classes: ").append(t);
            return defined == 0 ? NONE : PARTIAL;
        }
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
