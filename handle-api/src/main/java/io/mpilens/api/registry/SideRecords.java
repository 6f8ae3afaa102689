package io.mpilens.api.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import io.mpilens.api.model.TypeArgument;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reading the registry's side records ({@link RegistryLayout#SIDE_POOL}): each a run of
 * {@code [tag, n, v1..vn]} sections; a damaged or torn record yields what is intact before the
 * damage, never garbage.
 */
final class SideRecords {
    private SideRecords() {
    }

    /** Slices of the side pool; a record pointing outside what was read is left out (torn). */
    static Map<Integer, long[]> slices(long[] pool, List<Integer> rows, int[] at, int[] len) {
        Map<Integer, long[]> out = new HashMap<>();
        for (int s : rows) {
            if (s >= at.length) continue;
            int from = at[s];
            int n = len[s];
            if (from < 0 || n <= 0 || from + n > pool.length) continue;
            out.put(s, Arrays.copyOfRange(pool, from, from + n));
        }
        return out;
    }

    /** Whether the side record has a section with this tag (an empty one included). */
    static boolean has(long[] side, int tag) {
        if (side == null) return false;
        int i = 0;
        while (i + 1 < side.length) {
            int n = (int) side[i + 1];
            if (n < 0 || i + 2 + n > side.length) return false;
            if ((int) side[i] == tag) return true;
            i += 2 + n;
        }
        return false;
    }

    /** The {@link RegistryLayout#SIDE_TYPE_ARGS} section as arguments; a damaged rest is dropped. */
    static List<TypeArgument> typeArguments(long[] v) {
        List<TypeArgument> out = new ArrayList<>();
        int i = 0;
        while (i + 1 < v.length) {
            int kind = (int) v[i];
            int n = (int) v[i + 1];
            if (n < 0 || i + 2 + n > v.length) break;
            long[] values = Arrays.copyOfRange(v, i + 2, i + 2 + n);
            i += 2 + n;
            TypeArgument.Kind k;
            int length = values.length;
            switch (kind) {
                case TYPE_ARG_INT: k = TypeArgument.Kind.INT; break;
                case TYPE_ARG_LONG: k = TypeArgument.Kind.LONG; break;
                case TYPE_ARG_INTS: k = TypeArgument.Kind.INTS; break;
                case TYPE_ARG_TYPE: k = TypeArgument.Kind.TYPE; break;
                case TYPE_ARG_TYPES: k = TypeArgument.Kind.TYPES; break;
                case TYPE_ARG_INTS_CUT:
                case TYPE_ARG_TYPES_CUT:
                    if (values.length == 0) continue;
                    k = kind == TYPE_ARG_INTS_CUT ? TypeArgument.Kind.INTS
                            : TypeArgument.Kind.TYPES;
                    length = (int) Math.min(Integer.MAX_VALUE, Math.max(0, values[0]));
                    values = Arrays.copyOfRange(values, 1, values.length);
                    break;
                default: k = TypeArgument.Kind.OTHER; values = new long[0]; break;
            }
            out.add(new TypeArgument(k, values, length));
        }
        return out;
    }

    /** Values of one tagged section of a side record; empty when absent. */
    static long[] values(long[] side, int tag) {
        if (side == null) return new long[0];
        int i = 0;
        while (i + 1 < side.length) {
            int t = (int) side[i];
            int n = (int) side[i + 1];
            if (n < 0 || i + 2 + n > side.length) break; // damaged record: ignore the rest
            if (t == tag) return Arrays.copyOfRange(side, i + 2, i + 2 + n);
            i += 2 + n;
        }
        return new long[0];
    }

}
