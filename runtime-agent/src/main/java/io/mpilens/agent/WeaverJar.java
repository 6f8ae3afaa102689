package io.mpilens.agent;

import io.mpilens.agent.job.JobRecords;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.jar.JarFile;

/**
 * Byte Buddy (relocated) travels inside the agent jar as one stored entry, {@value #ENTRY}, not
 * as its 3,000 classes: a JVM reads the central directory of every jar it opens, and the agent
 * jar is opened in every rank at start-up, while Byte Buddy is needed only when a class must be
 * woven. Then, once per JVM, the entry is copied to a private directory (checked by length and
 * checksum, reused by later JVMs) and appended to the system class loader's search, and
 * {@code io.mpilens.agent.weave.Weaving} is loaded by name through the system class loader
 * (the rest of the agent may be in the boot loader, which cannot see it: {@link Weaver}). Without the entry (the agent's own classes on a class path, as in
 * its unit tests) Byte Buddy must already be on the class path.
 */
final class WeaverJar {
    static final String ENTRY = "META-INF/mpilens/weaver.jar";
    static final String WEAVING = "io.mpilens.agent.weave.Weaving";
    private static volatile Weaver weaving;

    private WeaverJar() {
    }

    /** The weaving, Byte Buddy on the class path first; throws when it cannot be had (the caller falls back). */
    static synchronized Weaver weaving(Instrumentation inst) {
        Weaver w = weaving;
        if (w != null) return w;
        try {
            byte[] jar = nested();
            if (jar != null) inst.appendToSystemClassLoaderSearch(new JarFile(extracted(jar).toFile()));
        } catch (IOException e) {
            throw new IllegalStateException("mpilens: cannot put the weaver on the class path: " + e, e);
        }
        try {
            return weaving = (Weaver) Class.forName(WEAVING, true, ClassLoader.getSystemClassLoader())
                    .getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("mpilens: cannot load the weaver: " + e, e);
        }
    }

    private static byte[] nested() throws IOException {
        // the system class loader, not this class's: the agent jar is on the system class path,
        // and this class may be in the boot loader
        try (InputStream in = ClassLoader.getSystemResourceAsStream(ENTRY)) {
            return in == null ? null : in.readAllBytes();
        }
    }

    /** The weaver jar in a private directory of this user, written once (whole or not at all). */
    private static Path extracted(byte[] jar) throws IOException {
        Path base = Paths.get(System.getProperty("java.io.tmpdir"), "mpilens-" + uid());
        JobRecords.createPrivate(base);
        Path file = base.resolve("weaver-" + Long.toHexString(WovenCache.checksum(jar)) + "-" + jar.length + ".jar");
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) != jar.length
                || WovenCache.checksum(Files.readAllBytes(file)) != WovenCache.checksum(jar)) {
            JobRecords.writeAtomically(file, jar);
        }
        return file;
    }

    private static String uid() throws IOException {
        return String.valueOf(Files.getAttribute(new File("/proc/self").toPath(), "unix:uid"));
    }
}
