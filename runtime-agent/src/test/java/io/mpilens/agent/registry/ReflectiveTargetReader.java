package io.mpilens.agent.registry;

import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import java.lang.reflect.Array;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads this JVM's own heap by reflection: the decoder's seam, exercised without a debugger. */
final class ReflectiveTargetReader implements TargetReader {
    private final Map<String, Class<?>> classes;
    int arrayReads;
    /** Every array read, in order (identity), for tests of what a snapshot reads. */
    final List<Object> arraysRead = new ArrayList<>();
    /** Most elements one object-array read asked for. */
    int longestObjectRead;
    /** Runs before each array read: a test can write to the registry while the decoder reads it. */
    java.util.function.Consumer<Object> beforeArrayRead = a -> { };

    ReflectiveTargetReader(Map<String, Class<?>> classes) {
        this.classes = classes;
    }

    static final class Obj implements TargetObject {
        final Object value;

        Obj(Object value) {
            this.value = value;
        }

        @Override
        public String typeName() {
            return value.getClass().getName();
        }

        /** The same target object, as a debugger's object references are equal. */
        @Override
        public boolean equals(Object o) {
            return o instanceof Obj && ((Obj) o).value == value;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(value);
        }
    }

    @Override
    public List<TargetClass> classesNamed(String name) {
        Class<?> c = classes.get(name);
        if (c == null) return List.of();
        return List.of(() -> name);
    }

    @Override
    public Object staticField(TargetClass type, String field) {
        try {
            Field f = classes.get(type.name()).getDeclaredField(field);
            f.setAccessible(true);
            return wrap(f.get(null));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Map<String, Object> fields(TargetObject object, List<String> names) {
        Object o = ((Obj) object).value;
        Map<String, Object> out = new LinkedHashMap<>();
        for (String n : names) {
            if (o instanceof Reference && "referent".equals(n)) {
                // java.base does not open Reference.referent to reflection; a debugger reads the field
                out.put(n, wrap(((Reference<?>) o).get()));
                continue;
            }
            Field f = null;
            for (Class<?> c = o.getClass(); c != null && f == null; c = c.getSuperclass()) {
                try {
                    f = c.getDeclaredField(n);
                } catch (NoSuchFieldException e) {
                    // a field of a superclass, as a debugger's field reads see them
                }
            }
            try {
                if (f != null) f.setAccessible(true);
                out.put(n, f == null ? null : wrap(f.get(o)));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return out;
    }

    private static Object wrap(Object v) {
        if (v == null || v instanceof Number || v instanceof Boolean || v instanceof Character) return v;
        return new Obj(v);
    }

    private void counted(TargetObject array) {
        Object a = ((Obj) array).value;
        beforeArrayRead.accept(a);
        arrayReads++;
        arraysRead.add(a);
    }

    @Override
    public int arrayLength(TargetObject array) {
        return Array.getLength(((Obj) array).value);
    }

    @Override
    public int[] ints(TargetObject array, int from, int count) {
        counted(array);
        return Arrays.copyOfRange((int[]) ((Obj) array).value, from, from + count);
    }

    @Override
    public long[] longs(TargetObject array, int from, int count) {
        counted(array);
        return Arrays.copyOfRange((long[]) ((Obj) array).value, from, from + count);
    }

    @Override
    public byte[] bytes(TargetObject array, int from, int count) {
        counted(array);
        return Arrays.copyOfRange((byte[]) ((Obj) array).value, from, from + count);
    }

    @Override
    public TargetObject[] objects(TargetObject array, int from, int count) {
        counted(array);
        longestObjectRead = Math.max(longestObjectRead, count);
        Object[] a = (Object[]) ((Obj) array).value;
        List<TargetObject> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) out.add(a[i] == null ? null : new Obj(a[i]));
        return out.toArray(new TargetObject[0]);
    }

    @Override
    public String string(TargetObject string) {
        return (String) ((Obj) string).value;
    }

    @Override
    public String describe() {
        return "this JVM";
    }

    @Override
    public void close() {
    }
}
