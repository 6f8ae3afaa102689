package io.mpilens.agent.intercept;

import io.mpilens.agent.profile.BindingProfile;
import io.mpilens.agent.registry.RowSpec;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.registry.RegistryLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the agent records about a new handle: the wrapper's own fields, the creating call's
 * arguments, and the few getters that are safe on a handle that just came out of a successful
 * call (each with its precondition: docs/architecture.md, "MPI calls the agent makes"). Calls
 * into the binding go through {@link AgentCalls#call}, so interception ignores them; nothing here
 * calls back into {@link Interceptor}, which hands each new handle to this class.
 */
public final class HandleDescriber {
    private static final int STACK_FRAMES = 8;
    /** Made when the first creation stack is taken (requestStacks, the tables): not at every rank's start-up. */
    private static final class Walker {
        static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    }
    /**
     * Creation stacks by the class of their first application frame, then its method and bytecode
     * index. A ClassValue: the class holds its own sites, so the agent keeps no class loaded.
     */
    private static final ClassValue<Map<String, String[]>> SITES = new ClassValue<>() {
        @Override
        protected Map<String, String[]> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };
    /** Creating call sites kept per class; beyond, a site's stack is walked at each creation (still bounded). */
    private static final int SITES_PER_CLASS = 512;
    private static final Map<Integer, Object> WORLD_GROUPS = new ConcurrentHashMap<>();

    private HandleDescriber() {
    }

    /** What can be known without asking MPI: class, creating call, native handle, stack. */
    static RowSpec identify(BindingProfile p, HandleKind kind, int proc, String call, Object result)
            throws ReflectiveOperationException {
        RowSpec s = fields(p, kind, proc, call, result);
        s.stack = stack(p);
        return s;
    }

    /** {@link #identify} without the creation stack. */
    static RowSpec fields(BindingProfile p, HandleKind kind, int proc, String call, Object result)
            throws ReflectiveOperationException {
        RowSpec s = new RowSpec(kind);
        s.proc = proc;
        s.bindingClass = result.getClass().getName();
        s.call = call;
        Object nativeHandle = Reflect.nativeHandle(result, p.nativeHandleField);
        if (nativeHandle instanceof Long) {
            s.cHandle = (Long) nativeHandle;
            s.flags |= RegistryLayout.F_HAS_CHANDLE;
        }
        s.i0 = s.i1 = s.i2 = Integer.MIN_VALUE;
        s.l0 = s.l1 = s.l2 = Integer.MIN_VALUE;
        return s;
    }

    /** The handle just came out of a successful MPI call, so asking MPI about it is safe. */
    static RowSpec describe(BindingProfile p, HandleKind kind, int proc, String call, Object self, Object[] args,
                            Object result) throws ReflectiveOperationException {
        RowSpec s = identify(p, kind, proc, call, result);
        HandleKind selfKind = self == null ? null : p.kindOf(self.getClass());
        switch (kind) {
            case COMMUNICATOR:
                describeCommunicator(p, proc, s, call, self, args, result);
                s.derivedFrom = selfKind == HandleKind.COMMUNICATOR ? self : firstOfKind(p, args, HandleKind.COMMUNICATOR);
                s.ref1 = firstOfKind(p, args, HandleKind.GROUP);
                break;
            case GROUP:
                s.i0 = AgentCalls.asInt(AgentCalls.call(result, p.rankMethod));
                s.i1 = AgentCalls.asInt(AgentCalls.call(result, p.sizeMethod));
                s.members = worldRanks(p, proc, result);
                s.derivedFrom = selfKind == HandleKind.COMMUNICATOR || selfKind == HandleKind.GROUP ? self
                        : firstOfKind(p, args, HandleKind.GROUP);
                break;
            case DATATYPE:
                s.name = AgentCalls.asString(AgentCalls.call(result, p.nameMethod));
                s.l0 = AgentCalls.asInt(AgentCalls.call(result, p.datatypeSizeMethod));
                s.l1 = AgentCalls.asInt(AgentCalls.call(result, p.datatypeExtentMethod));
                s.l2 = AgentCalls.asInt(AgentCalls.call(result, p.datatypeLbMethod));
                s.parents = allOfKind(p, args, HandleKind.DATATYPE);
                s.typeArgs = typeArguments(p, args);
                break;
            case WINDOW: {
                s.name = AgentCalls.asString(AgentCalls.call(result, p.nameMethod));
                s.ref0 = firstOfKind(p, args, HandleKind.COMMUNICATOR);
                BindingProfile.WindowCtor w = p.windowCtorsByArity.get(args.length);
                if (w != null) {
                    s.l0 = AgentCalls.asInt(args[w.sizeArg]);
                    s.i0 = AgentCalls.asInt(args[w.dispUnitArg]);
                } else {
                    s.l0 = Integer.MIN_VALUE;
                    s.i0 = Integer.MIN_VALUE;
                }
                break;
            }
            case FILE:
                s.ref0 = firstOfKind(p, args, HandleKind.COMMUNICATOR);
                if (p.fileNameArg >= 0 && p.fileNameArg < args.length && args[p.fileNameArg] instanceof String) {
                    s.fileName = (String) args[p.fileNameArg];
                }
                if (p.fileModeArg >= 0 && p.fileModeArg < args.length && args[p.fileModeArg] instanceof Integer) {
                    s.fileMode = (Integer) args[p.fileModeArg];
                    s.fileModeFlags = modeFlags(p, result.getClass().getClassLoader(), s.fileMode);
                }
                break;
            case INFO:
                if (selfKind == HandleKind.INFO) s.infoFrom = self; // dup: the copy starts with the original's pairs
                break;
            default:
                break;
        }
        if (kind == HandleKind.WINDOW || kind == HandleKind.FILE || kind == HandleKind.COMMUNICATOR) {
            s.createdWithInfo = firstOfKind(p, args, HandleKind.INFO);
        }
        return s;
    }

    /** Mode bits spelled as the binding's MPI class names them ({@code MODE_CREATE|MODE_RDWR}); static field reads only. */
    static String modeFlags(BindingProfile p, ClassLoader loader, int mode) {
        if (p.fileModeFields.length == 0) return null;
        Class<?> mpi;
        try {
            mpi = Class.forName(p.mpiClass, false, loader); // loaded long ago: MPI was initialised
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        int named = 0;
        for (String name : p.fileModeFields) {
            int bit = AgentCalls.staticInt(mpi, name, 0); // 0: the binding has no such mode
            if (bit != 0 && (mode & bit) == bit) {
                out.append(out.length() == 0 ? "" : "|").append(name);
                named |= bit;
            }
        }
        if ((mode & ~named) != 0) out.append(out.length() == 0 ? "" : "|").append("0x").append(Integer.toHexString(mode & ~named));
        return out.toString();
    }

    /**
     * A communicator that just came out of a successful call and is not the null handle. A
     * nonblocking dup's result may not be used before its request completes, so the
     * communicator it copies (the receiver of the call that succeeded) answers for it, and its
     * name stays unknown. The topology comes from the creating call's arguments where they hold
     * it, else from the getter that matches the topology MPI_Topo_test reports.
     */
    private static void describeCommunicator(BindingProfile p, int proc, RowSpec s, String call, Object self,
                                             Object[] args, Object comm) throws ReflectiveOperationException {
        boolean copyPending = call != null && self != null && p.nonblockingDupCalls.contains(call)
                && p.kindOf(self.getClass()) == HandleKind.COMMUNICATOR;
        Object source = copyPending ? self : comm;
        if (!copyPending) s.name = AgentCalls.asString(AgentCalls.call(comm, p.nameMethod));
        s.i0 = AgentCalls.asInt(AgentCalls.call(source, p.rankMethod));
        s.i1 = AgentCalls.asInt(AgentCalls.call(source, p.sizeMethod));
        boolean inter = Boolean.TRUE.equals(AgentCalls.call(source, p.isInterMethod));
        if (inter) {
            s.flags |= RegistryLayout.F_INTER;
            s.i2 = AgentCalls.asInt(AgentCalls.call(source, p.remoteSizeMethod));
            s.remoteMembers = membersOf(p, proc, source, p.remoteGroupMethod);
        }
        s.members = membersOf(p, proc, source, p.groupMethod);
        if (call != null && topologyFromArguments(p, s, call, args)) return;
        if (call != null && p.distGraphCalls.contains(call)) {
            distGraph(p, s, source); // the creating call made a distributed graph: its neighbours getter is valid
            return;
        }
        boolean cart = AgentCalls.isA(source.getClass(), p.cartClass);
        boolean graph = AgentCalls.isA(source.getClass(), p.graphClass);
        if (!cart && !graph) return;
        if (p.topologyKindMethod != null) {
            // the class does not tell a graph from a distributed graph (Open MPI's GraphComm is both)
            int kind = AgentCalls.asInt(AgentCalls.call(source, p.topologyKindMethod));
            Class<?> mpi = Class.forName(p.mpiClass, false, source.getClass().getClassLoader());
            cart = kind == AgentCalls.staticInt(mpi, "CART", Integer.MIN_VALUE + 1);
            graph = kind == AgentCalls.staticInt(mpi, "GRAPH", Integer.MIN_VALUE + 1);
            if (kind == AgentCalls.staticInt(mpi, "DIST_GRAPH", Integer.MIN_VALUE + 1)) {
                distGraph(p, s, source);
                return;
            }
        }
        if (cart) {
            Object parms = AgentCalls.call(source, p.cartTopoMethod);
            if (parms == null) return;
            int[][] t = p.topologyReader.cartesian(parms);
            cartesian(s, t[0], t[1]);
        } else if (graph) {
            Object parms = AgentCalls.call(source, p.graphTopoMethod);
            if (parms == null) return;
            int[][] t = p.topologyReader.graph(parms);
            s.flags |= RegistryLayout.F_TOPO_GRAPH;
            s.graphIndex = t[0];
            s.graphEdges = t[1];
        }
    }

    /** createCart(dims, periods, …), createGraph(index, edges, …), createDistGraphAdjacent(sources, [weights,] destinations, …). */
    private static boolean topologyFromArguments(BindingProfile p, RowSpec s, String call, Object[] args) {
        List<int[]> ints = new ArrayList<>();
        boolean[] periods = null;
        for (Object a : args) {
            if (a instanceof int[]) ints.add((int[]) a);
            else if (a instanceof boolean[] && periods == null) periods = (boolean[]) a;
        }
        if (p.cartCreateCalls.contains(call) && ints.size() == 1 && periods != null) {
            int[] per = new int[periods.length];
            for (int i = 0; i < per.length; i++) per[i] = periods[i] ? 1 : 0;
            cartesian(s, ints.get(0).clone(), per);
            return true;
        }
        if (p.graphCreateCalls.contains(call) && ints.size() == 2) {
            s.flags |= RegistryLayout.F_TOPO_GRAPH;
            s.graphIndex = ints.get(0).clone();
            s.graphEdges = ints.get(1).clone();
            return true;
        }
        if (p.distGraphAdjacentCalls.contains(call) && (ints.size() == 2 || ints.size() == 4)) {
            // (sources, destinations, …) or (sources, sourceWeights, destinations, destWeights, …)
            s.flags |= RegistryLayout.F_TOPO_DIST_GRAPH;
            s.distSources = ints.get(0).clone();
            s.distDestinations = ints.get(ints.size() == 2 ? 1 : 2).clone();
            return true;
        }
        return false;
    }

    private static void cartesian(RowSpec s, int[] dims, int[] periods) {
        s.flags |= RegistryLayout.F_TOPO_CART;
        s.dims = dims;
        s.periods = new boolean[periods.length];
        for (int i = 0; i < periods.length; i++) s.periods[i] = periods[i] != 0;
    }

    /** A communicator known to be a distributed graph: its neighbours when the binding gives them. */
    private static void distGraph(BindingProfile p, RowSpec s, Object comm) throws ReflectiveOperationException {
        s.flags |= RegistryLayout.F_TOPO_DIST_GRAPH;
        Object n = AgentCalls.call(comm, p.distGraphNeighborsMethod);
        int[][] t = n == null ? null : p.topologyReader.distGraph(n);
        if (t != null) {
            s.distSources = t[0];
            s.distDestinations = t[1];
        }
    }

    /** COMM_WORLD ranks of a communicator's (remote) group; the group is the agent's and freed. */
    private static int[] membersOf(BindingProfile p, int proc, Object comm, String groupGetter)
            throws ReflectiveOperationException {
        Object group = AgentCalls.call(comm, groupGetter);
        if (group == null) return null;
        try {
            return worldRanks(p, proc, group);
        } finally {
            for (String free : p.freeMethods) {
                if (Reflect.method(group.getClass(), free) != null) {
                    AgentCalls.call(group, free);
                    break;
                }
            }
        }
    }

    private static int[] worldRanks(BindingProfile p, int proc, Object group) throws ReflectiveOperationException {
        int size = AgentCalls.asInt(AgentCalls.call(group, p.sizeMethod));
        if (size <= 0) return new int[0];
        Object world = worldGroup(p, proc, group.getClass());
        if (world == null) return null;
        int[] ranks = new int[size];
        for (int i = 0; i < size; i++) ranks[i] = i;
        Class<?> groupClass = world.getClass();
        return (int[]) AgentCalls.callStatic(groupClass, p.translateRanksMethod,
                new Class<?>[] {groupClass, int[].class, groupClass}, group, ranks, world);
    }

    private static Object worldGroup(BindingProfile p, int proc, Class<?> anyBindingClass)
            throws ReflectiveOperationException {
        Object g = WORLD_GROUPS.get(proc);
        if (g != null) return g;
        Class<?> mpi = Class.forName(p.mpiClass, false, anyBindingClass.getClassLoader());
        Object world = mpi.getField(p.worldCommField).get(null);
        if (world == null) return null;
        g = AgentCalls.call(world, p.groupMethod);
        if (g != null) WORLD_GROUPS.put(proc, g);
        return g;
    }

    private static Object firstOfKind(BindingProfile p, Object[] args, HandleKind kind) {
        for (Object a : args) {
            if (a != null && p.kindOf(a.getClass()) == kind) return a;
        }
        return null;
    }

    /** The handles of this kind among the arguments, arrays flattened, in order (a datatype's parents). */
    public static Object[] allOfKind(BindingProfile p, Object[] args, HandleKind kind) {
        List<Object> out = new ArrayList<>();
        for (Object a : args) {
            if (a instanceof Object[]) {
                for (Object e : (Object[]) a) if (e != null && p.kindOf(e.getClass()) == kind) out.add(e);
            } else if (a != null && p.kindOf(a.getClass()) == kind) {
                out.add(a);
            }
        }
        return out.toArray();
    }

    /**
     * A datatype constructor's arguments as {@link RowSpec#typeArgs} (a datatype by its position
     * in {@link #allOfKind}'s list, -1 when it is not one); null for a call without arguments
     * (dup). Arrays are bounded by {@link RegistryLayout#TYPE_ARG_MAX_VALUES}.
     */
    public static long[] typeArguments(BindingProfile p, Object[] args) {
        if (args == null || args.length == 0) return null;
        int max = RegistryLayout.TYPE_ARG_MAX_VALUES;
        int n = 0;
        for (Object a : args) {
            int len = a instanceof int[] ? ((int[]) a).length : a instanceof Object[] ? ((Object[]) a).length : 1;
            n += 3 + Math.min(len, max);
        }
        long[] out = new long[n];
        int at = 0;
        int position = 0; // of the next datatype in allOfKind's list
        for (Object a : args) {
            if (a instanceof Integer || a instanceof Short || a instanceof Byte) {
                out[at++] = RegistryLayout.TYPE_ARG_INT;
                out[at++] = 1;
                out[at++] = ((Number) a).intValue();
            } else if (a instanceof Long) {
                out[at++] = RegistryLayout.TYPE_ARG_LONG;
                out[at++] = 1;
                out[at++] = (Long) a;
            } else if (a instanceof int[]) {
                int[] v = (int[]) a;
                int kept = Math.min(v.length, max);
                at = arrayHeader(out, at, v.length, kept, RegistryLayout.TYPE_ARG_INTS, RegistryLayout.TYPE_ARG_INTS_CUT);
                for (int i = 0; i < kept; i++) out[at++] = v[i];
            } else if (a instanceof Object[]) {
                Object[] v = (Object[]) a;
                int kept = Math.min(v.length, max);
                at = arrayHeader(out, at, v.length, kept, RegistryLayout.TYPE_ARG_TYPES, RegistryLayout.TYPE_ARG_TYPES_CUT);
                for (int i = 0; i < v.length; i++) {
                    boolean type = v[i] != null && p.kindOf(v[i].getClass()) == HandleKind.DATATYPE;
                    if (i < kept) out[at++] = type ? position : -1;
                    if (type) position++;
                }
            } else if (a != null && p.kindOf(a.getClass()) == HandleKind.DATATYPE) {
                out[at++] = RegistryLayout.TYPE_ARG_TYPE;
                out[at++] = 1;
                out[at++] = position++;
            } else {
                out[at++] = RegistryLayout.TYPE_ARG_OTHER;
                out[at++] = 0;
            }
        }
        return Arrays.copyOf(out, at);
    }

    /** An array argument's kind, value count and, when cut at the bound, its full length first. */
    private static int arrayHeader(long[] out, int at, int length, int kept, int whole, int cut) {
        boolean isCut = kept < length;
        out[at++] = isCut ? cut : whole;
        out[at++] = kept + (isCut ? 1 : 0);
        if (isCut) out[at++] = length;
        return at;
    }

    /**
     * The application's frames of the creating call, at most {@link #STACK_FRAMES}: a walk that
     * stops at the first application frame when that call site was seen before (its stack is
     * kept, by the frame's class, method and bytecode index), and at the last frame kept
     * otherwise; never a walk of the whole stack. The frames beyond the first are those of the
     * site's first creation (docs/architecture.md, "What the agent records, at what cost").
     */
    static String[] stack(BindingProfile p) {
        return Walker.WALKER.walk(frames -> creationSite(p, frames.iterator()));
    }

    private static String[] creationSite(BindingProfile p, Iterator<StackWalker.StackFrame> frames) {
        Map<String, String[]> sites = null;
        String site = null;
        List<String> kept = null;
        while (frames.hasNext()) {
            StackWalker.StackFrame f = frames.next();
            String c = f.getClassName();
            if (p.isBindingFrame(c) || c.startsWith("io.mpilens.agent.") || c.startsWith("java.")
                    || c.startsWith("jdk.") || c.startsWith("sun.")) {
                continue;
            }
            if (kept == null) {
                sites = SITES.get(f.getDeclaringClass());
                site = f.getMethodName() + '@' + f.getByteCodeIndex();
                String[] known = sites.get(site);
                if (known != null) return known;
                kept = new ArrayList<>(STACK_FRAMES);
            }
            kept.add(c + "." + f.getMethodName() + "(" + f.getFileName() + ":" + f.getLineNumber() + ")");
            if (kept.size() >= STACK_FRAMES) break;
        }
        if (kept == null) return new String[0];
        String[] stack = kept.toArray(new String[0]);
        if (sites.size() < SITES_PER_CLASS) sites.putIfAbsent(site, stack);
        return stack;
    }

}
