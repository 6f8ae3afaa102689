package io.mpilens.agent.boot;

import java.security.ProtectionDomain;

/**
 * {@code java -jar mpilens-agent.jar attach PID [options]} ({@code Main-Class}): no
 * instrumentation in this JVM, so the pack's classes ({@link Premain}: the agent jar holds no
 * other class files) go to a class loader of their own, and {@code MpiLensAgent.main} runs from
 * there. A class apart from {@link Premain}, which every rank JVM loads: its class loader would be
 * loaded with it, to be verified.
 */
public final class AttachMain {
    private AttachMain() {
    }

    public static void main(String[] args) throws Throwable {
        ProtectionDomain domain = AttachMain.class.getProtectionDomain();
        StringBuilder why = new StringBuilder();
        byte[] pack = Premain.readPack(domain, why);
        if (pack == null) {
            System.err.println("mpilens: " + why);
            System.exit(1);
        }
        java.util.Map<String, byte[]> classes = new java.util.HashMap<>();
        Premain.forEachClass(pack, null, domain, classes, new int[1]);
        ClassLoader loader = new PackLoader(classes, domain);
        try {
            Class.forName(Premain.AGENT, true, loader).getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The pack's classes, defined on demand (the system class loader's parent first, for the JDK's). */
    private static final class PackLoader extends ClassLoader {
        private final java.util.Map<String, byte[]> classes;
        private final ProtectionDomain domain;

        PackLoader(java.util.Map<String, byte[]> classes, ProtectionDomain domain) {
            super(ClassLoader.getSystemClassLoader());
            this.classes = classes;
            this.domain = domain;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) throw new ClassNotFoundException(name);
            return defineClass(name, b, 0, b.length, domain);
        }
    }
}
