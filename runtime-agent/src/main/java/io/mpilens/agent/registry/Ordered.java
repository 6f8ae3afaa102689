package io.mpilens.agent.registry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The registry's ordered stores and loads on array elements (release, acquire, opaque, volatile,
 * compare-and-set), each with its index checked as the array access it stands for.
 *
 * <p>Why not VarHandles everywhere: each VarHandle and each of its call sites is linked on first
 * use (and even VarHandle's static fences initialise its class and its guards), by interpreted
 * {@code java.lang.invoke} code, in every rank JVM that loads the agent (≈ 5 ms of CPU at
 * start-up for the registry's six, in an agent that does nothing else; docs/performance.md,
 * start-up). Where {@code java.base} exports {@code jdk.internal.misc} to this class's module
 * (the agent's entry point does so at start-up, right after it defines the agent's classes in
 * the boot loader), the same operations go to {@code jdk.internal.misc.Unsafe}, which the JIT
 * compiles to the same instructions and which needs no linking; elsewhere (the copy
 * {@code java -jar mpilens-agent.jar attach} loads, unit tests) to VarHandles, as before. The
 * choice is a constant to the JIT.
 *
 * <p>Only methods with the same name and signature from JDK 11 to today are called directly (no
 * reference compare-and-set: renamed in JDK 12; its array base offsets, ints in JDK 17 and longs
 * in JDK 25, are found by reading scratch arrays), and each is tried once when this class
 * initialises.
 */
public final class Ordered {
    /** Whether {@code jdk.internal.misc.Unsafe} is used here (exported to this module, and it passed the check below). */
    static final boolean UNSAFE;
    private static final jdk.internal.misc.Unsafe U;
    private static final long LONG_BASE;
    private static final long INT_BASE;
    private static final int LONG_SHIFT;
    private static final int INT_SHIFT;

    /**
     * Where the header of an array may end: with and without compressed class pointers, and
     * compact headers (before the static block below, which reads it).
     */
    private static final long[] BASES = {16, 24, 12, 20, 8};

    static {
        jdk.internal.misc.Unsafe u = null;
        long longBase = 0;
        long intBase = 0;
        int longShift = 0;
        int intShift = 0;
        boolean ok = false;
        try {
            if (Object.class.getModule().isExported("jdk.internal.misc", Ordered.class.getModule())) {
                u = jdk.internal.misc.Unsafe.getUnsafe();
                longShift = shift(u.arrayIndexScale(long[].class));
                intShift = shift(u.arrayIndexScale(int[].class));
                longBase = longBase(u);
                intBase = intBase(u);
                ok = works(u, longBase, longShift, intBase, intShift);
            }
        } catch (Throwable t) {
            ok = false; // a JDK whose Unsafe differs: VarHandles
        }
        UNSAFE = ok;
        U = ok ? u : null;
        LONG_BASE = longBase;
        INT_BASE = intBase;
        LONG_SHIFT = longShift;
        INT_SHIFT = intShift;
    }

    private Ordered() {
    }

    /**
     * The offset of a {@code long[]}'s first element. {@code arrayBaseOffset} and its constants
     * are ints in JDK 17 and longs in JDK 25: one compiled access cannot link on both, and reading
     * the constant by reflection builds the reflection data of Unsafe's fields (≈ 1 ms at
     * start-up). So the element is looked for where an array header may end, with plain reads
     * inside a scratch array (never past it), and confirmed on a second array; {@link #works}
     * then checks every operation at that offset. Throws when no candidate fits.
     */
    private static long longBase(jdk.internal.misc.Unsafe u) {
        long[] a = {0x6d70696c656e7331L, 0x6d70696c656e7332L, 0x6d70696c656e7333L, 0x6d70696c656e7334L};
        long[] b = {0x4d50494c454e5331L, 0x4d50494c454e5332L, 0x4d50494c454e5333L, 0x4d50494c454e5334L};
        for (long base : BASES) {
            if (u.getLong(a, base) == a[0] && u.getLong(a, base + 8) == a[1]
                    && u.getLong(b, base) == b[0] && u.getLong(b, base + 24) == b[3]) return base;
        }
        throw new IllegalStateException("no long[] base offset found");
    }

    /** The offset of an {@code int[]}'s first element, found as {@link #longBase}'s. */
    private static long intBase(jdk.internal.misc.Unsafe u) {
        int[] a = {0x6d706931, 0x6d706932, 0x6d706933, 0x6d706934};
        int[] b = {0x4d504931, 0x4d504932, 0x4d504933, 0x4d504934};
        for (long base : BASES) {
            if (u.getInt(a, base) == a[0] && u.getInt(a, base + 4) == a[1]
                    && u.getInt(b, base) == b[0] && u.getInt(b, base + 12) == b[3]) return base;
        }
        throw new IllegalStateException("no int[] base offset found");
    }

    private static int shift(int scale) {
        if (Integer.bitCount(scale) != 1) throw new IllegalStateException("array index scale " + scale);
        return 31 - Integer.numberOfLeadingZeros(scale);
    }

    /**
     * Every Unsafe method used here, called once on scratch arrays and checked against plain
     * array reads and writes: a method the running JDK lacks fails here, where it is caught, not
     * in the registry; an offset that is not the element's shows as a wrong value.
     */
    private static boolean works(jdk.internal.misc.Unsafe u, long longBase, int longShift, long intBase, int intShift) {
        long[] longs = new long[4];
        int[] ints = new int[4];
        long l1 = longBase + (1L << longShift);
        long l2 = longBase + (2L << longShift);
        long i1 = intBase + (1L << intShift);
        long i2 = intBase + (2L << intShift);
        u.putLongRelease(longs, l1, 0x6d70696c656e7301L);
        u.putLongOpaque(longs, l2, 0x6d70696c656e7302L);
        if (longs[1] != 0x6d70696c656e7301L || longs[2] != 0x6d70696c656e7302L || longs[0] != 0 || longs[3] != 0) return false;
        u.putLongVolatile(longs, l1, 7);
        longs[2] = 8;
        if (longs[1] != 7 || u.getLongAcquire(longs, l2) != 8 || u.getLongVolatile(longs, l1) != 7) return false;
        u.putIntRelease(ints, i1, 0x6d706901);
        u.putIntOpaque(ints, i2, 0x6d706902);
        if (ints[1] != 0x6d706901 || ints[2] != 0x6d706902 || ints[0] != 0 || ints[3] != 0) return false;
        u.putIntVolatile(ints, i1, 5);
        ints[2] = 6;
        if (ints[1] != 5 || u.getIntOpaque(ints, i2) != 6) return false;
        u.storeStoreFence();
        u.loadLoadFence();
        return u.compareAndSetInt(ints, i2, 6, 9) && !u.compareAndSetInt(ints, i2, 6, 10) && ints[2] == 9;
    }

    /**
     * The value of a static field of a reference type (a predefined handle in the binding's MPI
     * class): through Unsafe where it may be used here, which builds no accessor object per field
     * as {@code Field.get} does (≈ 40 of them at {@code MPI_Init}), by reflection elsewhere.
     */
    public static Object staticValue(java.lang.reflect.Field f) throws IllegalAccessException {
        if (UNSAFE && java.lang.reflect.Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
            try {
                return U.getReferenceVolatile(U.staticFieldBase(f), U.staticFieldOffset(f));
            } catch (LinkageError | RuntimeException e) {
                // a JDK without these methods: reflection
            }
        }
        return f.get(null);
    }

    /** The VarHandles, made only where Unsafe may not be used. */
    private static final class Handles {
        static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
        static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
    }

    /** The bounds check the array access would make (Unsafe makes none): a wrong index throws, never writes outside the array. */
    private static long at(long[] a, int i) {
        // the JIT's own range check (an intrinsic): one it has already made for the same index goes
        return LONG_BASE + ((long) java.util.Objects.checkIndex(i, a.length) << LONG_SHIFT);
    }

    private static long at(int[] a, int i) {
        return INT_BASE + ((long) java.util.Objects.checkIndex(i, a.length) << INT_SHIFT);
    }

    static void setRelease(long[] a, int i, long v) {
        if (UNSAFE) U.putLongRelease(a, at(a, i), v);
        else Handles.LONGS.setRelease(a, i, v);
    }

    static void setOpaque(long[] a, int i, long v) {
        if (UNSAFE) U.putLongOpaque(a, at(a, i), v);
        else Handles.LONGS.setOpaque(a, i, v);
    }

    static void setVolatile(long[] a, int i, long v) {
        if (UNSAFE) U.putLongVolatile(a, at(a, i), v);
        else Handles.LONGS.setVolatile(a, i, v);
    }

    static long getAcquire(long[] a, int i) {
        return UNSAFE ? U.getLongAcquire(a, at(a, i)) : (long) Handles.LONGS.getAcquire(a, i);
    }

    static long getVolatile(long[] a, int i) {
        return UNSAFE ? U.getLongVolatile(a, at(a, i)) : (long) Handles.LONGS.getVolatile(a, i);
    }

    static void setRelease(int[] a, int i, int v) {
        if (UNSAFE) U.putIntRelease(a, at(a, i), v);
        else Handles.INTS.setRelease(a, i, v);
    }

    static void setOpaque(int[] a, int i, int v) {
        if (UNSAFE) U.putIntOpaque(a, at(a, i), v);
        else Handles.INTS.setOpaque(a, i, v);
    }

    static void setVolatile(int[] a, int i, int v) {
        if (UNSAFE) U.putIntVolatile(a, at(a, i), v);
        else Handles.INTS.setVolatile(a, i, v);
    }

    static int getOpaque(int[] a, int i) {
        return UNSAFE ? U.getIntOpaque(a, at(a, i)) : (int) Handles.INTS.getOpaque(a, i);
    }

    /** Stores before it are not reordered with stores after it. */
    static void storeStoreFence() {
        if (UNSAFE) U.storeStoreFence();
        else VarHandle.storeStoreFence();
    }

    /** Loads before it are not reordered with loads after it. */
    static void loadLoadFence() {
        if (UNSAFE) U.loadLoadFence();
        else VarHandle.loadLoadFence();
    }

    static boolean compareAndSet(int[] a, int i, int expected, int v) {
        return UNSAFE ? U.compareAndSetInt(a, at(a, i), expected, v) : Handles.INTS.compareAndSet(a, i, expected, v);
    }
}
