package io.mpilens.agent.intercept;

import io.mpilens.agent.job.Environment;
import io.mpilens.agent.job.JobRecords;
import io.mpilens.agent.profile.BindingProfile;
import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.agent.registry.Ordered;
import io.mpilens.agent.registry.RequestRouting;
import io.mpilens.agent.registry.WrapperRequests;
import io.mpilens.agent.registry.RowSpec;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.registry.RegistryLayout;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where the advice woven into the binding hands off. Every entry point catches everything:
 * a failure here is counted in the registry (agent health) and never reaches the application.
 * The agent's own calls into the binding (to read attributes) are not intercepted.
 *
 * <p>Why this file is long: it is the one entry point of every advice (creation, completion,
 * free, start, init, finalize, failures), each of which must never throw into the application;
 * describing a new handle lives in {@link HandleDescriber}.
 */
public final class Interceptor {
    /**
     * A peer or tag the call does not give: {@code HandleInfo.UNKNOWN}'s value. Not named through
     * that class: javac keeps a class entry for a constant's class, and the boot pack would then
     * carry the readers' model (HandleInfo and its builder, ≈ 20 KB defined at every start-up).
     */
    public static final int UNKNOWN = Integer.MIN_VALUE;
    private static final HandleRegistry REGISTRY = HandleRegistry.INSTANCE;
    /** The registry's request routing, a constant to the JIT: the request hot path loads no field to reach it. */
    private static final RequestRouting REQUESTS = REGISTRY.requests();

    private static volatile BindingProfile[] profiles = new BindingProfile[0];
    private static volatile boolean requestStacks;
    /** Test hook: interception of this call throws inside the agent. */
    private static volatile String failOn;

    private static final ClassValue<BindingProfile> PROFILE_OF = new ClassValue<>() {
        @Override
        protected BindingProfile computeValue(Class<?> type) {
            ClassLoader loader = type.getClassLoader();
            // the binding's classes share a loader: one resource lookup per loader, not per class
            Object[] last = lastLoader;
            if (last != null && ((java.lang.ref.Reference<?>) last[0]).get() == loader) return (BindingProfile) last[1];
            BindingProfile found = null;
            ClassLoader system = ClassLoader.getSystemClassLoader();
            for (BindingProfile p : profiles) {
                // the system class loader's answer is known from the start-up's class path scan
                // (asking it searches every JDK module first: ≈ 5 ms)
                if (loader == system && p.markerOnSystemClassPath
                        || (loader == null ? ClassLoader.getSystemResource(p.markerResource) != null
                        : loader.getResource(p.markerResource) != null)) {
                    found = p;
                    break;
                }
            }
            if (loader != null) lastLoader = new Object[] {new java.lang.ref.WeakReference<>(loader), found};
            return found;
        }
    };
    /** The last class loader {@link #PROFILE_OF} looked at (held weakly) and its profile. */
    private static volatile Object[] lastLoader;

    /** Per binding class: its MPI process (one class loader per rank under MPJ multicore). */
    private static final ClassValue<Integer> PROC_OF = new ClassValue<>() {
        @Override
        protected Integer computeValue(Class<?> type) {
            return REGISTRY.process(type.getClassLoader());
        }
    };
    private static final ClassValue<Optional<HandleKind>> KIND_OF = new ClassValue<>() {
        @Override
        protected Optional<HandleKind> computeValue(Class<?> type) {
            BindingProfile p = PROFILE_OF.get(type);
            return Optional.ofNullable(p == null ? null : p.kindOf(type));
        }
    };
    private static final ClassValue<Boolean> INTERNAL = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            BindingProfile p = PROFILE_OF.get(type);
            return p != null && p.isInternal(type);
        }
    };

    /**
     * The field a request is keyed by: its native handle when the binding has one (Open MPI);
     * else the wrapper id field the agent added to the binding's request classes at load time
     * (MPJ Express under -javaagent), which holds the request's registry id. Null when neither
     * exists (late attach to MPJ Express): the request is then tracked by reference.
     */
    private static Field keyField(Class<?> type) {
        BindingProfile p = PROFILE_OF.get(type);
        if (p == null || p.kindOf(type) != HandleKind.REQUEST) return null;
        Field f = Reflect.declaredField(type, p.requestKeyField != null ? p.requestKeyField : RegistryLayout.WRAPPER_ID_FIELD);
        return f != null && f.getType() == long.class && !Modifier.isStatic(f.getModifiers()) ? f : null;
    }

    private Interceptor() {
    }

    /**
     * A request's key: its native handle, or the id the agent stored in it (binding without
     * native handles); 0 when it is tracked by reference, or not at all.
     */
    public static long requestKey(Object request) {
        if (request == null) return 0;
        try {
            RequestType type = requestType(request.getClass());
            return type.key != null ? NativeHandles.read(request, type) : 0;
        } catch (Throwable t) {
            REGISTRY.internalError("request handle", t);
            return 0;
        }
    }

    /**
     * Reads a request's native handle. Reflection checks the receiver's type on every read; the
     * hot path already knows it (the RequestType was looked up by the object's own class), so
     * it reads at the field's offset, falling back to reflection when Unsafe is not available.
     */
    static final class NativeHandles {
        private static final sun.misc.Unsafe UNSAFE = unsafe();

        private static sun.misc.Unsafe unsafe() {
            try {
                Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                return (sun.misc.Unsafe) f.get(null);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }

        static long offsetOf(Field f) {
            return UNSAFE == null ? -1 : UNSAFE.objectFieldOffset(f);
        }

        static long read(Object request, RequestType type) throws IllegalAccessException {
            return type.keyOffset >= 0 ? UNSAFE.getLong(request, type.keyOffset) : type.key.getLong(request);
        }

        /** The agent's own field only ({@link RequestType#idKeyed}): the binding's fields are never written. */
        static void writeId(Object request, RequestType type, long id) throws IllegalAccessException {
            if (type.keyOffset >= 0) UNSAFE.putLong(request, type.keyOffset, id);
            else type.key.setLong(request, id);
        }
    }

    /** What the request hot path needs to know about a class, looked up once per class. */
    private static final class RequestType {
        final Class<?> type;
        final String name;
        final boolean request;
        final boolean persistent;
        final Field key;
        /** {@link #key} is the agent's wrapper id field: the request is keyed by its registry id. */
        final boolean idKeyed;
        /** Offset of {@link #key} for unchecked reads; the class was checked when this was made. */
        final long keyOffset;
        final int proc;
        /** 0: not a request holder, 1: communicator/window/file, 2: binding internals. */
        final int holder;
        /** The class's binding, null if none. */
        final BindingProfile profile;

        RequestType(Class<?> type, boolean request, boolean persistent, Field key, int proc, int holder,
                    BindingProfile profile) {
            this.type = type;
            this.name = type.getName();
            this.request = request;
            this.persistent = persistent;
            this.key = key;
            this.idKeyed = key != null && key.getName().equals(RegistryLayout.WRAPPER_ID_FIELD);
            this.keyOffset = key == null ? -1 : NativeHandles.offsetOf(key);
            this.proc = proc;
            this.holder = holder;
            this.profile = profile;
        }
    }

    /*
     * Monomorphic caches for the hot path: message loops see one request class and one
     * communicator class, so the last answer is kept (an immutable object, so a racy read is
     * still a consistent one) in front of the ClassValue lookup.
     */
    private static RequestType lastRequestType = new RequestType(Void.class, false, false, null, -1, 0, null);
    private static RequestType lastHolderType = lastRequestType;

    private static RequestType requestType(Class<?> c) {
        RequestType t = lastRequestType;
        if (t.type == c) return t;
        t = REQUEST_TYPE.get(c);
        lastRequestType = t;
        return t;
    }

    private static RequestType holderType(Class<?> c) {
        RequestType t = lastHolderType;
        if (t.type == c) return t;
        t = REQUEST_TYPE.get(c);
        lastHolderType = t;
        return t;
    }

    private static final ClassValue<RequestType> REQUEST_TYPE = new ClassValue<>() {
        @Override
        protected RequestType computeValue(Class<?> type) {
            Optional<HandleKind> k = KIND_OF.get(type);
            boolean request = k.isPresent() && k.get() == HandleKind.REQUEST;
            boolean holds = k.isPresent() && (k.get() == HandleKind.COMMUNICATOR || k.get() == HandleKind.WINDOW
                    || k.get() == HandleKind.FILE);
            int holder = INTERNAL.get(type) ? 2 : holds ? 1 : 0;
            BindingProfile p = PROFILE_OF.get(type);
            int proc = p == null ? -1 : PROC_OF.get(type);
            boolean persistent = request && p != null && AgentCalls.isA(type, p.persistentRequestClass);
            if (persistent) persistentSeen = true;
            return new RequestType(type, request, persistent, keyField(type), proc, holder, p);
        }
    };

    /**
     * The request hot path: a point-to-point call (peer and tag known) or another request-creating
     * call ({@link #UNKNOWN} for both).
     */
    public static void requestCreated(Class<?> origin, String call, Object self, int peer, int tag, Object result) {
        if (result == null) return;
        try {
            if (failOn != null) injectFailure(call);
            Object holder = null;
            if (self != null) {
                int h = holderType(self.getClass()).holder;
                if (h == 2) return; // binding internals: the application's call on the wrapper registers it
                if (h == 1) holder = self;
            }
            RequestType type = requestType(result.getClass());
            if (!type.request || (threadsInInternals > 0 && insideAgent())) return;
            long key = type.key == null ? 0 : type.idKeyed ? RequestRouting.KEY_IS_ID : NativeHandles.read(result, type);
            long id = REQUESTS.addRequest(result, key, type.proc, type.name, call, peer, tag, holder, type.persistent);
            if (type.idKeyed) {
                if (id == 0) return;
                key = id;
                NativeHandles.writeId(result, type, id);
            }
            if (requestStacks) {
                BindingProfile p = PROFILE_OF.get(origin);
                if (p != null) REQUESTS.setStack(result, key, HandleDescriber.stack(p));
            }
        } catch (Throwable t) {
            REGISTRY.internalError(call, t);
        }
    }

    /** Entry of the binding's array write-back: a handle that becomes null means that request finished. */
    public static void handlesWrittenBack(Object requests, Object newHandles) {
        if (!(requests instanceof Object[]) || !(newHandles instanceof long[])) return;
        try {
            Object[] rs = (Object[]) requests;
            long[] hs = (long[]) newHandles;
            for (int i = 0; i < rs.length && i < hs.length; i++) {
                if (rs[i] == null) continue;
                RequestType type = requestType(rs[i].getClass());
                long old = type.key != null ? NativeHandles.read(rs[i], type) : 0;
                if (old != 0 && old != hs[i] && !type.persistent) REQUESTS.requestCompleted(rs[i], old);
            }
        } catch (Throwable t) {
            REGISTRY.internalError("request write-back", t);
        }
    }

    /** Whether a persistent request was created (they stay in the tables when others live in wrappers). */
    public static boolean persistentSeen() {
        return persistentSeen;
    }

    /**
     * Whether a static completion call over a request array has anything to do: with a binding
     * that writes handles back (Open MPI), only persistent requests are left to it, so nothing
     * until one was created. A small method the compiler inlines into the advice, where
     * {@link #completedArray} is too big to be: message loops call {@code waitAll} per message.
     */
    public static boolean arrayCompletionNeeded() {
        return !arraysSeenElsewhere || persistentSeen;
    }

    /**
     * Array completions of requests that are not persistent are seen elsewhere (set at
     * {@link #configure}): every profile has a handle write-back method, or the requests live in
     * their wrappers, whose completions the one-request wait sees (MPJ Express's array calls call
     * {@code Wait()} on each request they complete).
     */
    private static boolean arraysSeenElsewhere;

    public static void configure(BindingProfile[] all, boolean stacksForRequests, String failOnCall,
                                 boolean requestsInWrappers) {
        boolean covers = all.length > 0;
        for (BindingProfile p : all) covers &= p.handleWritebackMethod != null || requestsInWrappers;
        arraysSeenElsewhere = covers;
        profiles = all;
        lastLoader = null;
        NullHandles.configure(all);
        requestStacks = stacksForRequests;
        failOn = failOnCall;
    }

    // ------------------------------------------------------------------ entry points (from advice)

    public static void created(Class<?> origin, String call, Object self, Object[] args, Object result) {
        if (result == null || insideAgent()) return;
        try {
            BindingProfile p = PROFILE_OF.get(origin);
            if (p == null) return;
            if (self != null && p.isInternal(self.getClass())) return;
            HandleKind kind = p.kindOf(result.getClass());
            if (kind == null) return;
            injectFailure(call);
            int proc = PROC_OF.get(origin);
            if (kind == HandleKind.REQUEST) {
                requestCreated(origin, call, self, UNKNOWN, UNKNOWN, result);
            } else if (!call.startsWith("new ") && NullHandles.isNull(p, proc, kind, result)) {
                // MPI answered with its null handle (split with MPI.UNDEFINED, create for a
                // non-member, a graph's surplus ranks, getParent when not spawned): no object to show
                return;
            } else if (REGISTRY.isInitialized(proc)) {
                REGISTRY.add(result, HandleDescriber.describe(p, kind, proc, call, self, args, result));
            } else {
                // before MPI_Init or after MPI_Finalize a getter can be a fatal MPI error: record only
                REGISTRY.add(result, HandleDescriber.identify(p, kind, proc, call, result));
            }
        } catch (Throwable t) {
            REGISTRY.internalError(call, t);
        }
    }

    /** A public constructor of a handle class returned: the call is named {@code new Class} only when it is recorded. */
    public static void constructed(Class<?> origin, Object[] args, Object self) {
        created(origin, "new " + origin.getSimpleName(), null, args, self);
    }

    public static void freed(Object self, long key) {
        if (self == null || insideAgent()) return;
        try {
            // a request in its wrapper: nothing is registered; its ring slot is done
            if (WrapperRequests.done(self)) return;
            RequestType type = requestType(self.getClass());
            if (type.request && (type.idKeyed ? key == 0
                    : type.key != null && NullHandles.isNullValue(type.profile, type.proc, HandleKind.REQUEST, type.type, key))) {
                // free() of a request that already finished (a null request): the binding does nothing either
                return;
            }
            REGISTRY.freed(self, key);
        } catch (Throwable t) {
            REGISTRY.internalError("free", t);
        }
    }

    /** Instance wait/test on one request; {@code result} decides for test calls. */
    public static void completedOne(String call, Object request, long key, Object result) {
        if (request == null) return;
        try {
            RequestType type = requestType(request.getClass()); // the class CompleteOne's entry just looked up
            BindingProfile p = type.profile;
            if (p == null) return;
            boolean done = p.waitMethods.contains(call) || Boolean.TRUE.equals(result)
                    || (result != null && !(result instanceof Boolean));
            if (done) completed(type, request, key);
        } catch (Throwable t) {
            REGISTRY.internalError(call, t);
        }
    }

    /**
     * A request finished ({@code key}: read before the call, as {@link #requestKey} does). A
     * request keyed by its id also loses the id from its field (unless persistent: it is started
     * again): a later completion of it finds 0 and stops here, without looking for it in the
     * registry — MPJ Express's {@code Waitall} calls {@code Wait} on each request, so every
     * request is seen completing twice.
     */
    private static void completed(RequestType type, Object request, long key) throws IllegalAccessException {
        if (type.idKeyed) {
            if (key == 0) return; // not in the registry, or already completed
            if (!type.persistent) NativeHandles.writeId(request, type, 0);
        }
        REQUESTS.requestCompleted(request, key);
    }

    /** What a static completion call is, looked up once per call site (class and method name). */
    private static final class ArrayCall {
        final Class<?> origin;
        final String call;
        final BindingProfile profile;
        final boolean waitAll;
        final boolean testAll;
        /**
         * Non-persistent requests of a binding with a write-back method, or living in their
         * wrappers, were handled there; what is left (persistent requests, requests in the tables
         * of a binding without a write-back) is done here.
         */
        final boolean onlyPersistent;

        ArrayCall(Class<?> origin, String call, BindingProfile p) {
            this.origin = origin;
            this.call = call;
            this.profile = p;
            this.waitAll = p != null && p.waitAllMethods.contains(call);
            this.testAll = p != null && p.testAllMethods.contains(call);
            this.onlyPersistent = p != null && arraysSeenElsewhere;
        }
    }

    /**
     * Whether a persistent request class has been met (set when its {@link RequestType} is made,
     * at its first creation). Until then a completion call of a binding with a write-back method
     * has nothing left to do, and returns before looking at the array.
     */
    private static volatile boolean persistentSeen;

    /** Message loops call one completion method: its answer is kept (immutable, so a racy read is consistent). */
    private static ArrayCall lastArrayCall = new ArrayCall(Void.class, "", null);

    /** Static completion calls over a request array. */
    public static void completedArray(Class<?> origin, String call, Object array, Object result) {
        if (!(array instanceof Object[])) return;
        try {
            ArrayCall site = lastArrayCall;
            if (site.origin != origin || site.call != call) {
                site = new ArrayCall(origin, call, PROFILE_OF.get(origin));
                lastArrayCall = site;
            }
            BindingProfile p = site.profile;
            if (p == null) return;
            Object[] requests = (Object[]) array;
            boolean all = site.waitAll || (site.testAll && (Boolean.TRUE.equals(result)
                    || (result != null && !(result instanceof Boolean))));
            boolean onlyPersistent = site.onlyPersistent;
            if (onlyPersistent && !persistentSeen) return;
            if (all) {
                for (Object r : requests) {
                    if (r != null && (!onlyPersistent || requestType(r.getClass()).persistent)) {
                        completed(requestType(r.getClass()), r, requestKey(r));
                    }
                }
                return;
            }
            for (int i : completedIndexes(result)) {
                if (i >= 0 && i < requests.length && requests[i] != null
                        && (!onlyPersistent || requestType(requests[i].getClass()).persistent)) {
                    completed(requestType(requests[i].getClass()), requests[i], requestKey(requests[i]));
                }
            }
            // whatever the call returned, a request the binding reports as null has finished
            if (p.requestIsNullMethod != null && p.handleWritebackMethod == null) {
                for (Object r : requests) {
                    if (r == null) continue;
                    long key = requestKey(r);
                    RequestType type = requestType(r.getClass());
                    if ((key != 0 || !type.idKeyed) && REQUESTS.isTrackedRequest(r, key)
                            && Boolean.TRUE.equals(AgentCalls.call(r, p.requestIsNullMethod))) {
                        completed(type, r, key);
                    }
                }
            }
        } catch (Throwable t) {
            REGISTRY.internalError(call, t);
        }
    }

    /** A thread left a blocking MPI call ({@code weave.Advices.BlockingReturn}): one plain increment. */
    public static void blockingCallReturned(Class<?> origin) {
        // one process in this JVM: no lookup; several (MPJ Express multicore): the origin's loader says which
        if (REGISTRY.oneProcess()) REGISTRY.blockingCallReturned();
        else REGISTRY.blockingCallReturned(PROC_OF.get(origin));
    }

    /**
     * A thread entered a collective the binding writes in Java: until it leaves, what the binding
     * creates, frees or raises is its own (the agent's depth, which every entry point checks).
     * Returns the thread's depth cell for the leave; one thread-local lookup per collective.
     */
    public static int[] enterCollective() {
        int[] depth = AgentCalls.DEPTH.get();
        depth[0]++;
        return depth;
    }

    /** The collective entered with {@link #enterCollective} left (returned or threw): one blocking call returned. */
    public static void leaveCollective(int[] depth, Class<?> origin) {
        if (depth != null && depth[0] > 0) depth[0]--;
        blockingCallReturned(origin);
    }

    /** Handles created until the matching leave are the binding's internals, not the application's. */
    public static void enterBindingInternals() {
        AgentCalls.DEPTH.get()[0]++;
        synchronized (Interceptor.class) {
            threadsInInternals++;
        }
    }

    public static void leaveBindingInternals() {
        int[] depth = AgentCalls.DEPTH.get();
        if (depth[0] > 0) {
            depth[0]--;
            synchronized (Interceptor.class) {
                threadsInInternals--;
            }
        }
    }

    /** Threads inside Init or Start right now; the request hot path reads the thread-local only then. */
    private static volatile int threadsInInternals;

    public static void started(Object requestOrArray) {
        try {
            if (requestOrArray instanceof Object[]) {
                for (Object r : (Object[]) requestOrArray) if (r != null) REQUESTS.requestStarted(r, requestKey(r));
            } else if (requestOrArray != null) {
                REQUESTS.requestStarted(requestOrArray, requestKey(requestOrArray));
            }
        } catch (Throwable t) {
            REGISTRY.internalError("start", t);
        }
    }

    public static void errhandlerSet(Object holder, Object errhandler) {
        if (insideAgent()) return;
        try {
            REGISTRY.setErrhandler(holder, errhandler);
        } catch (Throwable t) {
            REGISTRY.internalError("setErrhandler", t);
        }
    }

    public static void named(Object wrapper, Object name) {
        try {
            if (name instanceof String) REGISTRY.setName(wrapper, (String) name);
        } catch (Throwable t) {
            REGISTRY.internalError("setName", t);
        }
    }

    /** An info's pair was set ({@code set}) or deleted: the registry's copy of its pairs follows. */
    public static void infoChanged(Object info, String key, String value, boolean set) {
        if (info == null || key == null || insideAgent()) return;
        try {
            REGISTRY.infoChanged(info, key, value, set);
        } catch (Throwable t) {
            REGISTRY.internalError("info " + (set ? "set" : "delete"), t);
        }
    }

    /** An attribute was cached ({@code set}) or deleted on a communicator, window or datatype. */
    public static void attributeChanged(Object holder, int keyval, Object value, boolean set) {
        if (holder == null || insideAgent()) return;
        try {
            REGISTRY.attributeChanged(holder, keyval, set ? valueText(value) : null);
        } catch (Throwable t) {
            REGISTRY.internalError("attribute " + (set ? "set" : "delete"), t);
        }
    }

    /**
     * An attribute value as text without running the application's code: strings, numbers,
     * booleans and characters by value (JDK classes), arrays as type and length, anything else
     * as its class name.
     */
    static String valueText(Object v) {
        if (v == null) return "null";
        if (v instanceof String) return '"' + (String) v + '"';
        Class<?> c = v.getClass();
        boolean jdkValue = v instanceof Number || v instanceof Boolean || v instanceof Character;
        if (jdkValue && c.getName().startsWith("java.")) return v.toString();
        if (c.isArray()) return c.getComponentType().getSimpleName() + "[" + Array.getLength(v) + "]";
        return c.getName() + " instance";
    }

    public static void committed(Object datatype) {
        try {
            REGISTRY.committed(datatype);
        } catch (Throwable t) {
            REGISTRY.internalError("commit", t);
        }
    }

    /** Run once after the first MPI_Init (the agent's verbose report); null for none. */
    private static volatile Runnable afterInit;

    public static void afterInit(Runnable r) {
        afterInit = r;
    }

    /**
     * MPI_Init returned on this thread, or the agent attached to a JVM whose MPI is initialised
     * (a late attach, on another thread). MPI is not asked for the rank and size where the
     * launcher's environment says them (below). The predefined
     * handles are described from the rank and size alone: none is asked about itself.
     */
    public static void initialized(Class<?> mpiClass) {
        Runnable once = afterInit;
        if (once != null) {
            afterInit = null;
            try {
                once.run();
            } catch (Throwable t) {
                // a report, nothing more
            }
        }
        BindingProfile.bindingLoaded();
        try {
            BindingProfile p = PROFILE_OF.get(mpiClass);
            if (p == null) return;
            int proc = PROC_OF.get(mpiClass);
            Object world = mpiClass.getField(p.worldCommField).get(null);
            // where the launcher's environment says them, MPI is not asked at all: a late attach runs
            // on another thread than the application's, and a getter found by reflection resolves
            // every class its communicator class names (Open MPI: Intercomm, CartComm, GraphComm,
            // Prequest), classes the program may never load (docs/performance.md, start-up)
            int[] rankSize = fromEnvironment(p.worldRankSizeEnvironment);
            int rank = rankSize != null ? rankSize[0] : AgentCalls.asInt(AgentCalls.call(world, p.rankMethod));
            int size = rankSize != null ? rankSize[1] : AgentCalls.asInt(AgentCalls.call(world, p.sizeMethod));
            REGISTRY.processInitialized(proc, rank, size);
            JobRecords.initialized(rank, size);
            int undefined = AgentCalls.staticInt(mpiClass, "UNDEFINED", -1);
            for (Field f : mpiClass.getFields()) {
                // no handle is a primitive: Open MPI's MPI class has 117 int constants of 161
                // fields, and each field read makes the JDK build an accessor (docs/performance.md, start-up)
                if (!Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) continue;
                Object v = Ordered.staticValue(f);
                if (v == null) continue;
                HandleKind kind = p.kindOf(v.getClass());
                if (kind == null) continue;
                if (f.getName().endsWith(p.nullConstantSuffix)) {
                    Long h = NullHandles.constant(proc, kind, v, p);
                    if (kind == HandleKind.REQUEST && h != null) WrapperRequests.nullHandle(h);
                }
                RowSpec spec = HandleDescriber.fields(p, kind, proc, null, v); // no creation stack: MPI made it
                describePredefined(p, f.getName(), spec, rank, size, undefined);
                spec.flags |= RegistryLayout.F_PREDEFINED
                        | (kind == HandleKind.DATATYPE ? RegistryLayout.F_COMMITTED : 0);
                if (spec.name == null) spec.name = "MPI_" + f.getName(); // both bindings name them MPI_<field>
                REGISTRY.addPredefined(v, spec);
            }
        } catch (Throwable t) {
            REGISTRY.internalError("MPI init", t);
        }
    }

    /**
     * COMM_WORLD, COMM_SELF and GROUP_EMPTY are what MPI defines them to be; no getter is asked
     * (a getter on some predefined handles, e.g. Open MPI's deprecated MPI_LB, is a fatal error).
     */
    private static void describePredefined(BindingProfile p, String field, RowSpec s, int rank, int size, int undefined) {
        if (field.equals(p.worldCommField) && size > 0) {
            s.i0 = rank;
            s.i1 = size;
            s.members = new int[size];
            for (int i = 0; i < size; i++) s.members[i] = i;
        } else if (field.equals(p.selfCommField) && rank >= 0) {
            s.i0 = 0;
            s.i1 = 1;
            s.members = new int[] {rank};
        } else if (field.equals(p.emptyGroupField)) {
            s.i0 = undefined;
            s.i1 = 0;
            s.members = new int[0];
        }
    }

    /** {rank, size} from the launcher's environment, null when it does not say. */
    private static int[] fromEnvironment(String[] names) {
        if (names == null) return null;
        try {
            return new int[] {Integer.parseInt(Environment.get(names[0]).trim()), Integer.parseInt(Environment.get(names[1]).trim())};
        } catch (RuntimeException e) {
            return null;
        }
    }

    public static void finalized(Class<?> mpiClass) {
        try {
            REGISTRY.processFinalized(PROC_OF.get(mpiClass));
            JobRecords.finalized(REGISTRY.rankOf(PROC_OF.get(mpiClass)));
        } catch (Throwable t) {
            REGISTRY.internalError("MPI finalize", t);
        }
    }

    // ------------------------------------------------------------------ failures

    /** Per thread: the exception recorded last and its ring entry, so nested binding calls record it once. */
    private static final ThreadLocal<Object[]> LAST_FAILURE = new ThreadLocal<>() {
        @Override
        protected Object[] initialValue() {
            return new Object[2];
        }
    };
    /** Per exception class: its getErrorClass/getErrorCode getters (Open MPI), empty if it has none. */
    private static final ClassValue<java.lang.reflect.Method[]> ERROR_GETTERS = new ClassValue<>() {
        @Override
        protected java.lang.reflect.Method[] computeValue(Class<?> type) {
            try {
                return new java.lang.reflect.Method[] {type.getMethod("getErrorClass"), type.getMethod("getErrorCode")};
            } catch (NoSuchMethodException | SecurityException e) {
                return new java.lang.reflect.Method[0];
            }
        }
    };

    /**
     * A binding call on a communicator, request or window threw. MPI exceptions are recorded with
     * the handle, the peer of a point-to-point call (argument 3 or 4, by binding) and the cause;
     * the exception itself continues to the application unchanged.
     */
    public static void failed(Class<?> origin, String call, Object self, Object arg3, Object arg4, Throwable thrown) {
        if (thrown == null || self == null || insideAgent()) return;
        try {
            BindingProfile p = PROFILE_OF.get(origin);
            if (p == null || !AgentCalls.isA(thrown.getClass(), p.exceptionClass)) return;
            if (p.isInternal(self.getClass())) return;
            Object[] last = LAST_FAILURE.get();
            Object previous = last[0] instanceof java.lang.ref.WeakReference ? ((java.lang.ref.WeakReference<?>) last[0]).get() : null;
            long replace = previous == thrown ? (Long) last[1] : -1;
            int peerArg = p.requestCalls.containsKey(call) ? p.requestCalls.get(call).peerArg
                    : p.calls.peerArgumentOf(call);
            int peer = peerArg == 3 ? AgentCalls.asInt(arg3) : peerArg == 4 ? AgentCalls.asInt(arg4) : Integer.MIN_VALUE;
            int errorClass = Integer.MIN_VALUE, errorCode = Integer.MIN_VALUE;
            java.lang.reflect.Method[] getters = ERROR_GETTERS.get(thrown.getClass());
            if (getters.length == 2) {
                errorClass = AgentCalls.asInt(getters[0].invoke(thrown));
                errorCode = AgentCalls.asInt(getters[1].invoke(thrown));
            }
            Throwable cause = thrown;
            for (int i = 0; i < 16 && cause.getCause() != null && cause.getCause() != cause; i++) cause = cause.getCause();
            HandleKind kind = p.kindOf(self.getClass());
            long key = kind == HandleKind.REQUEST ? requestKey(self) : 0;
            long entry = REGISTRY.recordError(replace, PROC_OF.get(origin), call, self, key, peer, errorClass,
                    errorCode, cause.getClass().getName(), cause.getMessage());
            last[0] = new java.lang.ref.WeakReference<>(thrown);
            last[1] = entry;
        } catch (Throwable t) {
            REGISTRY.internalError("failure of " + call, t);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static boolean insideAgent() {
        return !outsideAgent();
    }

    /**
     * A request just made belongs to the application: no thread is inside the binding's Init or
     * Start (MPJ Express's {@code Prequest.Start} makes a request with {@code Isend} and keeps only
     * its inner handle), or this one is not. One volatile read on the request path.
     */
    public static boolean applicationsRequest() {
        return threadsInInternals == 0 || outsideAgent();
    }

    /** Neither the agent nor a collective the binding writes in Java is running on this thread. */
    public static boolean outsideAgent() {
        return AgentCalls.DEPTH.get()[0] == 0;
    }

    private static List<Integer> completedIndexes(Object result) {
        List<Integer> out = new ArrayList<>();
        if (result instanceof Integer) {
            out.add((Integer) result);
        } else if (result instanceof int[]) {
            for (int i : (int[]) result) out.add(i);
        } else if (result instanceof Object[]) {
            for (Object st : (Object[]) result) addStatusIndex(st, out);
        } else if (result != null) {
            addStatusIndex(result, out);
        }
        return out;
    }

    private static void addStatusIndex(Object status, List<Integer> out) {
        try {
            Object idx = Reflect.field(status, "index");
            if (idx instanceof Integer) out.add((Integer) idx);
        } catch (IllegalAccessException | RuntimeException e) {
            // a status without an index field: the isNull check below still applies
        }
    }

    private static void injectFailure(String call) {
        String f = failOn;
        if (f != null && f.equals(call)) {
            throw new IllegalStateException("injected failure in interception of " + call + " (failOn option)");
        }
    }
}
