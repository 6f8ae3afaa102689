package io.mpilens.agent.profile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.File;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class path scan that finds the binding answers what a class loader over the same class path
 * answers (a {@link URLClassLoader}, which also follows manifest {@code Class-Path}), and says
 * "cannot tell" rather than guess.
 */
class ClassPathScanTest {
    private static final String[] NAMES = {"mpi/Constant.class", "mpjdev/MPJDev.class", "runtime/starter/MulticoreStarter.class"};

    @TempDir
    Path tmp;

    private Path jar(String name, String classPath, String... entries) throws Exception {
        Path p = tmp.resolve(name);
        Files.createDirectories(p.getParent());
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (classPath != null) m.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        try (OutputStream o = Files.newOutputStream(p); JarOutputStream j = new JarOutputStream(o, m)) {
            for (String e : entries) {
                j.putNextEntry(new JarEntry(e));
                j.write(new byte[] {(byte) 0xca, (byte) 0xfe});
                j.closeEntry();
            }
        }
        return p;
    }

    /** What a class loader with exactly this class path (no parent) finds, for each name. */
    private static boolean[] loaderFinds(String classPath) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String e : classPath.split(File.pathSeparator)) urls.add(new File(e).toURI().toURL());
        boolean[] out = new boolean[NAMES.length];
        try (URLClassLoader l = new URLClassLoader(urls.toArray(new URL[0]), null)) {
            for (int i = 0; i < NAMES.length; i++) out[i] = l.findResource(NAMES[i]) != null;
        }
        return out;
    }

    private void agrees(String classPath, boolean[] expected) throws Exception {
        boolean[] scan = ClassPathScan.findOn(classPath, NAMES);
        assertArrayEquals(expected, scan, classPath);
        boolean[] loader = loaderFinds(classPath);
        // the scan stops at the first name: compare the rest only when the first is absent
        assertEquals(loader[0], scan[0], "the class loader on " + classPath);
        if (!loader[0]) assertArrayEquals(loader, scan, "the class loader on " + classPath);
    }

    @Test
    void findsTheOpenMpiJarAmongDirectoriesAndOtherJars() throws Exception {
        Path classes = Files.createDirectories(tmp.resolve("app/classes"));
        Path other = jar("lib/other.jar", null, "org/example/A.class");
        Path mpi = jar("ompi/mpi.jar", null, "mpi/MPI.class", "mpi/Constant.class");
        agrees(classes + File.pathSeparator + other + File.pathSeparator + mpi, new boolean[] {true, false, false});
    }

    @Test
    void followsManifestClassPathsAsTheClassLoaderDoes() throws Exception {
        // MPJ Express: java -jar starter.jar, whose manifest names mpj.jar beside it
        jar("mpj/lib/mpj.jar", null, "mpjdev/MPJDev.class");
        Path starter = jar("mpj/lib/starter.jar", "mpj.jar ../extra/", "runtime/starter/MulticoreStarter.class");
        agrees(starter.toString(), new boolean[] {false, true, true});
        // a directory named by a manifest, and a chain of two manifests
        Path extra = Files.createDirectories(tmp.resolve("mpj/extra/mpi"));
        Files.write(extra.resolve("Constant.class"), new byte[] {1});
        agrees(starter.toString(), new boolean[] {true, true, true});
        Path app = jar("app/app.jar", "../mpj/lib/starter.jar");
        agrees(app.toString(), new boolean[] {true, true, true});
        // found first, the Open MPI jar ends the scan: what comes after it is not opened
        Path mpi = jar("ompi/mpi.jar", null, "mpi/Constant.class");
        agrees(mpi + File.pathSeparator + starter, new boolean[] {true, false, false});
    }

    @Test
    void missingEntriesAndCyclesHoldNothing() throws Exception {
        Path a = jar("cyc/a.jar", "b.jar");
        jar("cyc/b.jar", "a.jar missing.jar");
        agrees(a + File.pathSeparator + tmp.resolve("nowhere.jar") + File.pathSeparator + tmp.resolve("no-dir"),
                new boolean[] {false, false, false});
    }

    @Test
    void aClassPathItCannotReadIsNotGuessed() throws Exception {
        Path broken = Files.write(tmp.resolve("broken.jar"), new byte[] {'P', 'K', 3, 4, 0});
        assertNull(ClassPathScan.findOn(broken.toString(), NAMES), "a jar it cannot open: ask the class loader");
        Path remote = jar("remote.jar", "http://example.org/mpi.jar");
        assertNull(ClassPathScan.findOn(remote.toString(), NAMES), "a Class-Path URL that is not a file");
    }
}
