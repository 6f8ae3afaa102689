package io.mpilens.api.target;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Read-only access to another JVM's heap: live over JDI, post-mortem from a heap dump, or
 * in-process for tests. The decoder reads the target only through this interface, and the
 * interface only offers reads: nothing here can run code in the target.
 *
 * <p>Array reads are bulk reads; implementations decide how to split them for their
 * transport (object arrays over JDWP must be read in chunks of at most
 * {@link #MAX_OBJECT_ARRAY_CHUNK} elements).
 */
public interface TargetReader extends AutoCloseable {
    /** Longest object-array slice that may go into one JDWP request without killing the target. */
    int MAX_OBJECT_ARRAY_CHUNK = 65_536;

    /** Every loaded class with this binary name (one per defining class loader). */
    List<TargetClass> classesNamed(String name);

    /** Value of a static field: a {@link TargetObject}, a boxed primitive, or null. */
    Object staticField(TargetClass type, String field);

    /** Values of several instance fields in one read; keys are the field names asked for. */
    Map<String, Object> fields(TargetObject object, List<String> names);

    /**
     * {@link #fields} of each of several objects, in their order. Over JDWP every object costs
     * round trips of its own; a live reader may overlap them (the default reads one by one).
     */
    default List<Map<String, Object>> fieldsOfEach(List<TargetObject> objects, List<String> names) {
        List<Map<String, Object>> out = new ArrayList<>(objects.size());
        for (TargetObject o : objects) out.add(fields(o, names));
        return out;
    }

    int arrayLength(TargetObject array);

    int[] ints(TargetObject array, int from, int count);

    long[] longs(TargetObject array, int from, int count);

    byte[] bytes(TargetObject array, int from, int count);

    /** Elements of an object array; null elements stay null. */
    TargetObject[] objects(TargetObject array, int from, int count);

    /** Contents of a {@code java.lang.String} object. */
    String string(TargetObject string);

    /** Where this reader reads from, for messages: "127.0.0.1:40123", "rank3.hprof". */
    String describe();

    @Override
    void close();
}
