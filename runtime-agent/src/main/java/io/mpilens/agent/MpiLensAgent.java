package io.mpilens.agent;

import io.mpilens.agent.intercept.Interceptor;
import io.mpilens.agent.job.AgentThreads;
import io.mpilens.agent.job.JobRecords;
import io.mpilens.agent.profile.BindingProfile;
import io.mpilens.agent.registry.HandleRegistry;
import java.io.File;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.util.Set;

/**
 * Entry points of the in-JVM agent: {@code -javaagent} (premain), late attach (agentmain) and
 * {@code java -jar mpilens-agent.jar attach PID}. Opens no socket and starts no thread until
 * an MPI binding is present; a failure to install leaves the application untouched.
 */
public final class MpiLensAgent {
    static final String VERSION = versionOf();
    private static volatile boolean installed;

    private MpiLensAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        install(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        install(args, inst, true);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || !"attach".equals(args[0])) {
            System.err.println("usage: java -jar mpilens-agent.jar attach PID [options]");
            System.exit(2);
        }
        String jar = new File(MpiLensAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .getAbsolutePath();
        try {
            LateAttach.attach(args[1], jar, args.length > 2 ? args[2] : "");
            System.out.println("mpilens: agent attached to " + args[1]);
        } catch (Exception e) {
            System.err.println("mpilens: could not attach to process " + args[1] + ": " + e.getMessage()
                    + " (is it a JVM of the same user, started without -XX:+DisableAttachMechanism?)");
            System.exit(1);
        }
    }

    private static synchronized void install(String args, Instrumentation inst, boolean late) {
        if (installed) return;
        try {
            AgentOptions options = AgentOptions.parse(args);
            // first, whatever else happens: the launcher waits for this line to find the rank's port
            if (options.jdwpLine && !late) JobRecords.announceJdwp(inst);
            BindingProfile present = BindingProfile.present();
            if (present == null) {
                System.err.println("mpilens: no MPI binding (Open MPI mpi.jar or MPJ Express) on the class path;"
                        + " the agent stays inactive");
                return;
            }
            // one JVM runs one binding: only its profile is woven in and consulted
            BindingProfile[] profiles = {present};
            HandleRegistry.INSTANCE.configure(VERSION, present.id, options.historyOfRequests, options.requestStacks);
            if (!options.requests) HandleRegistry.INSTANCE.requestsNotTracked();
            boolean inWrappers = requestsInWrappers(options, late, present);
            Interceptor.configure(profiles, options.requestStacks, options.failOn, inWrappers);
            JobRecords.install(inst, VERSION, present.id);
            // a late attach retransforms loaded classes (Byte Buddy does that); at start-up the woven
            // classes of an earlier JVM with this agent and binding jar are used when there are some.
            // Anonymous classes, not lambdas, on the start-up path: a JVM's first lambda bootstraps
            // the JDK's lambda machinery (docs/performance.md, start-up)
            WovenCache cache = late || !options.wovenCache ? null : WovenCache.open(options.wovenCacheDir,
                    present.id + ",requests=" + options.requests + ",wrappers=" + (inWrappers ? "ring" : "no") + ",java=" + System.getProperty("java.version"),
                    new java.util.function.Supplier<java.lang.instrument.ClassFileTransformer>() {
                        @Override
                        public java.lang.instrument.ClassFileTransformer get() {
                            return WeaverJar.weaving(inst).transformer(profiles, options, false, present);
                        }
                    }, new java.util.function.Predicate<String>() {
                        @Override
                        public boolean test(String dottedName) {
                            return WEAVE_ERRORS.contains(dottedName);
                        }
                    });
            if (late) loadBindingClasses(inst, profiles);
            if (cache != null) inst.addTransformer(cache, false);
            else WeaverJar.weaving(inst).install(inst, profiles, options, late, present);
            startReaper();
            if (options.dumpOnError) ErrorDumps.install(options.dumpDir);
            installed = true;
            if (options.verbose) {
                System.err.println("mpilens: agent " + VERSION + " watching " + present.displayName
                        + (cache == null ? "" : " (woven classes cached in " + cache.directory() + ")"));
                if (cache != null) {
                    Interceptor.afterInit(new Runnable() {
                        @Override
                        public void run() {
                            System.err.println("mpilens: at MPI_Init " + cache.hits.get()
                                    + " binding classes came from the woven-class cache, " + cache.woven.get() + " were woven ("
                                    + cache.fromBundle.get() + " of those from the cache read from its bundle)");
                        }
                    });
                }
            }
            if (late) catchUpWithInitializedMpi(inst, profiles);
        } catch (Throwable t) {
            System.err.println("mpilens: agent not installed, the application runs without it: " + t);
        }
    }

    /**
     * Whether requests (but persistent ones) are recorded in their wrappers: the agent can see
     * every completion of the binding's requests (BindingProfile.wrapperCompletion), the request classes
     * load after the agent (a retransformation cannot add fields), and neither creation stacks
     * nor the request history is asked for (those live in the request tables).
     */
    public static boolean requestsInWrappers(AgentOptions options, boolean late, BindingProfile present) {
        return !late && options.requests && options.requestsInWrappers && !options.requestStacks
                && !options.historyOfRequests && present.wrapperCompletion
                && present.persistentRequestClass != null && present.requestClass != null;
    }

    /**
     * Before a late attach retransforms the binding: its classes that are not loaded yet are
     * loaded (not initialised: no static initialiser runs, no native code), so the
     * retransformation weaves them with the rest. A class first loaded after the attach was
     * seen leaving the transformer unwoven (Open MPI's {@code CartComm}, {@code GraphComm}: their
     * {@code dup()} and {@code sub()} results were missed and their frees counted as untracked).
     */
    private static void loadBindingClasses(Instrumentation inst, BindingProfile[] profiles) {
        for (Class<?> c : inst.getAllLoadedClasses()) {
            for (BindingProfile p : profiles) {
                if (!c.getName().equals(p.mpiClass)) continue;
                try {
                    java.security.CodeSource source = c.getProtectionDomain().getCodeSource();
                    if (source == null || source.getLocation() == null) continue;
                    File jar = new File(source.getLocation().toURI());
                    if (!jar.isFile()) continue;
                    try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar)) {
                        for (java.util.Enumeration<java.util.jar.JarEntry> e = j.entries(); e.hasMoreElements(); ) {
                            String name = e.nextElement().getName();
                            if (!name.startsWith("mpi/") || !name.endsWith(".class") || name.indexOf('/', 4) >= 0) continue;
                            try {
                                Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, c.getClassLoader());
                            } catch (LinkageError | ClassNotFoundException ignored) {
                                // a class that does not load here is not used here either
                            }
                        }
                    }
                } catch (Exception | LinkageError e) {
                    HandleRegistry.INSTANCE.internalError("late attach: loading the binding's classes", e);
                }
            }
        }
    }

    /** After a late attach: an MPI already initialised gets its rank and predefined handles now. */
    private static void catchUpWithInitializedMpi(Instrumentation inst, BindingProfile[] profiles) {
        for (Class<?> c : inst.getAllLoadedClasses()) {
            for (BindingProfile p : profiles) {
                if (!c.getName().equals(p.mpiClass)) continue;
                try {
                    Field f = c.getDeclaredField("initialized");
                    f.setAccessible(true);
                    if (Boolean.TRUE.equals(f.get(null))) Interceptor.initialized(c);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    HandleRegistry.INSTANCE.internalError("late attach", e);
                }
            }
        }
    }

    private static void startReaper() {
        Thread t = new Thread(AgentThreads.group(), "mpilens-reaper") {
            @Override
            public void run() {
                try {
                    HandleRegistry.INSTANCE.reapForever();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static String versionOf() {
        Package p = MpiLensAgent.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        if (v == null) {
            // defined in the boot loader (BootPack): its package has no manifest; the entry
            // point's package, in the system class loader, has the agent jar's
            Package entry = ClassLoader.getSystemClassLoader().getDefinedPackage("io.mpilens.agent.boot");
            v = entry == null ? null : entry.getImplementationVersion();
        }
        return v == null ? "dev" : v;
    }

    /** Binding classes the weaver failed on (dotted names): never kept in the woven-class cache as "left alone". */
    public static final Set<String> WEAVE_ERRORS = java.util.concurrent.ConcurrentHashMap.newKeySet();

}
