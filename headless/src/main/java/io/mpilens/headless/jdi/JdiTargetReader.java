package io.mpilens.headless.jdi;

import com.sun.jdi.ArrayReference;
import com.sun.jdi.BooleanValue;
import com.sun.jdi.ByteValue;
import com.sun.jdi.CharValue;
import com.sun.jdi.DoubleValue;
import com.sun.jdi.Field;
import com.sun.jdi.FloatValue;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.InternalException;
import com.sun.jdi.LongValue;
import com.sun.jdi.ObjectCollectedException;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.PrimitiveValue;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.ShortValue;
import com.sun.jdi.StringReference;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VMOutOfMemoryException;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.target.HeapInstances;
import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.api.target.TargetReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Reads a live JVM over JDWP. Only reads: classes by name, field values, array slices and
 * string contents. It never invokes a method in the target, so it works while the target is
 * suspended and cannot deadlock on the application's locks.
 *
 * <p>Not for concurrent use by several threads; use one reader per thread.
 *
 * <p>Why this file is long: every read of {@link TargetReader} over JDI in one
 * place (fields, array slices in JDWP-sized chunks, strings), each with the target's ways to fail
 * (disconnected, collected, not loaded).
 */
public final class JdiTargetReader implements TargetReader, HeapInstances {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Primitive slices of this size are as fast as whole arrays and keep JDWP packets small. */
    static final int PRIMITIVE_CHUNK = 262_144;
    /**
     * Object slices: HotSpot's JDWP agent pushes one JNI local frame per request, and more than
     * 65,536 references overflow it and kill the target (MaxJNILocalCapacity).
     */
    static final int OBJECT_CHUNK = MAX_OBJECT_ARRAY_CHUNK;
    /** {@link #fieldsOfEach}: JDWP requests in flight at once, and how many objects a thread takes at a time. */
    static final int PIPELINE = 8;
    private static final int PIPELINE_BATCH = 32;
    private static final int PIPELINE_MIN_PER_THREAD = 16;

    private final VirtualMachine vm;
    private final String description;
    private final boolean ownsConnection;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Non-null for a connection kept between reads: {@link #close()} gives it back there. */
    private final HeldConnections heldBy;
    private final AtomicBoolean leased = new AtomicBoolean();
    private final Map<ReferenceType, Map<String, Field>> fieldsByType = new ConcurrentHashMap<>();

    private JdiTargetReader(VirtualMachine vm, String description, boolean ownsConnection) {
        this.vm = vm;
        this.description = description;
        this.ownsConnection = ownsConnection;
        this.heldBy = null;
    }

    /** A connection {@code heldBy} keeps open between reads. */
    JdiTargetReader(VirtualMachine vm, String description, HeldConnections heldBy) {
        this.vm = vm;
        this.description = description;
        this.ownsConnection = true;
        this.heldBy = heldBy;
    }

    /** Attaches with the default connect timeout of 5 s. */
    public static JdiTargetReader attach(String hostPort) {
        return attach(JdwpAddress.parse(hostPort), DEFAULT_CONNECT_TIMEOUT);
    }

    /**
     * Attaches over a JDWP socket within {@code timeout} ({@link JdwpAttach}); {@link #close()}
     * disposes the connection, the target keeps running.
     */
    public static JdiTargetReader attach(JdwpAddress address, Duration timeout) {
        HeldConnections held = HeldConnections.installed();
        if (held != null) return held.lease(address, timeout);
        return new JdiTargetReader(JdwpAttach.connect(address, timeout), address.toString(), true);
    }

    /**
     * Reads through a connection someone else owns (the Eclipse debugger's, for example);
     * {@link #close()} leaves that connection open.
     */
    public static JdiTargetReader wrap(VirtualMachine vm, String description) {
        return new JdiTargetReader(vm, description, false);
    }

    public VirtualMachine virtualMachine() {
        return vm;
    }

    /** Runs the reads with every thread of the target suspended, then resumes it. */
    public <T> T whileSuspended(Supplier<T> reads) {
        read("the target", () -> {
            vm.suspend();
            return null;
        });
        try {
            return reads.get();
        } finally {
            try {
                vm.resume();
            } catch (VMDisconnectedException ignored) {
                // gone: the read itself reports it
            }
        }
    }

    /** The JDI type of a class this reader returned: for readers that need more than reads (agentless mode). */
    public ReferenceType referenceType(TargetClass type) {
        if (!(type instanceof JdiClass)) throw new IllegalArgumentException("not a class of " + description);
        return ((JdiClass) type).type;
    }

    /** A JDI object reference as an object of this reader. */
    public TargetObject object(ObjectReference ref) {
        return new JdiObject(ref);
    }

    /** The same, for an object whose exact type is known (an instance list): its field reads then skip a round trip for it. */
    TargetObject object(ObjectReference ref, ReferenceType exactType) {
        JdiObject o = new JdiObject(ref);
        o.knownType = exactType;
        return o;
    }

    @Override
    public List<TargetClass> classesNamed(String name) {
        return read("class " + name, () -> {
            List<TargetClass> out = new ArrayList<>();
            for (ReferenceType t : vm.classesByName(name)) out.add(new JdiClass(t));
            return out;
        });
    }

    @Override
    public Object staticField(TargetClass type, String field) {
        if (!(type instanceof JdiClass)) throw new IllegalArgumentException("not a class of " + description);
        ReferenceType t = ((JdiClass) type).type;
        return read(t.name() + "." + field, () -> {
            Field f = fieldsOf(t).get(field);
            return f == null || !f.isStatic() ? null : toJava(t.getValue(f));
        });
    }

    /** All asked fields in one JDWP request; a field the object does not have reads as null. */
    @Override
    public Map<String, Object> fields(TargetObject object, List<String> names) {
        ObjectReference o = ref(object, "an object");
        ReferenceType known = ((JdiObject) object).knownType;
        return read("the fields of an object", () -> {
            Map<String, Field> byName = fieldsOf(known != null ? known : o.referenceType());
            List<Field> wanted = new ArrayList<>(names.size());
            for (String n : names) {
                Field f = byName.get(n);
                if (f != null && !f.isStatic()) wanted.add(f);
            }
            Map<Field, Value> values = wanted.isEmpty() ? Map.of() : o.getValues(wanted);
            Map<String, Object> out = new LinkedHashMap<>();
            for (String n : names) {
                Field f = byName.get(n);
                out.put(n, f == null ? null : toJava(values.get(f)));
            }
            return out;
        });
    }

    /**
     * Reads overlapped: each object costs two JDWP round trips (its type, then its fields), and
     * the round trip, not the target, is the bottleneck, so {@link #PIPELINE} threads keep that
     * many requests in flight on the one connection (JDI is thread-safe; the target's JDWP agent
     * answers them one after another). Object order is kept; the first failure is thrown.
     */
    @Override
    public List<Map<String, Object>> fieldsOfEach(List<TargetObject> objects, List<String> names) {
        int n = objects.size();
        int threads = Math.min(PIPELINE, n / PIPELINE_MIN_PER_THREAD);
        if (threads < 2) return TargetReader.super.fieldsOfEach(objects, names);
        @SuppressWarnings("unchecked")
        Map<String, Object>[] out = new Map[n];
        AtomicInteger next = new AtomicInteger();
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                try {
                    for (int i; failure.get() == null && (i = next.getAndAdd(PIPELINE_BATCH)) < n; ) {
                        for (int j = i; j < Math.min(n, i + PIPELINE_BATCH); j++) out[j] = fields(objects.get(j), names);
                    }
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                } catch (Throwable e) { // an Error: still the caller's failure, not a null result
                    failure.compareAndSet(null, new TargetReadException("reading " + description + " failed: " + e, e));
                }
            }, "mpilens-read-" + description + "-" + t);
            workers[t].setDaemon(true);
            workers[t].start();
        }
        try {
            for (Thread w : workers) w.join();
        } catch (InterruptedException e) {
            failure.compareAndSet(null, new TargetReadException("interrupted while reading " + description, e));
            for (Thread w : workers) w.interrupt();
            Thread.currentThread().interrupt();
        }
        if (failure.get() != null) throw failure.get();
        return Arrays.asList(out);
    }

    @Override
    public int arrayLength(TargetObject array) {
        ArrayReference a = array(array);
        return read("an array length", a::length);
    }

    @Override
    public int[] ints(TargetObject array, int from, int count) {
        ArrayReference a = array(array);
        int[] out = new int[count];
        readPrimitives(a, from, count, (i, v) -> out[i] = v.intValue());
        return out;
    }

    @Override
    public long[] longs(TargetObject array, int from, int count) {
        ArrayReference a = array(array);
        long[] out = new long[count];
        readPrimitives(a, from, count, (i, v) -> out[i] = v.longValue());
        return out;
    }

    @Override
    public byte[] bytes(TargetObject array, int from, int count) {
        ArrayReference a = array(array);
        byte[] out = new byte[count];
        readPrimitives(a, from, count, (i, v) -> out[i] = v.byteValue());
        return out;
    }

    /**
     * Elements {@code [from, from + count)} of an array, object arrays in slices of at most
     * {@link #MAX_OBJECT_ARRAY_CHUNK} (a longer read kills the target): every object-array read
     * over JDI goes through here.
     */
    public static List<Value> values(ArrayReference a, int from, int count) {
        List<Value> out = new java.util.ArrayList<>(count);
        for (int done = 0; done < count; ) {
            int n = Math.min(OBJECT_CHUNK, count - done);
            out.addAll(a.getValues(from + done, n));
            done += n;
        }
        return out;
    }

    /** Read in slices of at most {@link #MAX_OBJECT_ARRAY_CHUNK}: a longer one kills the target. */
    @Override
    public TargetObject[] objects(TargetObject array, int from, int count) {
        ArrayReference a = array(array);
        TargetObject[] out = new TargetObject[count];
        return read("an object array", () -> {
            List<Value> values = values(a, from, count);
            for (int i = 0; i < count; i++) {
                Value v = values.get(i);
                if (v != null && !(v instanceof ObjectReference)) {
                    throw new TargetReadException(description + ": expected an object array, found " + v.type());
                }
                out[i] = v == null ? null : new JdiObject((ObjectReference) v);
            }
            return out;
        });
    }

    @Override
    public String string(TargetObject string) {
        ObjectReference o = ref(string, "a string");
        if (!(o instanceof StringReference)) {
            throw new TargetReadException(description + ": expected a java.lang.String, found " + string.typeName());
        }
        return read("a string", ((StringReference) o)::value);
    }

    @Override
    public String describe() {
        return description;
    }

    /**
     * Disposes a connection this reader opened (the target keeps running); a wrapped one stays open;
     * a held one ({@link HeldConnections}) is given back for the next read.
     */
    @Override
    public void close() {
        if (heldBy != null) {
            if (leased.compareAndSet(true, false)) heldBy.giveBack(this);
            return;
        }
        dispose();
    }

    /**
     * For a read that is given up (its deadline passed): closes the connection even when it is held,
     * which also unblocks a thread still waiting for an answer on it.
     */
    public void abandon() {
        if (heldBy != null) {
            if (leased.compareAndSet(true, false)) heldBy.abandon(this);
            return;
        }
        dispose();
    }

    void leased() {
        leased.set(true);
    }

    void dispose() {
        if (!ownsConnection || !closed.compareAndSet(false, true)) return;
        try {
            vm.dispose();
        } catch (VMDisconnectedException ignored) {
            // already gone
        }
    }

    // ---------------------------------------------------------------- internals

    private interface PrimitiveSink {
        void put(int index, PrimitiveValue value);
    }

    private void readPrimitives(ArrayReference a, int from, int count, PrimitiveSink sink) {
        read("a primitive array", () -> {
            for (int done = 0; done < count; ) {
                int n = Math.min(PRIMITIVE_CHUNK, count - done);
                List<Value> slice = a.getValues(from + done, n);
                for (int i = 0; i < n; i++) {
                    Value v = slice.get(i);
                    if (!(v instanceof PrimitiveValue)) {
                        throw new TargetReadException(description + ": expected a primitive array, found "
                                + a.referenceType().name());
                    }
                    sink.put(done + i, (PrimitiveValue) v);
                }
                done += n;
            }
            return null;
        });
    }

    /** Visible fields of a type by name, fetched once per type. */
    private Map<String, Field> fieldsOf(ReferenceType type) {
        return fieldsByType.computeIfAbsent(type, t -> {
            Map<String, Field> m = new HashMap<>();
            for (Field f : t.visibleFields()) m.putIfAbsent(f.name(), f);
            return m;
        });
    }

    private ObjectReference ref(TargetObject o, String what) {
        if (o == null) throw new TargetReadException(description + ": expected " + what + ", found null");
        if (!(o instanceof JdiObject) || ((JdiObject) o).owner() != this) {
            throw new IllegalArgumentException("not an object read by the reader of " + description);
        }
        return ((JdiObject) o).ref;
    }

    private ArrayReference array(TargetObject o) {
        ObjectReference r = ref(o, "an array");
        if (!(r instanceof ArrayReference)) {
            throw new TargetReadException(description + ": expected an array, found " + o.typeName());
        }
        return (ArrayReference) r;
    }

    private <T> T read(String what, Supplier<T> op) {
        try {
            return op.get();
        } catch (VMDisconnectedException e) {
            throw new TargetReadException(description + " disconnected while reading " + what
                    + ": the rank's JVM exited or closed the debugger connection", e);
        } catch (ObjectCollectedException e) {
            throw new TargetChangedException(description + " changed while being read (" + what
                    + " was garbage-collected); read again, or with the target suspended", e);
        } catch (VMOutOfMemoryException e) {
            throw new TargetReadException(description + " ran out of memory answering a read of " + what, e);
        } catch (InternalException e) {
            throw new TargetReadException(description + " answered a read of " + what + " with JDWP error "
                    + e.errorCode(), e);
        } catch (IndexOutOfBoundsException e) {
            throw new TargetReadException(description + ": read of " + what + " out of bounds: " + e.getMessage(), e);
        }
    }

    private Object toJava(Value v) {
        if (v == null) return null;
        if (v instanceof ObjectReference) return new JdiObject((ObjectReference) v);
        if (v instanceof IntegerValue) return ((IntegerValue) v).value();
        if (v instanceof LongValue) return ((LongValue) v).value();
        if (v instanceof ByteValue) return ((ByteValue) v).value();
        if (v instanceof BooleanValue) return ((BooleanValue) v).value();
        if (v instanceof ShortValue) return ((ShortValue) v).value();
        if (v instanceof CharValue) return ((CharValue) v).value();
        if (v instanceof FloatValue) return ((FloatValue) v).value();
        if (v instanceof DoubleValue) return ((DoubleValue) v).value();
        return null;
    }

    private final class JdiClass implements TargetClass {
        final ReferenceType type;

        JdiClass(ReferenceType type) {
            this.type = type;
        }

        @Override
        public String name() {
            return type.name();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof JdiClass && ((JdiClass) o).type.equals(type);
        }

        @Override
        public int hashCode() {
            return type.hashCode();
        }
    }

    private final class JdiObject implements TargetObject {
        final ObjectReference ref;
        private String typeName;
        /** Its exact type when the reader already knows it (from an instance list), else null. */
        ReferenceType knownType;

        JdiObject(ObjectReference ref) {
            this.ref = ref;
        }

        JdiTargetReader owner() {
            return JdiTargetReader.this;
        }

        /** Binary name as {@link Class#getName()} spells it: {@code [J}, {@code java.lang.String}. */
        @Override
        public String typeName() {
            if (typeName == null) {
                typeName = read("a type name", () -> {
                    ReferenceType t = ref.referenceType();
                    String sig = t.signature();
                    return sig.startsWith("[") ? sig.replace('/', '.') : t.name();
                });
            }
            return typeName;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof JdiObject && ((JdiObject) o).ref.equals(ref);
        }

        @Override
        public int hashCode() {
            return ref.hashCode();
        }

        @Override
        public String toString() {
            return "object " + ref.uniqueID() + " in " + description;
        }
    }

    // ---- HeapInstances: JDWP's instance lists (a heap walk in the target's JVM; no code runs there)
    private final JdiHeapInstances instances = new JdiHeapInstances(this);

    @Override
    public Found instancesOf(List<TargetClass> types, int limit) {
        return instances.instancesOf(types, limit);
    }

    @Override
    public Object definingLoader(TargetClass type) {
        return instances.definingLoader(type);
    }

    @Override
    public List<String> staticFieldNames(TargetClass type) {
        return instances.staticFieldNames(type);
    }
}
