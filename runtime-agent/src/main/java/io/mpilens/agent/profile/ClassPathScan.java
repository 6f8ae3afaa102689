package io.mpilens.agent.profile;

import java.io.File;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

/**
 * Whether the application class path holds a resource, found by looking at its directories and
 * jars (and the jars their manifests' {@code Class-Path} names) instead of asking the system class
 * loader: for a resource outside the JDK's packages the loader first searches every module of the
 * boot layer, ≈ 5 ms of every rank JVM's start-up (docs/performance.md, start-up). A scan that
 * cannot tell (an entry it cannot read, a module path, a system class loader of the
 * application's own) answers null, and the caller asks the class loader.
 */
final class ClassPathScan {
    /** Class-Path chains longer than this are not followed (a cycle, or a generated class path). */
    private static final int MAX_ENTRIES = 4096;

    private ClassPathScan() {
    }

    /**
     * The jars the binding was found in, left open until the binding has initialised: the class
     * loader opens the same jar when it loads the binding, and while one is open the JDK shares
     * its index (read once, entry by entry, in interpreted code) instead of reading it again.
     */
    private static final java.util.List<java.util.jar.JarFile> HELD = new java.util.ArrayList<>();

    private static void hold(java.util.jar.JarFile jar) {
        synchronized (HELD) {
            HELD.add(jar);
        }
    }

    /** Closes what {@link #hold} kept (the class loader's own copy of the index stays). Never throws. */
    static void release() {
        synchronized (HELD) {
            for (java.util.jar.JarFile jar : HELD) {
                try {
                    jar.close();
                } catch (java.io.IOException | RuntimeException e) {
                    // nothing to do: it was only kept open
                }
            }
            HELD.clear();
        }
    }

    /**
     * For each of {@code names}, whether the class path has it; null when the scan cannot tell.
     * The scan ends as soon as the first name is found: the others then say only what it saw before.
     */
    static boolean[] find(String... names) {
        if (System.getProperty("java.system.class.loader") != null) return null;
        String modules = System.getProperty("jdk.module.path");
        if (modules != null && !modules.isEmpty()) return null;
        String classPath = System.getProperty("java.class.path");
        if (classPath == null) return null;
        return findOn(classPath, names);
    }

    static boolean[] findOn(String classPath, String... names) {
        boolean[] found = new boolean[names.length];
        ArrayDeque<File> todo = new ArrayDeque<>();
        for (String e : classPath.split(File.pathSeparator, -1)) todo.add(new File(e.isEmpty() ? "." : e));
        Set<String> seen = new HashSet<>();
        try {
            while (!todo.isEmpty() && !found[0]) {
                File f = todo.poll();
                if (!seen.add(f.getAbsolutePath())) continue;
                if (seen.size() > MAX_ENTRIES) return null;
                if (f.isDirectory()) {
                    for (int i = 0; i < names.length; i++) found[i] |= new File(f, names[i]).isFile();
                } else if (f.isFile()) {
                    java.util.jar.JarFile jar = new java.util.jar.JarFile(f, false);
                    boolean keep = false;
                    try {
                        for (int i = 0; i < names.length; i++) {
                            boolean here = jar.getEntry(names[i]) != null;
                            found[i] |= here;
                            keep |= here;
                        }
                        java.util.jar.Manifest m = jar.getManifest();
                        String more = m == null ? null : m.getMainAttributes().getValue(java.util.jar.Attributes.Name.CLASS_PATH);
                        if (more != null) {
                            for (String u : more.trim().split("\\s+")) {
                                if (u.isEmpty()) continue;
                                // relative URLs against the jar's directory (what the class loader does)
                                java.net.URI uri = f.getAbsoluteFile().getParentFile().toURI().resolve(u);
                                if ("file".equals(uri.getScheme())) todo.add(new File(uri));
                                else return null;
                            }
                        }
                    } finally {
                        if (keep) hold(jar);
                        else jar.close();
                    }
                }
                // an entry that does not exist holds nothing, for the class loader too
            }
        } catch (Exception | LinkageError e) {
            return null;
        }
        return found;
    }
}
