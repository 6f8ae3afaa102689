package io.mpilens.agent.intercept;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;

/**
 * The agent's own calls into the binding and the per-thread depth that marks them: while a
 * thread's depth is above zero, interception ignores what the binding does on it. Shared by
 * {@link Interceptor} (which also raises the depth around the binding's Java collectives and
 * internals) and {@link HandleDescriber}; it calls neither, so the describer needs nothing of the
 * interceptor. Nothing here throws but what the binding's reflection throws.
 */
final class AgentCalls {
    /** Per thread: how deep inside the agent's own binding calls (or a binding-internal scope) it is. */
    static final ThreadLocal<int[]> DEPTH = new ThreadLocal<>() { // no lambda: read at the first interception
        @Override
        protected int[] initialValue() {
            return new int[1];
        }
    };
    private static final boolean TRACE = Boolean.getBoolean("mpilens.trace");

    private AgentCalls() {
    }

    /** Calls a no-argument method of the binding on the agent's behalf; null when it refuses or has none. */
    static Object call(Object target, String method) throws ReflectiveOperationException {
        if (method == null || target == null) return null;
        int[] depth = DEPTH.get();
        depth[0]++;
        try {
            if (TRACE) System.err.println("mpilens-trace: " + target.getClass().getName() + "." + method);
            return Reflect.call(target, method);
        } catch (InvocationTargetException e) {
            return null; // the binding refused (e.g. a freed handle): the attribute stays unknown
        } finally {
            depth[0]--;
        }
    }

    /** A static call of the binding on the agent's behalf (a group's rank translation). */
    static Object callStatic(Class<?> type, String method, Class<?>[] params, Object... args)
            throws ReflectiveOperationException {
        int[] depth = DEPTH.get();
        depth[0]++;
        try {
            return Reflect.callStatic(type, method, params, args);
        } finally {
            depth[0]--;
        }
    }

    /** A public static int constant of the binding's class (a mode bit, a topology kind); otherwise when absent. */
    static int staticInt(Class<?> c, String name, int otherwise) {
        try {
            Field f = c.getField(name);
            return f.getType() == int.class ? f.getInt(null) : otherwise;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return otherwise;
        }
    }

    /** The class or one of its superclasses has this name (the binding's classes are not on the agent's class path). */
    static boolean isA(Class<?> c, String className) {
        if (className == null) return false;
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (k.getName().equals(className)) return true;
        }
        return false;
    }

    static int asInt(Object v) {
        return v instanceof Number ? ((Number) v).intValue() : Integer.MIN_VALUE;
    }

    static String asString(Object v) {
        return v instanceof String && !((String) v).isEmpty() ? (String) v : null;
    }
}
