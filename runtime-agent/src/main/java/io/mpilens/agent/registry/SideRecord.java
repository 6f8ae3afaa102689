package io.mpilens.agent.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

/** Encodes a row's variable-size data as one long[] of [tag, n, v1..vn] sections. */
final class SideRecord {
    private SideRecord() {
    }

    /** {@code parentIdAt}: the registry id of each of {@code spec.parents} by position (0: not registered). */
    static long[] encode(RowSpec spec, long[] parentIds, long[] parentIdAt, InternedStrings strings) {
        int n = size(spec.members) + size(spec.remoteMembers) + size(spec.dims)
                + (spec.periods == null ? 0 : spec.periods.length + 2) + size(spec.graphIndex)
                + size(spec.graphEdges) + size(spec.distSources) + size(spec.distDestinations) + (parentIds == null ? 0 : parentIds.length + 2)
                + (spec.stack == null ? 0 : spec.stack.length + 2) + (spec.typeArgs == null ? 0 : spec.typeArgs.length + 2)
                + (spec.infoPairsSection == null ? 0 : spec.infoPairsSection.length + 2) + (spec.createdWithInfoId != 0 ? 3 : 0)
                + (spec.fileName != null || spec.fileMode != Integer.MIN_VALUE ? 5 : 0);
        if (n == 0) return null;
        long[] out = new long[n];
        int at = 0;
        at = put(out, at, SIDE_MEMBERS, spec.members);
        at = put(out, at, SIDE_REMOTE_MEMBERS, spec.remoteMembers);
        at = put(out, at, SIDE_DIMS, spec.dims);
        if (spec.periods != null) {
            out[at++] = SIDE_PERIODS;
            out[at++] = spec.periods.length;
            for (boolean p : spec.periods) out[at++] = p ? 1 : 0;
        }
        at = put(out, at, SIDE_GRAPH_INDEX, spec.graphIndex);
        at = put(out, at, SIDE_GRAPH_EDGES, spec.graphEdges);
        at = put(out, at, SIDE_DIST_SOURCES, spec.distSources);
        at = put(out, at, SIDE_DIST_DESTINATIONS, spec.distDestinations);
        if (parentIds != null) {
            out[at++] = SIDE_PARENTS;
            out[at++] = parentIds.length;
            for (long p : parentIds) out[at++] = p;
        }
        if (spec.typeArgs != null) {
            out[at++] = SIDE_TYPE_ARGS;
            out[at++] = spec.typeArgs.length;
            at = typeArgs(out, at, spec.typeArgs, parentIdAt);
        }
        if (spec.infoPairsSection != null) at = put(out, at, SIDE_INFO_PAIRS, spec.infoPairsSection);
        if (spec.createdWithInfoId != 0) at = put(out, at, SIDE_CREATED_WITH_INFO, new long[] {spec.createdWithInfoId});
        if (spec.fileName != null || spec.fileMode != Integer.MIN_VALUE) {
            at = put(out, at, SIDE_FILE, new long[] {strings.internBounded(spec.fileName), spec.fileMode,
                strings.internBounded(spec.fileModeFlags)});
        }
        if (spec.stack != null) {
            out[at++] = SIDE_STACK;
            out[at++] = spec.stack.length;
            for (String frame : spec.stack) out[at++] = strings.intern(frame);
        }
        return out;
    }

    /** String index of the top creation frame in the side record at {@code pool[at, at+len)}, or -1. */
    static int firstStackString(long[] pool, int at, int len) {
        if (at < 0 || len <= 0) return -1;
        int i = at;
        int end = at + len;
        while (i + 1 < end) {
            int n = (int) pool[i + 1];
            if (pool[i] == SIDE_STACK) return n > 0 && i + 2 < end ? (int) pool[i + 2] : -1;
            i += 2 + n;
        }
        return -1;
    }

    /** Copies the arguments, a datatype's position in the parents replaced by its id. */
    private static int typeArgs(long[] out, int at, long[] args, long[] parentIdAt) {
        int i = 0;
        while (i + 1 < args.length) {
            int kind = (int) args[i];
            int n = (int) args[i + 1];
            out[at++] = kind;
            out[at++] = n;
            boolean types = kind == TYPE_ARG_TYPE || kind == TYPE_ARG_TYPES || kind == TYPE_ARG_TYPES_CUT;
            for (int j = 0; j < n; j++) {
                long v = args[i + 2 + j];
                boolean length = kind == TYPE_ARG_TYPES_CUT && j == 0; // the full length, not a position
                out[at++] = types && !length ? (parentIdAt != null && v >= 0 && v < parentIdAt.length ? parentIdAt[(int) v] : 0) : v;
            }
            i += 2 + n;
        }
        return at;
    }

    private static int put(long[] out, int at, int tag, long[] values) {
        out[at++] = tag;
        out[at++] = values.length;
        for (long v : values) out[at++] = v;
        return at;
    }

    /** {@code old} with its section {@code tag} replaced by {@code values} (removed when null), other sections kept in order. */
    static long[] replace(long[] old, int tag, long[] values) {
        int keep = 0;
        int i = 0;
        while (i + 1 < old.length) {
            int n = (int) old[i + 1];
            if ((int) old[i] != tag) keep += 2 + n;
            i += 2 + n;
        }
        long[] out = new long[keep + (values == null ? 0 : values.length + 2)];
        int at = 0;
        i = 0;
        while (i + 1 < old.length) {
            int n = (int) old[i + 1];
            if ((int) old[i] != tag) {
                System.arraycopy(old, i, out, at, 2 + n);
                at += 2 + n;
            }
            i += 2 + n;
        }
        if (values != null) put(out, at, tag, values);
        return out;
    }

    private static int size(int[] v) {
        return v == null ? 0 : v.length + 2;
    }

    private static int put(long[] out, int at, int tag, int[] values) {
        if (values == null) return at;
        out[at++] = tag;
        out[at++] = values.length;
        for (int v : values) out[at++] = v;
        return at;
    }
}
