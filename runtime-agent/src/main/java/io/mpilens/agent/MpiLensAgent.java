package io.mpilens.agent;

import static net.bytebuddy.matcher.ElementMatchers.*;

import io.mpilens.agent.intercept.Advices;
import io.mpilens.agent.intercept.Interceptor;
import io.mpilens.agent.profile.BindingProfile;
import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.api.registry.RegistryLayout;
import java.io.File;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.util.LinkedHashSet;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

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
            BindingProfile[] profiles = BindingProfile.all();
            BindingProfile present = presentBinding(profiles);
            if (present == null) {
                System.err.println("mpilens: no MPI binding (Open MPI mpi.jar or MPJ Express) on the class path;"
                        + " the agent stays inactive");
                return;
            }
            HandleRegistry.INSTANCE.configure(VERSION, present.id, options.historyOfRequests, options.requestStacks);
            if (!options.requests) HandleRegistry.INSTANCE.requestsNotTracked();
            Interceptor.configure(profiles, options.requestStacks, options.failOn);
            io.mpilens.agent.job.JobRecords.install(inst, VERSION, present.id);
            // a late attach retransforms loaded classes (Byte Buddy does that); at start-up the woven
            // classes of an earlier JVM with this agent and binding jar are used when there are some
            WovenCache cache = late || !options.wovenCache ? null : WovenCache.open(options.wovenCacheDir,
                    present.id + ",requests=" + options.requests + ",java=" + System.getProperty("java.version"),
                    () -> transformer(profiles, options, false, present).makeRaw(), WEAVE_ERRORS::contains);
            if (late) loadBindingClasses(inst, profiles);
            if (cache != null) inst.addTransformer(cache, false);
            else transformer(profiles, options, late, present).installOn(inst);
            startReaper();
            if (options.dumpOnError) ErrorDumps.install(options.dumpDir);
            installed = true;
            if (options.verbose) {
                System.err.println("mpilens: agent " + VERSION + " watching " + present.displayName
                        + (cache == null ? "" : " (woven classes cached in " + cache.directory() + ")"));
                if (cache != null) {
                    Interceptor.afterInit(() -> System.err.println("mpilens: at MPI_Init " + cache.hits.get()
                            + " binding classes came from the woven-class cache, " + cache.woven.get() + " were woven"));
                }
            }
            if (late) catchUpWithInitializedMpi(inst, profiles);
        } catch (Throwable t) {
            System.err.println("mpilens: agent not installed, the application runs without it: " + t);
        }
    }

    private static BindingProfile presentBinding(BindingProfile[] profiles) {
        for (BindingProfile p : profiles) {
            if (ClassLoader.getSystemResource(p.markerResource) != null) return p;
            for (String r : p.launcherResources) if (ClassLoader.getSystemResource(r) != null) return p;
        }
        return null;
    }

    private static AgentBuilder transformer(BindingProfile[] profiles, AgentOptions options, boolean late,
                                            BindingProfile present) {
        Set<String> handleClasses = new LinkedHashSet<>();
        Set<String> constructed = new LinkedHashSet<>();
        Set<String> requestClasses = new LinkedHashSet<>();
        Set<String> mpiClasses = new LinkedHashSet<>();
        Set<String> failingClasses = new LinkedHashSet<>();
        Names n = new Names();
        for (BindingProfile p : profiles) {
            handleClasses.addAll(p.handleClasses.keySet());
            constructed.addAll(p.constructedClasses);
            mpiClasses.add(p.mpiClass);
            p.handleClasses.forEach((c, k) -> {
                if (k == io.mpilens.api.model.HandleKind.REQUEST) requestClasses.add(c);
                if (k == io.mpilens.api.model.HandleKind.COMMUNICATOR || k == io.mpilens.api.model.HandleKind.REQUEST
                        || k == io.mpilens.api.model.HandleKind.WINDOW) failingClasses.add(c);
            });
            n.add(p);
        }
        ElementMatcher.Junction<TypeDescription> isHandleType = hasSuperType(namedOneOf(handleClasses.toArray(new String[0])));
        ElementMatcher.Junction<TypeDescription> isRequestType = hasSuperType(namedOneOf(requestClasses.toArray(new String[0])));
        // peer and tag are ints at those positions (passed unboxed); a method of that name without
        // them (an overload) is an other request-creating call: no peer, no tag
        ElementMatcher.Junction<MethodDescription> p2p34 = isPublic().and(isMethod()).and(returns(isRequestType))
                .and(namedOneOf(n.p2p34.toArray(new String[0])))
                .and(takesArgument(3, int.class)).and(takesArgument(4, int.class));
        ElementMatcher.Junction<MethodDescription> p2p45 = isPublic().and(isMethod()).and(returns(isRequestType))
                .and(namedOneOf(n.p2p45.toArray(new String[0])))
                .and(takesArgument(4, int.class)).and(takesArgument(5, int.class));
        ElementMatcher.Junction<MethodDescription> otherRequests = isPublic().and(isMethod()).and(returns(isRequestType))
                .and(not(p2p34)).and(not(p2p45));
        ElementMatcher.Junction<TypeDescription> isFailingType = hasSuperType(namedOneOf(failingClasses.toArray(new String[0])));
        ElementMatcher.Junction<MethodDescription> creators = isPublic().and(isMethod()).and(not(returns(isRequestType)))
                .and(returns(isHandleType).or(namedOneOf(n.clones.toArray(new String[0])).and(takesArguments(0))));

        // each advice is read (its class file parsed) once, here, not again for every binding class
        Woven w = new Woven(n, creators, p2p34, p2p45, otherRequests);
        AgentBuilder b = new AgentBuilder.Default();
        // loaded after the agent, a root handle class gets the wrapper id field; on late attach the
        // binding's classes are already loaded, and a retransformation cannot add a field. Request
        // classes get it when their binding has no native request handle to key them by: the
        // field then holds the request's id, which is its key (see Interceptor.keyField)
        boolean requestsById = options.requests && present.requestKeyField == null;
        if (late) b = b.disableClassFormatChanges();
        b = b.with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .with(AgentBuilder.TypeStrategy.Default.REDEFINE)
                .with(new ErrorListener(options.verbose));
        if (late) b = b.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
        return b.ignore(not(nameStartsWith("mpi.")))
                .type(nameStartsWith("mpi."))
                .transform((builder, type, loader, module, pd) -> {
                    if (!late && isHandleType.matches(type) && (requestsById || !isRequestType.matches(type))
                            && !type.isInterface()
                            && (type.getSuperClass() == null || !isHandleType.matches(type.getSuperClass().asErasure()))) {
                        builder = builder.defineField(RegistryLayout.WRAPPER_ID_FIELD, long.class,
                                java.lang.reflect.Modifier.PRIVATE | java.lang.reflect.Modifier.TRANSIENT | 0x1000);
                    }
                    builder = builder.visit(w.create);
                    if (options.requests) builder = builder.visit(w.p2p34).visit(w.p2p45).visit(w.otherRequests);
                    if (constructed.contains(type.getName())) builder = builder.visit(w.construct);
                    if (isHandleType.matches(type) && (options.requests || !isRequestType.matches(type))) {
                        builder = builder.visit(w.free);
                    }
                    if (isHandleType.matches(type)) builder = builder.visit(w.setErrhandler).visit(w.setName).visit(w.commit);
                    if (options.requests && isRequestType.matches(type)) {
                        builder = builder.visit(w.completeOne).visit(w.completeArray).visit(w.startOne).visit(w.startAll)
                                .visit(w.handlesWriteback);
                    }
                    if (isFailingType.matches(type)) builder = builder.visit(w.failure).visit(w.blockingReturn);
                    if (mpiClasses.contains(type.getName())) builder = builder.visit(w.init).visit(w.finalize);
                    return builder;
                });
    }

    /**
     * The advice woven into the binding's classes, each with its method matcher: built once per
     * install ({@code Advice.to} reads and parses the advice's class file), not again for each of
     * the binding's classes.
     */
    private static final class Woven {
        final AsmVisitorWrapper create, p2p34, p2p45, otherRequests, construct, free, setErrhandler, setName, commit,
                completeOne, completeArray, startOne, startAll, handlesWriteback, failure, blockingReturn, init, finalize;

        Woven(Names n, ElementMatcher.Junction<MethodDescription> creators, ElementMatcher.Junction<MethodDescription> p2p34s,
              ElementMatcher.Junction<MethodDescription> p2p45s, ElementMatcher.Junction<MethodDescription> others) {
            create = Advice.to(Advices.Create.class).on(creators);
            p2p34 = Advice.to(Advices.P2pRequest34.class).on(p2p34s);
            p2p45 = Advice.to(Advices.P2pRequest45.class).on(p2p45s);
            otherRequests = Advice.to(Advices.OtherRequest.class).on(others);
            construct = Advice.to(Advices.Construct.class).on(isConstructor().and(isPublic()));
            free = Advice.to(Advices.Free.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.frees))).and(takesArguments(0)));
            setErrhandler = Advice.to(Advices.SetErrhandler.class).on(isMethod()
                    .and(namedOneOf(names(n.setErrhandlers))).and(takesArguments(1)));
            setName = Advice.to(Advices.SetName.class).on(isMethod().and(namedOneOf(names(n.setNames))).and(takesArguments(1)));
            commit = Advice.to(Advices.Commit.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.commits))).and(takesArguments(0)));
            completeOne = Advice.to(Advices.CompleteOne.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.completeOne))).and(takesArguments(0)));
            completeArray = Advice.to(Advices.CompleteArray.class).on(isMethod().and(isStatic())
                    .and(namedOneOf(names(n.completeArray))).and(takesArguments(1)));
            startOne = Advice.to(Advices.StartOne.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.starts))).and(takesArguments(0)));
            startAll = Advice.to(Advices.StartAll.class).on(isMethod().and(isStatic())
                    .and(namedOneOf(names(n.starts))).and(takesArguments(1)));
            handlesWriteback = Advice.to(Advices.HandlesWriteback.class).on(isMethod().and(isStatic())
                    .and(namedOneOf(names(n.writebacks))).and(takesArguments(2)));
            // never finalize(): HotSpot registers an object for finalization only when its
            // class's finalize() does something, and MPJ Express's Request.finalize() is
            // empty; woven, every request would go through the finalizer thread
            failure = Advice.to(Advices.Failure.class).on(isPublic().and(isMethod())
                    .and(not(isStatic())).and(not(isAbstract())).and(not(isFinalizer())));
            // the calls a thread can be stuck in ({@code calls --confirm} compares the count between looks);
            // not the static waitAll family: message loops call it per message, and a frame inside it
            // says nothing about whom it waits for
            blockingReturn = Advice.to(Advices.BlockingReturn.class).on(isPublic().and(isMethod())
                    .and(not(isStatic())).and(not(isAbstract())).and(not(isNative()))
                    .and(namedOneOf(names(n.blocking))));
            init = Advice.to(Advices.Init.class).on(isStatic().and(namedOneOf(names(n.inits))));
            finalize = Advice.to(Advices.Finalize.class).on(isStatic().and(namedOneOf(names(n.finalizes))));
        }

        private static String[] names(Set<String> s) {
            return s.toArray(new String[0]);
        }
    }

    /** Method names of all profiles, for the matchers; the interceptor checks the profile at run time. */
    private static final class Names {
        final Set<String> clones = new LinkedHashSet<>(), frees = new LinkedHashSet<>(),
                setErrhandlers = new LinkedHashSet<>(), setNames = new LinkedHashSet<>(),
                commits = new LinkedHashSet<>(), completeOne = new LinkedHashSet<>(),
                completeArray = new LinkedHashSet<>(), starts = new LinkedHashSet<>(),
                inits = new LinkedHashSet<>(), finalizes = new LinkedHashSet<>(), p2p34 = new LinkedHashSet<>(),
                p2p45 = new LinkedHashSet<>(), writebacks = new LinkedHashSet<>(), blocking = new LinkedHashSet<>();

        void add(BindingProfile p) {
            clones.addAll(p.cloneMethods);
            frees.addAll(p.freeMethods);
            if (p.setErrhandlerMethod != null) setErrhandlers.add(p.setErrhandlerMethod);
            if (p.setNameMethod != null) setNames.add(p.setNameMethod);
            if (p.commitMethod != null) commits.add(p.commitMethod);
            completeOne.addAll(p.waitMethods);
            blocking.addAll(p.waitMethods);
            if (p.calls != null) {
                blocking.addAll(p.calls.blockingPointToPoint());
                blocking.addAll(p.calls.blockingCollectives());
            }
            completeOne.addAll(p.testMethods);
            completeArray.addAll(p.waitAllMethods);
            completeArray.addAll(p.testAllMethods);
            completeArray.addAll(p.someMethods);
            starts.addAll(p.startMethods);
            inits.addAll(p.initMethods);
            finalizes.addAll(p.finalizeMethods);
            if (p.handleWritebackMethod != null) writebacks.add(p.handleWritebackMethod);
            p.requestCalls.forEach((m, rc) -> {
                if (rc.peerArg == 3 && rc.tagArg == 4) {
                    p2p34.add(m);
                } else if (rc.peerArg == 4 && rc.tagArg == 5) {
                    p2p45.add(m);
                } else {
                    throw new IllegalArgumentException(p.id + ": request call " + m
                            + " needs an advice for peer/tag positions " + rc.peerArg + "/" + rc.tagArg);
                }
            });
        }
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
                    if (Boolean.TRUE.equals(f.get(null))) Interceptor.initialized(c, true);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    HandleRegistry.INSTANCE.internalError("late attach", e);
                }
            }
        }
    }

    private static void startReaper() {
        Thread t = new Thread(() -> {
            try {
                HandleRegistry.INSTANCE.reapForever();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "mpilens-reaper");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static String versionOf() {
        Package p = MpiLensAgent.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "dev" : v;
    }

    /** Reports classes the agent could not instrument; the application keeps running unchanged. */
    /** Binding classes the weaver failed on (dotted names): never kept in the woven-class cache as "left alone". */
    private static final Set<String> WEAVE_ERRORS = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private static final class ErrorListener extends AgentBuilder.Listener.Adapter {
        private final boolean verbose;

        ErrorListener(boolean verbose) {
            this.verbose = verbose;
        }

        @Override
        public void onError(String typeName, ClassLoader loader, net.bytebuddy.utility.JavaModule module,
                            boolean loaded, Throwable throwable) {
            WEAVE_ERRORS.add(typeName);
            HandleRegistry.INSTANCE.internalError("instrumenting " + typeName, throwable);
            if (verbose) System.err.println("mpilens: could not instrument " + typeName + ": " + throwable);
        }
    }
}
