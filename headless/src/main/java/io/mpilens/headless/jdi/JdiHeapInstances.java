package io.mpilens.headless.jdi;

import com.sun.jdi.ClassType;
import com.sun.jdi.Field;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.VMDisconnectedException;
import io.mpilens.api.target.HeapInstances;
import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReadException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link HeapInstances} of a live JVM over JDWP: {@code ReferenceType.instances()} of each class
 * and of its loaded subclasses (reachable objects only, as JDWP defines it). No method runs in
 * the target.
 */
final class JdiHeapInstances implements HeapInstances {
    private final JdiTargetReader reader;

    JdiHeapInstances(JdiTargetReader reader) {
        this.reader = reader;
    }

    @Override
    public Found instancesOf(List<TargetClass> types, int limit) {
        try {
            Map<TargetClass, List<TargetObject>> out = new LinkedHashMap<>();
            long left = limit, beyond = 0;
            for (TargetClass t : types) {
                Map<ObjectReference, ReferenceType> refs = new LinkedHashMap<>();
                for (ReferenceType k : withSubclasses(reader.referenceType(t))) {
                    if (left <= 0) {
                        beyond += reader.virtualMachine().instanceCounts(List.of(k))[0];
                        continue;
                    }
                    List<ObjectReference> found = k.instances(left);
                    for (ObjectReference r : found) {
                        if (refs.putIfAbsent(r, k) == null) left--;
                    }
                }
                List<TargetObject> objects = new ArrayList<>(refs.size());
                // an instance list holds objects of exactly that class: their field reads need not ask for it
                for (Map.Entry<ObjectReference, ReferenceType> r : refs.entrySet()) objects.add(reader.object(r.getKey(), r.getValue()));
                out.put(t, objects);
            }
            return new Found(out, beyond);
        } catch (VMDisconnectedException e) {
            throw new TargetReadException(reader.describe() + " disconnected while its objects were listed", e);
        } catch (UnsupportedOperationException e) {
            throw new TargetReadException(reader.describe() + " cannot list the instances of a class"
                    + " (its JVM does not offer it to debuggers)", e);
        }
    }

    private static List<ReferenceType> withSubclasses(ReferenceType type) {
        List<ReferenceType> out = new ArrayList<>();
        Deque<ReferenceType> todo = new ArrayDeque<>(List.of(type));
        while (!todo.isEmpty()) {
            ReferenceType t = todo.pop();
            if (out.contains(t)) continue;
            out.add(t);
            if (t instanceof ClassType) todo.addAll(((ClassType) t).subclasses());
        }
        return out;
    }

    /** The JDI mirror of the loader (null for the boot loader): equal mirrors for the same loader. */
    @Override
    public Object definingLoader(TargetClass type) {
        ObjectReference loader = reader.referenceType(type).classLoader();
        return loader == null ? "boot" : loader;
    }

    @Override
    public List<String> staticFieldNames(TargetClass type) {
        List<String> out = new ArrayList<>();
        for (Field f : reader.referenceType(type).fields()) {
            if (f.isStatic()) out.add(f.name());
        }
        return out;
    }
}
