package io.mpilens.api.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How {@link TypeMap} flattens a datatype: MPI's rules for each constructor (blocks of copies
 * of the old types, bounds, explicit bounds, Open MPI's alignment padding) and the intrinsic
 * types of each binding. Package-private: {@link TypeMap} is the model users see.
 */
final class TypeMapRules {
    private TypeMapRules() {
    }

    /** A map being built: runs (bounded), exact size and bounds, MPI's explicit-bound stickiness, alignment. */
    static final class Layout {
        String unknown;
        List<TypeMap.Run> runs = new ArrayList<>();
        boolean cut;
        long size;
        long lb;
        long ub;
        boolean explicitLb;
        boolean explicitUb;
        long align = 1;

        static Layout unknown(String why) {
            Layout l = new Layout();
            l.unknown = why;
            return l;
        }

        long extent() {
            return ub - lb;
        }
    }

    /**
     * One constructor block: {@code copies} of {@code old} from {@code displacement}, each
     * {@code old.extent()} after the last. A block not {@code placed} only bounds the type and
     * stands for {@code weight} blocks of its size (the unplaced tail of a huge vector).
     */
    static final class Block {
        final Layout old;
        final long displacement;
        final long copies;
        final long weight;
        final boolean placed;

        Block(Layout old, long displacement, long copies) {
            this(old, displacement, copies, 1, true);
        }

        Block(Layout old, long displacement, long copies, long weight, boolean placed) {
            this.old = old;
            this.displacement = displacement;
            this.copies = copies;
            this.weight = weight;
            this.placed = placed;
        }
    }

    /** MPJ Express 0.44's basic datatypes (its MPI class's fields); each is one element of itself. */
    static final Set<String> MPJ_BASIC = Set.of("MPI_BYTE", "MPI_CHAR", "MPI_SHORT", "MPI_BOOLEAN",
            "MPI_INT", "MPI_LONG", "MPI_FLOAT", "MPI_DOUBLE", "MPI_PACKED", "MPI_OBJECT");

    static final class Flattener {
        private final String binding;
        private final Map<Long, HandleInfo> byId;
        private final Map<Long, Layout> done = new HashMap<>();
        private int placed;

        Flattener(String binding, Map<Long, HandleInfo> byId) {
            this.binding = binding;
            this.byId = byId;
        }

        Layout layout(HandleInfo t, int depth) {
            Layout memo = done.get(t.id());
            if (memo != null) return memo;
            Layout l = depth > 64 ? Layout.unknown("types nested more than 64 deep") : compute(t, depth);
            done.put(t.id(), l);
            return l;
        }

        private Layout compute(HandleInfo t, int depth) {
            if (t.predefined()) return predefined(t);
            String c = constructor(t.constructor());
            if (c == null) return Layout.unknown("constructor not recorded");
            List<TypeArgument> a = t.typeArguments();
            for (TypeArgument arg : a) {
                if (arg.cut()) return Layout.unknown("an argument array was cut at " + arg.values().length
                        + " of " + arg.length() + " values by the agent's bound");
            }
            try {
                switch (c) {
                    case "dup": {
                        if (t.parents().length != 1) return Layout.unknown("dup of an unknown type");
                        return parent(t.parents()[0], depth);
                    }
                    case "contiguous": {
                        Layout old = parent(type(a, 1), depth);
                        if (old.unknown != null) return old;
                        return build(List.of(new Block(old, 0, integer(a, 0))));
                    }
                    case "vector":
                    case "hvector": {
                        Layout old = parent(type(a, 3), depth);
                        if (old.unknown != null) return old;
                        long count = integer(a, 0), blockLength = integer(a, 1), stride = integer(a, 2);
                        long step = c.equals("vector") ? stride * old.extent() : stride;
                        List<Block> blocks = new ArrayList<>();
                        long placedBlocks = Math.min(count, TypeMap.MAX_RUNS);
                        for (long j = 0; j < placedBlocks; j++) blocks.add(new Block(old, j * step, blockLength, 1, true));
                        if (count > placedBlocks) { // the last block stands for the rest: regular, so it bounds them
                            blocks.add(new Block(old, (count - 1) * step, blockLength, count - placedBlocks, false));
                        }
                        return build(blocks);
                    }
                    case "indexed":
                    case "hindexed": {
                        Layout old = parent(type(a, 2), depth);
                        if (old.unknown != null) return old;
                        long[] lengths = ints(a, 0), displacements = ints(a, 1);
                        if (lengths.length != displacements.length) return Layout.unknown("block lengths and displacements differ in number");
                        long scale = c.equals("indexed") ? old.extent() : 1;
                        List<Block> blocks = new ArrayList<>();
                        for (int j = 0; j < lengths.length; j++) blocks.add(new Block(old, displacements[j] * scale, lengths[j]));
                        return build(blocks);
                    }
                    case "struct": {
                        long[] lengths = ints(a, 0), displacements = ints(a, 1), types = types(a, 2);
                        if (lengths.length != displacements.length || lengths.length != types.length) {
                            return Layout.unknown("block lengths, displacements and types differ in number");
                        }
                        List<Block> blocks = new ArrayList<>();
                        for (int j = 0; j < lengths.length; j++) {
                            Layout old = parent(types[j], depth);
                            if (old.unknown != null) return old;
                            blocks.add(new Block(old, displacements[j], lengths[j]));
                        }
                        return build(blocks);
                    }
                    case "resized": {
                        Layout old = parent(type(a, 0), depth);
                        if (old.unknown != null) return old;
                        Layout l = copy(old);
                        l.lb = integer(a, 1);
                        l.ub = l.lb + integer(a, 2);
                        l.explicitLb = true;
                        l.explicitUb = true;
                        return l;
                    }
                    default:
                        return Layout.unknown("constructor " + t.constructor() + " is not modelled");
                }
            } catch (IllegalArgumentException e) {
                return Layout.unknown(e.getMessage());
            }
        }

        /** createVector, Vector, Hvector, ... to one lower-case name; null when none was recorded. */
        static String constructor(String name) {
            if (name == null || name.isEmpty()) return null;
            String n = name.toLowerCase(Locale.ROOT);
            if (n.startsWith("create")) n = n.substring("create".length());
            return n;
        }

        private Layout parent(long id, int depth) {
            if (id == 0) return Layout.unknown("built from a datatype the agent did not register");
            HandleInfo p = byId.get(id);
            if (p == null) return Layout.unknown("built from datatype " + HandleIds.label(id) + ", which is no longer in the snapshot");
            if ("mpj".equals(binding) && !p.predefined()) {
                return Layout.unknown("MPJ Express lays out types built from derived types by its own rule, not MPI's: not shown");
            }
            return layout(p, depth + 1);
        }

        private Layout predefined(HandleInfo t) {
            String name = t.name();
            if (name == null) return Layout.unknown("predefined datatype without a name");
            if (binding.equals("openmpi")) {
                Layout l = OpenMpiIntrinsics.layout(name);
                return l != null ? l : Layout.unknown("no layout known for Open MPI's " + name);
            }
            Layout l = new Layout();
            if (name.equals("MPI_LB") || name.equals("MPI_UB")) { // markers: no data, an explicit bound
                l.explicitLb = name.equals("MPI_LB");
                l.explicitUb = name.equals("MPI_UB");
                return l;
            }
            // MPJ Express counts in elements of the base type: a basic type is one, its pair type (MPI_INT2) two
            String base = name.endsWith("2") ? name.substring(0, name.length() - 1) : name;
            if (!MPJ_BASIC.contains(base)) return Layout.unknown("no layout known for MPJ Express's " + name);
            long n = base.equals(name) ? 1 : 2;
            l.runs.add(new TypeMap.Run(base, 0, n, 1));
            l.size = n;
            l.ub = n;
            return l;
        }

        /** MPI's rules for a new type made of blocks: runs in order, size, bounds (explicit ones win), alignment. */
        private Layout build(List<Block> blocks) {
            Layout l = new Layout();
            long lb = Long.MAX_VALUE, ub = Long.MIN_VALUE, xlb = Long.MAX_VALUE, xub = Long.MIN_VALUE;
            boolean any = false;
            for (Block b : blocks) {
                Layout old = b.old;
                if (b.copies < 0) throw new IllegalArgumentException("negative block length " + b.copies);
                if (b.copies == 0) continue;
                if (old.cut || !b.placed) l.cut = true;
                l.size += b.copies * old.size * b.weight;
                l.align = Math.max(l.align, old.align);
                long e = old.extent();
                long blockLb = b.displacement + old.lb + Math.min(0, (b.copies - 1) * e);
                long blockUb = b.displacement + old.ub + Math.max(0, (b.copies - 1) * e);
                any = true;
                lb = Math.min(lb, blockLb);
                ub = Math.max(ub, blockUb);
                if (old.explicitLb) xlb = Math.min(xlb, blockLb);
                if (old.explicitUb) xub = Math.max(xub, blockUb);
                if (b.placed) place(l, old, b.displacement, b.copies);
            }
            if (!any) return l; // no data: lb = ub = 0
            l.explicitLb = xlb != Long.MAX_VALUE;
            l.explicitUb = xub != Long.MIN_VALUE;
            l.lb = l.explicitLb ? xlb : lb;
            l.ub = l.explicitUb ? xub : ub;
            if (!l.explicitUb && binding.equals("openmpi") && l.align > 1) {
                long rest = Math.floorMod(l.ub - l.lb, l.align);
                if (rest != 0) l.ub += l.align - rest; // Open MPI pads every constructor, not only struct
            }
            return l;
        }

        /** Appends {@code copies} of {@code old}'s runs, merging adjacent runs of one type; stops at the bounds. */
        private void place(Layout l, Layout old, long displacement, long copies) {
            if (old.runs.isEmpty()) return;
            long e = old.extent();
            TypeMap.Run only = old.runs.size() == 1 ? old.runs.get(0) : null;
            if (only != null && !old.cut && only.displacement() == old.lb && only.length() == e && e > 0) {
                // a dense type: all copies are one run
                add(l, new TypeMap.Run(only.type(), displacement + only.displacement(), only.count() * copies, only.elementSize()));
                return;
            }
            for (long k = 0; k < copies; k++) {
                for (TypeMap.Run r : old.runs) {
                    if (l.cut || ++placed > TypeMap.MAX_PLACED) {
                        l.cut = true;
                        return;
                    }
                    add(l, new TypeMap.Run(r.type(), displacement + k * e + r.displacement(), r.count(), r.elementSize()));
                }
            }
        }

        private static void add(Layout l, TypeMap.Run r) {
            int n = l.runs.size();
            if (n > 0) {
                TypeMap.Run last = l.runs.get(n - 1);
                if (last.type().equals(r.type()) && last.elementSize() == r.elementSize() && last.end() == r.displacement()) {
                    l.runs.set(n - 1, new TypeMap.Run(last.type(), last.displacement(), last.count() + r.count(), last.elementSize()));
                    return;
                }
            }
            if (n >= TypeMap.MAX_RUNS) {
                l.cut = true;
                return;
            }
            l.runs.add(r);
        }

        private static Layout copy(Layout old) {
            Layout l = new Layout();
            l.runs = new ArrayList<>(old.runs);
            l.cut = old.cut;
            l.size = old.size;
            l.lb = old.lb;
            l.ub = old.ub;
            l.explicitLb = old.explicitLb;
            l.explicitUb = old.explicitUb;
            l.align = old.align;
            return l;
        }

        private static TypeArgument arg(List<TypeArgument> a, int i) {
            if (i >= a.size()) throw new IllegalArgumentException("argument " + (i + 1) + " not recorded");
            return a.get(i);
        }

        private static long integer(List<TypeArgument> a, int i) {
            TypeArgument t = arg(a, i);
            if ((t.kind() != TypeArgument.Kind.INT && t.kind() != TypeArgument.Kind.LONG) || t.values().length == 0) {
                throw new IllegalArgumentException("argument " + (i + 1) + " is not a recorded number");
            }
            return t.values()[0];
        }

        /** The values of argument {@code i}, which must have been recorded as {@code kind} ({@code what} names it). */
        private static long[] values(List<TypeArgument> a, int i, TypeArgument.Kind kind, String what) {
            TypeArgument t = arg(a, i);
            if (t.kind() != kind) throw new IllegalArgumentException("argument " + (i + 1) + " is not a recorded " + what);
            return t.values();
        }

        private static long[] ints(List<TypeArgument> a, int i) {
            return values(a, i, TypeArgument.Kind.INTS, "int array");
        }

        private static long type(List<TypeArgument> a, int i) {
            long[] v = values(a, i, TypeArgument.Kind.TYPE, "datatype");
            if (v.length == 0) throw new IllegalArgumentException("argument " + (i + 1) + " is not a recorded datatype");
            return v[0];
        }

        private static long[] types(List<TypeArgument> a, int i) {
            return values(a, i, TypeArgument.Kind.TYPES, "datatype array");
        }
    }

    /**
     * The predefined datatypes of Open MPI's Java bindings as C lays them out (checked against
     * Open MPI 4.1: each one's byte size is the binding's {@code baseSize}; the pair types' sizes,
     * extents and true extents are what {@code getSize}/{@code getExtent}/{@code getTrueExtent} answer).
     */
    static final class OpenMpiIntrinsics {
        private OpenMpiIntrinsics() {
        }

        static Layout layout(String name) {
            switch (name) {
                case "MPI_BYTE": case "MPI_BOOLEAN": case "MPI_PACKED": return basic(name, 1);
                case "MPI_CHAR": case "MPI_SHORT": return basic(name, 2);
                case "MPI_INT": case "MPI_FLOAT": return basic(name, 4);
                case "MPI_LONG": case "MPI_DOUBLE": return basic(name, 8);
                case "MPI_FLOAT_COMPLEX": return element(name, 8, 4);
                case "MPI_DOUBLE_COMPLEX": return element(name, 16, 8);
                case "MPI_INT2": return pair("MPI_INT", 4, "MPI_INT", 4, 4, 8);
                case "MPI_SHORT_INT": return pair("MPI_SHORT", 2, "MPI_INT", 4, 4, 8);
                case "MPI_LONG_INT": return pair("MPI_LONG", 8, "MPI_INT", 8, 4, 16);
                case "MPI_FLOAT_INT": return pair("MPI_FLOAT", 4, "MPI_INT", 4, 4, 8);
                case "MPI_DOUBLE_INT": return pair("MPI_DOUBLE", 8, "MPI_INT", 8, 4, 16);
                default: return null;
            }
        }

        private static Layout basic(String name, long size) {
            return element(name, size, size);
        }

        private static Layout element(String name, long size, long align) {
            Layout l = new Layout();
            l.runs.add(new TypeMap.Run(name, 0, 1, size));
            l.size = size;
            l.ub = size;
            l.align = align;
            return l;
        }

        /** MPI's pair types: {@code first} at 0, {@code second} at {@code at}. */
        private static Layout pair(String first, long firstSize, String second, long at, long secondSize, long extent) {
            Layout l = new Layout();
            l.runs.add(new TypeMap.Run(first, 0, 1, firstSize));
            Flattener.add(l, new TypeMap.Run(second, at, 1, secondSize));
            l.size = firstSize + secondSize;
            l.ub = extent;
            l.align = Math.max(firstSize, secondSize);
            return l;
        }
    }
}
