package io.mpilens.agent.intercept;

import io.mpilens.agent.profile.BindingProfile;
import io.mpilens.api.model.HandleKind;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether a wrapper is its binding's null handle ({@code MPI_COMM_NULL} from a split with
 * {@code MPI.UNDEFINED}, a finished request), decided from Java fields only: every MPI getter on
 * a null handle is a fatal MPI error under {@code MPI_ERRORS_ARE_FATAL}.
 */
final class NullHandles {
    /** Per MPI process: the binding's predefined null handles (MPI's *_NULL fields): {kind, weak wrapper, native handle}. */
    private static final Map<Integer, List<Object[]>> CONSTANTS = new ConcurrentHashMap<>();
    /** Per wrapper class: the static fields holding its null handle's native value. */
    private static final ClassValue<Field[]> STATICS = new ClassValue<>() {
        @Override
        protected Field[] computeValue(Class<?> type) {
            return staticNullFields(type);
        }
    };
    private static volatile java.util.Set<String> staticNames = java.util.Set.of();

    private NullHandles() {
    }

    static void configure(BindingProfile[] profiles) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (BindingProfile p : profiles) names.addAll(p.nullHandleStatics);
        staticNames = names;
    }

    /**
     * At MPI_Init: the MPI class's null constants of this process ({@code REQUEST_NULL}, {@code DATATYPE_NULL}, …).
     * Returns the constant's native handle, null when it has none.
     */
    static Long constant(int proc, HandleKind kind, Object wrapper, BindingProfile p) throws IllegalAccessException {
        Object h = Reflect.nativeHandle(wrapper, p.nativeHandleField);
        java.util.List<Object[]> list = CONSTANTS.get(proc);
        if (list == null) { // no lambda on the start-up path (docs/performance.md, start-up)
            java.util.List<Object[]> made = new java.util.concurrent.CopyOnWriteArrayList<>();
            list = CONSTANTS.putIfAbsent(proc, made);
            if (list == null) list = made;
        }
        Long handle = h instanceof Long ? (Long) h : null;
        list.add(new Object[] {kind, new java.lang.ref.WeakReference<>(wrapper), handle});
        return handle;
    }

    /** The wrapper names no MPI object: the binding's null handle of its kind. */
    static boolean isNull(BindingProfile p, int proc, HandleKind kind, Object wrapper) throws IllegalAccessException {
        if (wrapper == null) return true;
        Object h = Reflect.nativeHandle(wrapper, p.nativeHandleField);
        if (h instanceof Long) return isNullValue(p, proc, kind, wrapper.getClass(), (Long) h);
        return isConstant(proc, kind, wrapper, null);
    }

    /** A native handle value of this kind and wrapper class is the null handle. */
    static boolean isNullValue(BindingProfile p, int proc, HandleKind kind, Class<?> wrapperClass, long handle)
            throws IllegalAccessException {
        if (kind == HandleKind.REQUEST && p.zeroRequestIsNull && handle == 0) return true;
        for (Field f : STATICS.get(wrapperClass)) {
            if (f.getLong(null) == handle) return true;
        }
        return isConstant(proc, kind, null, handle);
    }

    private static boolean isConstant(int proc, HandleKind kind, Object wrapper, Long handle) {
        List<Object[]> known = CONSTANTS.get(proc);
        if (known == null) return false;
        for (Object[] c : known) {
            if (c[0] != kind) continue;
            // weakly: an MPJ Express rank's class loader must be collectable when the rank is gone
            if (wrapper != null && ((java.lang.ref.WeakReference<?>) c[1]).get() == wrapper) return true;
            if (handle != null && handle.equals(c[2])) return true;
        }
        return false;
    }

    /** Static long fields named as the profiles say (e.g. {@code nullHandle}), in the class and its superclasses. */
    private static Field[] staticNullFields(Class<?> type) {
        List<Field> out = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (String name : staticNames) {
                try {
                    Field f = c.getDeclaredField(name);
                    if (Modifier.isStatic(f.getModifiers()) && f.getType() == long.class) {
                        f.setAccessible(true);
                        out.add(f);
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // not declared here
                }
            }
        }
        return out.toArray(new Field[0]);
    }
}
