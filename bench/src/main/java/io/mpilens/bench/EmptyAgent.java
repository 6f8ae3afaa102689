package io.mpilens.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * An agent that does nothing: what any {@code -javaagent} costs a JVM before the agent does
 * anything (the floor under mpilens's start-up cost, {@code bench/run startup --floor yes}).
 */
public final class EmptyAgent {
    private EmptyAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        // nothing: the JVM has already paid for an agent by the time it calls this
    }

    /** A jar in {@code dir} holding this class alone, with this class as its Premain-Class. */
    static Path jar(Path dir) throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().putValue("Premain-Class", EmptyAgent.class.getName());
        // as mpilens's own manifest asks: the same JVMTI capabilities
        m.getMainAttributes().putValue("Can-Retransform-Classes", "true");
        m.getMainAttributes().putValue("Can-Redefine-Classes", "true");
        String entry = EmptyAgent.class.getName().replace('.', '/') + ".class";
        Path jar = dir.resolve("empty-agent.jar");
        try (InputStream in = EmptyAgent.class.getClassLoader().getResourceAsStream(entry);
             OutputStream out = Files.newOutputStream(jar);
             JarOutputStream j = new JarOutputStream(out, m)) {
            if (in == null) throw new IOException("no " + entry + " on the bench's class path");
            j.putNextEntry(new JarEntry(entry));
            in.transferTo(j);
            j.closeEntry();
        }
        return jar;
    }
}
