package io.mpilens.agent.weave;

import static net.bytebuddy.matcher.ElementMatchers.*;

import io.mpilens.agent.AgentOptions;
import io.mpilens.agent.MpiLensAgent;
import io.mpilens.agent.Weaver;
import io.mpilens.agent.profile.BindingProfile;
import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.agent.registry.NativeHandle;
import io.mpilens.agent.registry.RequestFacts;
import io.mpilens.agent.registry.RequestHolder;
import io.mpilens.agent.registry.SequenceBlock;
import io.mpilens.agent.registry.WrapperId;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.registry.RegistryLayout;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.LinkedHashSet;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The transformation of the binding's classes, declared in one place with Byte Buddy. The only
 * class of the agent that names Byte Buddy's types: it is loaded only when a class must be woven
 * (a miss in the woven-class cache, a late attach, the cache turned off), after {@code WeaverJar}
 * has put Byte Buddy on the class path. A JVM whose woven classes are all cached never opens it.
 */
public final class Weaving implements Weaver {
    /** The modifiers of every field the agent adds to a binding class: private, transient, synthetic. */
    private static final int AGENT_FIELD = java.lang.reflect.Modifier.PRIVATE | java.lang.reflect.Modifier.TRANSIENT | 0x1000;

    public Weaving() {
    }

    @Override
    public ClassFileTransformer transformer(BindingProfile[] profiles, AgentOptions options, boolean late,
                                            BindingProfile present) {
        return builder(profiles, options, late, present).makeRaw();
    }

    @Override
    public void install(Instrumentation inst, BindingProfile[] profiles, AgentOptions options, boolean late,
                        BindingProfile present) {
        builder(profiles, options, late, present).installOn(inst);
    }

    private static AgentBuilder builder(BindingProfile[] profiles, AgentOptions options, boolean late,
                                        BindingProfile present) {
        Set<String> handleClasses = new LinkedHashSet<>();
        Set<String> constructed = new LinkedHashSet<>();
        Set<String> requestClasses = new LinkedHashSet<>();
        Set<String> infoClasses = new LinkedHashSet<>();
        Set<String> mpiClasses = new LinkedHashSet<>();
        Set<String> failingClasses = new LinkedHashSet<>();
        Set<String> holderKinds = new LinkedHashSet<>(); // classes of communicators, windows, files
        Set<String> nativeHandleFields = new LinkedHashSet<>();
        Names n = new Names();
        for (BindingProfile p : profiles) {
            handleClasses.addAll(p.handleClasses.keySet());
            if (p.nativeHandleField != null) nativeHandleFields.add(p.nativeHandleField);
            constructed.addAll(p.constructedClasses);
            mpiClasses.add(p.mpiClass);
            p.handleClasses.forEach((c, k) -> {
                if (k == HandleKind.REQUEST) requestClasses.add(c);
                if (k == HandleKind.INFO) infoClasses.add(c);
                if (k == HandleKind.COMMUNICATOR || k == HandleKind.WINDOW || k == HandleKind.FILE) holderKinds.add(c);
                if (k == HandleKind.COMMUNICATOR || k == HandleKind.REQUEST || k == HandleKind.WINDOW) failingClasses.add(c);
            });
            n.add(p);
        }
        ElementMatcher.Junction<TypeDescription> isHandleType = hasSuperType(namedOneOf(handleClasses.toArray(new String[0])));
        ElementMatcher.Junction<TypeDescription> isRequestType = hasSuperType(namedOneOf(requestClasses.toArray(new String[0])));
        ElementMatcher.Junction<TypeDescription> isInfoType = hasSuperType(namedOneOf(infoClasses.toArray(new String[0])));
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
        // requests in their wrappers (a binding with native request handles, classes loaded after
        // the agent): every request but the persistent ones, which stay in the tables (their
        // activations are not visible in the binding's state)
        boolean inWrappers = MpiLensAgent.requestsInWrappers(options, late, present);
        ElementMatcher.Junction<TypeDescription> isPersistentType = present.persistentRequestClass == null ? none()
                : hasSuperType(named(present.persistentRequestClass));
        ElementMatcher.Junction<MethodDescription> wrapperP2p34 = p2p34.and(not(returns(isPersistentType)));
        ElementMatcher.Junction<MethodDescription> wrapperP2p45 = p2p45.and(not(returns(isPersistentType)));
        ElementMatcher.Junction<MethodDescription> wrapperOthers = otherRequests.and(not(returns(isPersistentType)));
        if (inWrappers) {
            p2p34 = p2p34.and(returns(isPersistentType));
            p2p45 = p2p45.and(returns(isPersistentType));
            otherRequests = otherRequests.and(returns(isPersistentType));
        }
        ElementMatcher.Junction<TypeDescription> isFailingType = hasSuperType(namedOneOf(failingClasses.toArray(new String[0])));
        ElementMatcher.Junction<MethodDescription> creators = isPublic().and(isMethod()).and(not(returns(isRequestType)))
                .and(returns(isHandleType).or(namedOneOf(n.clones.toArray(new String[0])).and(takesArguments(0))));

        // each advice is read (its class file parsed) once, here, not again for every binding class
        Woven w = new Woven(n, creators, p2p34, p2p45, otherRequests, wrapperP2p34, wrapperP2p45, wrapperOthers);
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
                    // the root class of a handle hierarchy gets fields and accessors (not on a late
                    // attach: a retransformation can add neither)
                    boolean handleRoot = !late && isRoot(type, isHandleType);
                    if (handleRoot && (requestsById || !isRequestType.matches(type))) {
                        builder = builder.defineField(RegistryLayout.WRAPPER_ID_FIELD, long.class,
                                AGENT_FIELD)
                                .implement(WrapperId.class)
                                .method(named("mpilens$setId")).intercept(FieldAccessor.ofField(RegistryLayout.WRAPPER_ID_FIELD));
                        // with requests in wrappers only, and only where requests are made: other classes keep their shape
                        if (inWrappers && holderKinds.contains(type.getName())) {
                            // a binding without native request handles (MPJ Express) numbers its
                            // requests from a block the holder keeps (ranks can be threads of one JVM)
                            boolean blocks = present.requestKeyField == null;
                            builder = builder.implement(blocks ? SequenceBlock.class : RequestHolder.class)
                                    .method(named("mpilens$id")).intercept(FieldAccessor.ofField(RegistryLayout.WRAPPER_ID_FIELD));
                            if (blocks) {
                                builder = builder.defineField("mpilens$next", int.class, AGENT_FIELD).defineField("mpilens$end", int.class, AGENT_FIELD)
                                        .method(named("mpilens$next")).intercept(FieldAccessor.ofField("mpilens$next"))
                                        .method(named("mpilens$end")).intercept(FieldAccessor.ofField("mpilens$end"));
                            }
                        }
                    }
                    // the native handle's getter, where the root class declares the field
                    String handleField = handleRoot ? nativeHandleField(type, nativeHandleFields) : null;
                    if (handleField != null) {
                        builder = builder.implement(NativeHandle.class)
                                .method(named("mpilens$handle")).intercept(FieldAccessor.ofField(handleField));
                    }
                    if (inWrappers && isRoot(type, isRequestType)) {
                        builder = builder.defineField(RegistryLayout.REQUEST_SEQ_FIELD, int.class, AGENT_FIELD)
                                .implement(RequestFacts.class)
                                .method(named("mpilens$seq")).intercept(FieldAccessor.ofField(RegistryLayout.REQUEST_SEQ_FIELD));
                    }
                    builder = builder.visit(w.create);
                    if (options.requests) builder = builder.visit(w.p2p34).visit(w.p2p45).visit(w.otherRequests);
                    if (inWrappers) builder = builder.visit(w.wrapperP2p34).visit(w.wrapperP2p45).visit(w.wrapperOthers);
                    if (constructed.contains(type.getName())) builder = builder.visit(w.construct);
                    if (isHandleType.matches(type) && (options.requests || !isRequestType.matches(type))) {
                        builder = builder.visit(w.free);
                    }
                    if (isHandleType.matches(type)) {
                        builder = builder.visit(w.setErrhandler).visit(w.setName).visit(w.commit)
                                .visit(w.attrSet).visit(w.attrDelete);
                    }
                    if (isInfoType.matches(type)) builder = builder.visit(w.infoSet).visit(w.infoDelete);
                    if (options.requests && isRequestType.matches(type)) {
                        builder = builder.visit(inWrappers ? w.completePersistentOne : w.completeOne)
                                .visit(w.completeArray).visit(w.startOne).visit(w.startAll);
                        builder = builder.visit(inWrappers ? w.wrapperWriteback : w.handlesWriteback);
                        if (inWrappers) builder = builder.visit(w.wrapperWait).visit(w.wrapperTest);
                    }
                    if (isFailingType.matches(type)) builder = builder.visit(w.failure).visit(w.blockingReturn).visit(w.collectiveScope);
                    if (mpiClasses.contains(type.getName())) builder = builder.visit(w.init).visit(w.finalize);
                    return builder;
                });
    }

    /** A class of {@code kind} whose superclass is not one: the root of its hierarchy. */
    private static boolean isRoot(TypeDescription type, ElementMatcher<TypeDescription> kind) {
        return !type.isInterface() && kind.matches(type)
                && (type.getSuperClass() == null || !kind.matches(type.getSuperClass().asErasure()));
    }

    /** The instance {@code long} field of one of these names the type itself declares; null if none. */
    private static String nativeHandleField(TypeDescription type, Set<String> names) {
        for (net.bytebuddy.description.field.FieldDescription.InDefinedShape f : type.getDeclaredFields()) {
            if (!f.isStatic() && names.contains(f.getName()) && f.getType().represents(long.class)) return f.getName();
        }
        return null;
    }

    /**
     * The advice woven into the binding's classes, each with its method matcher: built once per
     * install ({@code Advice.to} reads and parses the advice's class file), not again for each of
     * the binding's classes.
     */
    private static final class Woven {
        final AsmVisitorWrapper create, p2p34, p2p45, otherRequests, construct, free, setErrhandler, setName, commit,
                completeOne, completeArray, startOne, startAll, handlesWriteback, failure, blockingReturn, collectiveScope, init, finalize,
                wrapperP2p34, wrapperP2p45, wrapperOthers, completePersistentOne, wrapperWait, wrapperTest, wrapperWriteback, infoSet, infoDelete, attrSet, attrDelete;

        Woven(Names n, ElementMatcher.Junction<MethodDescription> creators, ElementMatcher.Junction<MethodDescription> p2p34s,
              ElementMatcher.Junction<MethodDescription> p2p45s, ElementMatcher.Junction<MethodDescription> others,
              ElementMatcher.Junction<MethodDescription> wrapperP2p34s, ElementMatcher.Junction<MethodDescription> wrapperP2p45s,
              ElementMatcher.Junction<MethodDescription> wrapperOtherss) {
            wrapperP2p34 = Advice.to(Advices.WrapperRequest34.class).on(wrapperP2p34s);
            wrapperP2p45 = Advice.to(Advices.WrapperRequest45.class).on(wrapperP2p45s);
            wrapperOthers = Advice.to(Advices.WrapperRequestOther.class).on(wrapperOtherss);
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
            infoSet = Advice.to(Advices.InfoSet.class).on(isMethod().and(not(isStatic())).and(namedOneOf(names(n.infoSets)))
                    .and(takesArguments(String.class, String.class)));
            infoDelete = Advice.to(Advices.InfoDelete.class).on(isMethod().and(not(isStatic())).and(namedOneOf(names(n.infoDeletes)))
                    .and(takesArguments(String.class)));
            attrSet = Advice.to(Advices.AttrSet.class).on(isMethod().and(not(isStatic())).and(namedOneOf(names(n.attrSets)))
                    .and(takesArguments(2)).and(takesArgument(0, int.class)));
            attrDelete = Advice.to(Advices.AttrDelete.class).on(isMethod().and(not(isStatic())).and(namedOneOf(names(n.attrDeletes)))
                    .and(takesArguments(int.class)));
            commit = Advice.to(Advices.Commit.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.commits))).and(takesArguments(0)));
            completeOne = Advice.to(Advices.CompleteOne.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.completeOne))).and(takesArguments(0)));
            completePersistentOne = Advice.to(Advices.CompletePersistentOne.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.completeOne))).and(takesArguments(0)));
            completeArray = Advice.to(Advices.CompleteArray.class).on(isMethod().and(isStatic())
                    .and(namedOneOf(names(n.completeArray))).and(takesArguments(1)));
            startOne = Advice.to(Advices.StartOne.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.starts))).and(takesArguments(0)));
            startAll = Advice.to(Advices.StartAll.class).on(isMethod().and(isStatic())
                    .and(namedOneOf(names(n.starts))).and(takesArguments(1)));
            handlesWriteback = Advice.to(Advices.HandlesWriteback.class).on(isMethod().and(isStatic())
                    .and(namedOneOf(names(n.writebacks))).and(takesArguments(2)));
            wrapperWriteback = Advice.to(Advices.WrapperWriteback.class).on(isMethod().and(isStatic())
                    .and(namedOneOf(names(n.writebacks))).and(takesArguments(2)));
            wrapperWait = Advice.to(Advices.WrapperWait.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.waits))).and(takesArguments(0)));
            wrapperTest = Advice.to(Advices.WrapperTest.class).on(isMethod().and(not(isStatic()))
                    .and(namedOneOf(names(n.tests))).and(takesArguments(0)));
            // never finalize(): HotSpot registers an object for finalization only when its
            // class's finalize() does something, and MPJ Express's Request.finalize() is
            // empty; woven, every request would go through the finalizer thread
            // a collective written in Java has one advice, which also does the work of the next two
            ElementMatcher.Junction<MethodDescription> javaCollectives = isPublic().and(isMethod()).and(not(isStatic()))
                    .and(not(isAbstract())).and(not(isNative())).and(returns(void.class))
                    .and(namedOneOf(names(n.javaCollectives)));
            collectiveScope = Advice.to(Advices.CollectiveScope.class).on(javaCollectives);
            failure = Advice.to(Advices.Failure.class).on(isPublic().and(isMethod())
                    .and(not(isStatic())).and(not(isAbstract())).and(not(isFinalizer())).and(not(javaCollectives)));
            // the calls a thread can be stuck in ({@code calls --confirm} compares the count between looks);
            // not the static waitAll family: message loops call it per message, and a frame inside it
            // says nothing about whom it waits for
            blockingReturn = Advice.to(Advices.BlockingReturn.class).on(isPublic().and(isMethod())
                    .and(not(isStatic())).and(not(isAbstract())).and(not(isNative()))
                    .and(namedOneOf(names(n.blocking))).and(not(javaCollectives)));
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
                commits = new LinkedHashSet<>(), completeOne = new LinkedHashSet<>(), waits = new LinkedHashSet<>(), tests = new LinkedHashSet<>(),
                completeArray = new LinkedHashSet<>(), starts = new LinkedHashSet<>(),
                inits = new LinkedHashSet<>(), finalizes = new LinkedHashSet<>(), p2p34 = new LinkedHashSet<>(),
                p2p45 = new LinkedHashSet<>(), writebacks = new LinkedHashSet<>(), blocking = new LinkedHashSet<>(),
                infoSets = new LinkedHashSet<>(), infoDeletes = new LinkedHashSet<>(), attrSets = new LinkedHashSet<>(),
                attrDeletes = new LinkedHashSet<>(), javaCollectives = new LinkedHashSet<>();

        void add(BindingProfile p) {
            clones.addAll(p.cloneMethods);
            frees.addAll(p.freeMethods);
            if (p.setErrhandlerMethod != null) setErrhandlers.add(p.setErrhandlerMethod);
            if (p.setNameMethod != null) setNames.add(p.setNameMethod);
            if (p.commitMethod != null) commits.add(p.commitMethod);
            if (p.infoSetMethod != null) infoSets.add(p.infoSetMethod);
            if (p.infoDeleteMethod != null) infoDeletes.add(p.infoDeleteMethod);
            if (p.attrSetMethod != null) attrSets.add(p.attrSetMethod);
            if (p.attrDeleteMethod != null) attrDeletes.add(p.attrDeleteMethod);
            completeOne.addAll(p.waitMethods);
            waits.addAll(p.waitMethods);
            tests.addAll(p.testMethods);
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
            javaCollectives.addAll(p.javaCollectives);
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

    private static final class ErrorListener extends AgentBuilder.Listener.Adapter {
        private final boolean verbose;

        ErrorListener(boolean verbose) {
            this.verbose = verbose;
        }

        @Override
        public void onError(String typeName, ClassLoader loader, net.bytebuddy.utility.JavaModule module,
                            boolean loaded, Throwable throwable) {
            MpiLensAgent.WEAVE_ERRORS.add(typeName);
            HandleRegistry.INSTANCE.internalError("instrumenting " + typeName, throwable);
            if (verbose) System.err.println("mpilens: could not instrument " + typeName + ": " + throwable);
        }
    }
}
