package io.mpilens.api.model;

import java.util.Arrays;
import java.util.List;
import java.util.function.LongFunction;

/**
 * One argument of the call that constructed a derived datatype, as the application passed it
 * (recorded by the agent from the call itself; no MPI call). Immutable.
 */
public final class TypeArgument {
    /** What the argument was. */
    public enum Kind {
        /** An {@code int}. */
        INT,
        /** A {@code long}. */
        LONG,
        /** An {@code int[]} (block lengths, displacements). */
        INTS,
        /** One datatype: {@link #values()} holds its registry id (0 when it is not registered). */
        TYPE,
        /** A datatype array: registry ids. */
        TYPES,
        /** Anything else (not recorded). */
        OTHER
    }

    private final Kind kind;
    private final long[] values;
    private final int length;

    /** {@code length}: the array's full length when longer than the values kept, else {@code values.length}. */
    public TypeArgument(Kind kind, long[] values, int length) {
        this.kind = kind;
        this.values = values.clone();
        this.length = Math.max(length, values.length);
    }

    public Kind kind() { return kind; }
    /** The value(s); for an array cut at the agent's bound, the first ones. */
    public long[] values() { return values.clone(); }
    /** The array's full length (only the first {@link #values()} were kept when larger). */
    public int length() { return length; }
    public boolean cut() { return length > values.length; }

    /**
     * The arguments as the call looked: {@code 2, 1, 4, MPI_INT}, arrays in brackets, a cut array
     * ending with {@code … (N values)}; {@code typeName} names a registry id (null: {@code #id}).
     */
    public static String describe(List<TypeArgument> args, LongFunction<String> typeName) {
        StringBuilder s = new StringBuilder();
        for (TypeArgument a : args) {
            if (s.length() > 0) s.append(", ");
            switch (a.kind) {
                case INT:
                case LONG:
                    s.append(a.values.length == 0 ? "?" : Long.toString(a.values[0]));
                    break;
                case TYPE:
                    s.append(a.values.length == 0 ? "?" : type(a.values[0], typeName));
                    break;
                case INTS:
                case TYPES: {
                    s.append('[');
                    for (int i = 0; i < a.values.length; i++) {
                        if (i > 0) s.append(", ");
                        s.append(a.kind == Kind.TYPES ? type(a.values[i], typeName) : Long.toString(a.values[i]));
                    }
                    if (a.cut()) s.append(", … (").append(a.length).append(" values)");
                    s.append(']');
                    break;
                }
                default:
                    s.append('?');
            }
        }
        return s.toString();
    }

    private static String type(long id, LongFunction<String> typeName) {
        String name = id == 0 || typeName == null ? null : typeName.apply(id);
        return name != null ? name : id == 0 ? "(unregistered type)" : "#" + id;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TypeArgument)) return false;
        TypeArgument t = (TypeArgument) o;
        return kind == t.kind && length == t.length && Arrays.equals(values, t.values);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return kind + Arrays.toString(values) + (cut() ? " of " + length : "");
    }
}
