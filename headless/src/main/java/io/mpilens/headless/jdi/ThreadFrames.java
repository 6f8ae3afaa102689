package io.mpilens.headless.jdi;

import com.sun.jdi.ArrayReference;
import com.sun.jdi.ClassLoaderReference;
import com.sun.jdi.Field;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LongValue;
import com.sun.jdi.ObjectCollectedException;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.binding.BindingCalls;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import io.mpilens.api.registry.WrapperLookup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Which MPI call each thread of a target is inside, read from its stack frames. Reads only:
 * frames, {@code this}, argument values and one field; never invokes a method. A thread is
 * suspended just while its frames are read, unless the whole VM already is.
 */
public final class ThreadFrames {
    /** Binding classes live in the {@code mpi} package in both Open MPI's and MPJ Express's bindings. */
    private static final String BINDING_PACKAGE = "mpi.";
    private static final String HANDLE_FIELD = "handle";
    private static final String MPI_CLASS = "mpi.MPI";
    private static final String WORLD = "MPI_COMM_WORLD";
    /** Longest request array whose elements are read (one JDWP read each). */
    public static final int MAX_REQUESTS = 1024;

    private ThreadFrames() {
    }

    /**
     * Wrapper identity to registry id, for the receivers and request arrays of the frames: the
     * wrapper's own id field (one read), else the wrapper index (read once); null when neither
     * knows it, and from the first failure on (the frames are still worth showing, mapped the other ways).
     */
    public static Function<ObjectReference, Long> registryIds(JdiTargetReader r) {
        WrapperLookup ids = new WrapperLookup(r);
        boolean[] failed = {false};
        return o -> {
            if (failed[0] || o == null) return null;
            try {
                long id = ids.idOf(r.object(o));
                return id == 0 ? null : id;
            } catch (RuntimeException e) {
                failed[0] = true;
                return null;
            }
        };
    }

    /** @param vmSuspended the caller suspended the whole VM, so threads need no suspension of their own */
    public static List<BindingFrame> read(VirtualMachine vm, boolean vmSuspended) {
        return read(vm, vmSuspended, o -> null);
    }

    /**
     * @param registryId the registry id of a wrapper object by its identity (from
     *                   {@code RegistryDecoder.wrapperIds()}), null when unknown
     */
    public static List<BindingFrame> read(VirtualMachine vm, boolean vmSuspended,
                                          Function<ObjectReference, Long> registryId) {
        return read(vm, vmSuspended, registryId, false);
    }

    /**
     * @param byLoader the JVM holds several ranks (MPJ Express multicore, a class loader each):
     *                 give each frame the {@link BindingFrame#worldId()} of its loader, so that
     *                 {@code InFlightCalls.byRank} can tell which rank its thread is of
     */
    public static List<BindingFrame> read(VirtualMachine vm, boolean vmSuspended,
                                          Function<ObjectReference, Long> registryId, boolean byLoader) {
        List<BindingFrame> out = new ArrayList<>();
        Map<ClassLoaderReference, Map<ObjectReference, String>> predefined = new HashMap<>();
        Map<ClassLoaderReference, Long> worlds = byLoader ? new HashMap<>() : null;
        for (ThreadReference t : vm.allThreads()) {
            BindingFrame f = read(t, vmSuspended, predefined, registryId, worlds);
            if (f != null) out.add(f);
        }
        return Collections.unmodifiableList(out);
    }

    private static BindingFrame read(ThreadReference t, boolean vmSuspended,
                                     Map<ClassLoaderReference, Map<ObjectReference, String>> predefined,
                                     Function<ObjectReference, Long> registryId, Map<ClassLoaderReference, Long> worlds) {
        boolean suspended = false;
        try {
            if (!vmSuspended) {
                t.suspend();
                suspended = true;
            }
            List<StackFrame> frames = t.frames();
            // frames are innermost first: the outermost binding frame is the application's call
            for (int i = frames.size() - 1; i >= 0; i--) {
                StackFrame f = frames.get(i);
                String declaring = f.location().declaringType().name();
                if (!declaring.startsWith(BINDING_PACKAGE)) continue;
                ObjectReference self = f.thisObject();
                List<Integer> ints = new ArrayList<>();
                List<Value> args = argumentValues(frames, i);
                for (Value v : args) ints.add(v instanceof IntegerValue ? ((IntegerValue) v).value() : null);
                Long handle = handleOf(self);
                Map<ObjectReference, String> named = self == null || handle != null ? Map.of()
                        : predefined.computeIfAbsent(f.location().declaringType().classLoader(),
                                loader -> predefinedHandles(t.virtualMachine(), loader));
                String name = self == null ? null : named.get(self);
                Long id = self == null ? null : registryId.apply(self);
                // the group is only a fallback for an MPJ communicator the wrapper index does not know
                List<Integer> members = self == null || handle != null || name != null || id != null ? null
                        : mpjMembers(self, worldOf(named));
                Long world = null;
                if (worlds != null) {
                    ClassLoaderReference loader = f.location().declaringType().classLoader();
                    if (!worlds.containsKey(loader)) {
                        ObjectReference w = worldOf(predefined.computeIfAbsent(loader,
                                l -> predefinedHandles(t.virtualMachine(), l)));
                        worlds.put(loader, w == null ? null : registryId.apply(w));
                    }
                    world = worlds.get(loader);
                }
                return new BindingFrame(t.name(), declaring, f.location().method().name(),
                        self == null ? null : self.referenceType().name(), handle, ints, name, members, id,
                        requests(frames, i, args, registryId), world);
            }
            return null;
        } catch (IncompatibleThreadStateException | ObjectCollectedException | com.sun.jdi.InternalException e) {
            return null; // a thread that ended or was not suspendable: not inside a call we can show
        } finally {
            if (suspended) {
                try {
                    t.resume();
                } catch (ObjectCollectedException ignored) {
                    // the thread ended meanwhile
                }
            }
        }
    }

    /**
     * The arguments of frame {@code at}. A woven method of a binding compiled with local variable
     * tables (MPJ Express) refuses them (JDWP INVALID_SLOT: the table no longer covers the woven
     * code; Eclipse's JDI gives fewer values than arguments instead, none at all there); its
     * arguments are then taken from the first frame further in that delegates the call
     * with the same arguments first (MPJ's {@code Recv} calls {@code recv} with one more), else none.
     */
    private static List<Value> argumentValues(List<StackFrame> frames, int at) {
        StackFrame f = frames.get(at);
        List<Value> own = argumentValues(f);
        com.sun.jdi.Method m = f.location().method();
        List<String> types = m.argumentTypeNames();
        // the JDK's JDI refuses them (INVALID_SLOT); Eclipse's returns only the arguments its
        // variable table shows at the frame's location — none, in a woven method: refused too
        if (own != null && own.size() == types.size()) return own;
        for (int j = at - 1; j >= 0; j--) {
            com.sun.jdi.Method inner = frames.get(j).location().method();
            if (!inner.declaringType().name().startsWith(BINDING_PACKAGE)) continue;
            List<String> innerTypes = inner.argumentTypeNames();
            if (!inner.name().equalsIgnoreCase(m.name()) || innerTypes.size() < types.size()
                    || !innerTypes.subList(0, types.size()).equals(types)) {
                continue;
            }
            List<Value> delegated = argumentValues(frames.get(j));
            if (delegated != null) return delegated.subList(0, types.size());
        }
        return List.of();
    }

    /**
     * The requests a call over an array waits for: the array's elements, or, when the frame gives
     * no arguments (MPJ Express: see {@link #argumentValues(List, int)}) and the call waits for all
     * or is a send-receive, the request of the single-request wait it is inside now ({@code Waitall}
     * calls {@code Wait} on each, {@code Sendrecv} on its receive, then its send): the one it is
     * blocked on, which is reason enough.
     */
    private static List<BindingFrame.Element> requests(List<StackFrame> frames, int at, List<Value> args,
                                                       Function<ObjectReference, Long> registryId) {
        List<BindingFrame.Element> read = requestArray(args, registryId);
        String name = frames.get(at).location().method().name();
        BindingCalls calls = BindingCalls.spelling(name);
        if (read != null || !args.isEmpty() || calls == null
                || !(calls.waitAll().contains(name) || calls.isSendRecv(name))) {
            return read;
        }
        for (int j = at - 1; j >= 0; j--) {
            StackFrame inner = frames.get(j);
            if (!inner.location().declaringType().name().startsWith(BINDING_PACKAGE)
                    || !calls.waitOne().contains(inner.location().method().name())) {
                continue;
            }
            ObjectReference request = inner.thisObject();
            if (request == null) return null;
            return List.of(element(request, registryId));
        }
        return null;
    }

    /**
     * The elements of the first argument that is an array of the binding's requests (of a
     * {@code waitAll}, {@code startAll}…), each element's native handle and registry id; null when there is none,
     * or more than {@link #MAX_REQUESTS} (one JDWP read per element: a bounded cost per thread).
     */
    private static List<BindingFrame.Element> requestArray(List<Value> args, Function<ObjectReference, Long> registryId) {
        for (Value v : args) {
            if (!(v instanceof ArrayReference)) continue;
            ArrayReference a = (ArrayReference) v;
            String type = a.referenceType().name();
            // requests only (mpi.Request[], mpi.Prequest[]): a datatype array of createStruct is no wait
            if (!type.startsWith(BINDING_PACKAGE) || !type.endsWith("Request[]")) continue;
            if (a.length() > MAX_REQUESTS) return null;
            List<BindingFrame.Element> out = new ArrayList<>();
            for (Value e : JdiTargetReader.values(a, 0, a.length())) {
                out.add(element(e instanceof ObjectReference ? (ObjectReference) e : null, registryId));
            }
            return Collections.unmodifiableList(out);
        }
        return null;
    }

    /** A frame's arguments, null when the VM does not give them (native or otherwise unreadable frame). */
    private static List<Value> argumentValues(StackFrame f) {
        try {
            return f.getArgumentValues();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The objects held by static fields of {@code mpi.MPI} as seen by {@code loader} (one copy of
     * the binding per rank under MPJ Express multicore), by {@code MPI_} + field name. One bulk read.
     */
    private static Map<ObjectReference, String> predefinedHandles(VirtualMachine vm, ClassLoaderReference loader) {
        Map<ObjectReference, String> out = new HashMap<>();
        try {
            for (ReferenceType mpi : vm.classesByName(MPI_CLASS)) {
                if (!Objects.equals(mpi.classLoader(), loader) || !mpi.isPrepared()) continue;
                List<Field> statics = new ArrayList<>();
                for (Field f : mpi.fields()) {
                    if (f.isStatic() && f.typeName().startsWith(BINDING_PACKAGE)) statics.add(f);
                }
                for (Map.Entry<Field, Value> e : mpi.getValues(statics).entrySet()) {
                    if (e.getValue() instanceof ObjectReference o) out.putIfAbsent(o, "MPI_" + e.getKey().name());
                }
            }
        } catch (RuntimeException e) { // an unprepared or unloaded class: no predefined names
            return out;
        }
        return out;
    }

    private static ObjectReference worldOf(Map<ObjectReference, String> named) {
        for (Map.Entry<ObjectReference, String> e : named.entrySet()) if (WORLD.equals(e.getValue())) return e.getKey();
        return null;
    }

    /**
     * An MPJ Express communicator's group as COMM_WORLD ranks: the process ids of its device group
     * ({@code group.mpjdevGroup.ids}) found among COMM_WORLD's, by identity or by UUID. Null when
     * the receiver is no such communicator or a field is missing.
     */
    private static List<Integer> mpjMembers(ObjectReference comm, ObjectReference world) {
        try {
            List<ObjectReference> ids = processIds(comm);
            List<ObjectReference> worldIds = world == null ? null : processIds(world);
            if (ids == null || worldIds == null) return null;
            List<String> worldUuids = new ArrayList<>();
            for (ObjectReference w : worldIds) worldUuids.add(uuid(w));
            List<Integer> out = new ArrayList<>();
            for (ObjectReference id : ids) {
                int at = worldIds.indexOf(id);
                if (at < 0 && id != null) at = worldUuids.indexOf(uuid(id));
                if (at < 0) return null;
                out.add(at);
            }
            return List.copyOf(out);
        } catch (RuntimeException e) { // not the MPJ shape, or the object went away: unmapped
            return null;
        }
    }

    private static List<ObjectReference> processIds(ObjectReference comm) {
        ObjectReference group = object(comm, "group");
        ObjectReference dev = group == null ? null : object(group, "mpjdevGroup");
        Value ids = dev == null ? null : field(dev, "ids");
        if (!(ids instanceof ArrayReference a)) return null;
        List<ObjectReference> out = new ArrayList<>();
        for (Value v : a.getValues()) out.add((ObjectReference) v);
        return out;
    }

    private static String uuid(ObjectReference processId) {
        ObjectReference u = processId == null ? null : object(processId, "uuid");
        return u == null ? null : field(u, "mostSigBits") + ":" + field(u, "leastSigBits");
    }

    private static ObjectReference object(ObjectReference o, String name) {
        Value v = field(o, name);
        return v instanceof ObjectReference r ? r : null;
    }

    private static Value field(ObjectReference o, String name) {
        Field f = o.referenceType().fieldByName(name);
        return f == null || f.isStatic() ? null : o.getValue(f);
    }

    /**
     * A request wrapper as an element of a wait: its native handle and its registry id. The id
     * comes from the request ring's sequence the wrapper carries (Open MPI under the agent: one
     * field read), else by identity when there is no native handle (MPJ Express); an Open MPI
     * request in the tables is found by its handle.
     */
    private static BindingFrame.Element element(ObjectReference o, Function<ObjectReference, Long> registryId) {
        if (o == null) return new BindingFrame.Element(null, null);
        Long handle = handleOf(o);
        Field seq = o.referenceType().fieldByName(RegistryLayout.REQUEST_SEQ_FIELD);
        Value v = seq == null || seq.isStatic() ? null : o.getValue(seq);
        // an int since the agent of 2026-11-28, a long before it
        long s = v instanceof IntegerValue ? ((IntegerValue) v).value() : v instanceof LongValue ? ((LongValue) v).value() : 0;
        if (s > 0) return new BindingFrame.Element(handle, RegistryDecoder.ringRequestId(s));
        return new BindingFrame.Element(handle, handle != null ? null : registryId.apply(o));
    }

    private static Long handleOf(ObjectReference self) {
        if (self == null) return null;
        Field field = self.referenceType().fieldByName(HANDLE_FIELD);
        if (field == null || field.isStatic()) return null;
        Value v = self.getValue(field);
        return v instanceof LongValue ? ((LongValue) v).value() : null;
    }
}
