package io.mpilens.agent.intercept;

import io.mpilens.agent.registry.NativeHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Cached reflective access to the binding's cheap getters; the agent compiles without the binding. */
final class Reflect {
    private static final Object MISSING = new Object();
    private static final ClassValue<Map<String, Object>> MEMBERS = new ClassValue<>() {
        @Override
        protected Map<String, Object> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    private Reflect() {
    }

    /** Invokes a public no-argument method; null when the class has no such method. */
    static Object call(Object target, String method) throws ReflectiveOperationException {
        if (target == null || method == null) return null;
        Method m = method(target.getClass(), method);
        return m == null ? null : m.invoke(target);
    }

    static Object callStatic(Class<?> type, String method, Class<?>[] params, Object... args)
            throws ReflectiveOperationException {
        Method m = type.getMethod(method, params);
        return m.invoke(null, args);
    }

    static Method method(Class<?> type, String name) {
        java.util.Map<String, Object> members = MEMBERS.get(type);
        Object m = members.get("m:" + name);
        if (m == null) { // no lambda: this runs at MPI init (docs/performance.md, start-up)
            try {
                Method found = type.getMethod(name);
                found.setAccessible(true);
                m = found;
            } catch (ReflectiveOperationException | RuntimeException e) {
                m = MISSING;
            }
            members.putIfAbsent("m:" + name, m);
        }
        return m == MISSING ? null : (Method) m;
    }

    /**
     * The binding's native handle of a wrapper ({@code BindingProfile.nativeHandleField}): through
     * the getter the weaver added ({@link NativeHandle}; only where the class declares a {@code long}
     * field of that name) or by reflection; null if the wrapper has none.
     */
    static Object nativeHandle(Object wrapper, String field) throws IllegalAccessException {
        if (field == null || wrapper == null) return null;
        if (wrapper instanceof NativeHandle) return ((NativeHandle) wrapper).mpilens$handle();
        return field(wrapper, field);
    }

    /** Reads a field declared by the class or a superclass, whatever its access; null if absent. */
    static Object field(Object target, String name) throws IllegalAccessException {
        if (target == null || name == null) return null;
        Class<?> type = target.getClass();
        java.util.Map<String, Object> members = MEMBERS.get(type);
        Object f = members.get("f:" + name);
        if (f == null) {
            Field found = declaredField(type, name);
            f = found == null ? MISSING : found;
            members.putIfAbsent("f:" + name, f);
        }
        return f == MISSING ? null : ((Field) f).get(target);
    }

    /** The field of this name declared by the class or a superclass, made accessible; null if absent. */
    static Field declaredField(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            // each class's fields looked through, not getDeclaredField: its NoSuchFieldException for
            // every subclass on the way up (Intracomm, then Comm) was built, stack and all, at start-up
            Field[] declared;
            try {
                declared = c.getDeclaredFields();
            } catch (RuntimeException | LinkageError e) {
                continue; // keep looking in the superclass
            }
            for (Field f : declared) {
                if (!f.getName().equals(name)) continue;
                try {
                    f.setAccessible(true);
                    return f;
                } catch (RuntimeException e) {
                    break; // not accessible: keep looking in the superclass, as before
                }
            }
        }
        return null;
    }
}
