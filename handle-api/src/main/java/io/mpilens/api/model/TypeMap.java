package io.mpilens.api.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The flattened type map of a datatype: the intrinsic types it moves and where they sit,
 * with the <em>holes</em> (gaps between blocks, padding, an extent larger than the data)
 * between them. Computed at read time from what the agent recorded of each constructor call
 * (its arguments, {@link HandleInfo#typeArguments()}) and the maps of the types it was built
 * from, by MPI's rules; no MPI call, nothing asked of the target.
 *
 * <p>Units are the binding's: Open MPI's Java bindings take byte displacements in the H
 * constructors, {@code createStruct} and {@code createResized}, so the map is in
 * {@link Unit#BYTE bytes} (each intrinsic with its C size, the pair types with their C layout,
 * and MPI's alignment padding of the upper bound, which Open MPI applies to every constructor
 * without an explicit upper bound). MPJ Express counts everything in elements of the base
 * type, so its maps are in {@link Unit#ELEMENT elements}.
 *
 * <p>Bounded: at most {@link #MAX_RUNS} runs are kept; a larger map is {@link #cut()}: its size,
 * lower bound and extent are still exact (computed arithmetically), its runs are the first
 * ones and its holes are not known. A map that cannot be computed (an argument array cut at
 * the agent's bound, a type the registry does not know, a constructor not modelled) is
 * {@link #known() unknown}, with the reason; never guessed.
 */
public final class TypeMap {
    /** Runs kept per map; a larger map is cut. */
    public static final int MAX_RUNS = 1024;
    /** Work bound: copies of runs placed while flattening one map (beyond it, the map is cut). */
    static final int MAX_PLACED = 100_000;

    /** The unit of displacements, sizes and extents. */
    public enum Unit {
        BYTE("byte"), ELEMENT("element");

        private final String label;

        Unit(String label) {
            this.label = label;
        }

        /** {@code byte} or {@code element} (of the datatype's base type). */
        public String label() {
            return label;
        }
    }

    /** {@code count} consecutive elements of one intrinsic type, each {@code elementSize} long, from {@code displacement}. */
    public static final class Run {
        private final String type;
        private final long displacement;
        private final long count;
        private final long elementSize;

        public Run(String type, long displacement, long count, long elementSize) {
            this.type = type;
            this.displacement = displacement;
            this.count = count;
            this.elementSize = elementSize;
        }

        public String type() { return type; }
        public long displacement() { return displacement; }
        public long count() { return count; }
        public long elementSize() { return elementSize; }
        public long length() { return count * elementSize; }
        public long end() { return displacement + length(); }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Run)) return false;
            Run r = (Run) o;
            return type.equals(r.type) && displacement == r.displacement && count == r.count && elementSize == r.elementSize;
        }

        @Override
        public int hashCode() {
            return type.hashCode() * 31 + Long.hashCode(displacement * 17 + count);
        }

        @Override
        public String toString() {
            return type + " x" + count + " @" + displacement;
        }
    }

    /** A gap inside [lower bound, lower bound + extent) that no data covers. */
    public static final class Hole {
        private final long displacement;
        private final long length;

        public Hole(long displacement, long length) {
            this.displacement = displacement;
            this.length = length;
        }

        public long displacement() { return displacement; }
        public long length() { return length; }
        public long end() { return displacement + length; }

        @Override
        public boolean equals(Object o) {
            return o instanceof Hole && ((Hole) o).displacement == displacement && ((Hole) o).length == length;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(displacement * 31 + length);
        }

        @Override
        public String toString() {
            return "hole " + displacement + ".." + end();
        }
    }

    private final Unit unit;
    private final String unknown;
    private final List<Run> runs;
    private final List<Hole> holes;
    private final boolean cut;
    private final long size;
    private final long lowerBound;
    private final long extent;

    private TypeMap(Unit unit, String unknown, List<Run> runs, List<Hole> holes, boolean cut, long size, long lb, long extent) {
        this.unit = unit;
        this.unknown = unknown;
        this.runs = Collections.unmodifiableList(runs);
        this.holes = Collections.unmodifiableList(holes);
        this.cut = cut;
        this.size = size;
        this.lowerBound = lb;
        this.extent = extent;
    }

    private static TypeMap unknown(String why) {
        return new TypeMap(null, why, List.of(), List.of(), false, 0, 0, 0);
    }

    /** Whether the map could be computed; if not, {@link #whyUnknown()} says why. */
    public boolean known() { return unknown == null; }
    public String whyUnknown() { return unknown; }
    public Unit unit() { return unit; }
    /** In type map order (the order MPI sends them), adjacent elements of one type merged into one run. */
    public List<Run> runs() { return runs; }
    /** In displacement order; empty when {@link #cut()}. */
    public List<Hole> holes() { return holes; }
    public boolean cut() { return cut; }
    /** Data in the map (the type's size), in {@link #unit()}s. */
    public long size() { return size; }
    public long lowerBound() { return lowerBound; }
    public long extent() { return extent; }
    /** Units of the extent that carry no data (0 when cut: not known). */
    public long holeTotal() {
        long t = 0;
        for (Hole h : holes) t += h.length;
        return t;
    }

    // ------------------------------------------------------------------ flattening

    /** The map of a datatype of {@code process} (its parents looked up among live and released handles). */
    public static TypeMap of(HandleInfo type, ProcessSnapshot process) {
        return of(type, process.binding(), index(process));
    }

    /** A process's handles by id, live ones over released ones: build it once for the maps of many types. */
    public static Map<Long, HandleInfo> index(ProcessSnapshot process) {
        Map<Long, HandleInfo> byId = new HashMap<>();
        for (HandleInfo h : process.released()) byId.put(h.id(), h);
        for (HandleInfo h : process.handles()) byId.put(h.id(), h);
        return byId;
    }

    /** The map of a datatype of a process of {@code binding} ("openmpi", "mpj"), its parents found in {@code byId}. */
    public static TypeMap of(HandleInfo type, String binding, Map<Long, HandleInfo> byId) {
        if (type == null || type.kind() != HandleKind.DATATYPE) return unknown("not a datatype");
        Unit unit = "openmpi".equals(binding) ? Unit.BYTE : "mpj".equals(binding) ? Unit.ELEMENT : null;
        if (unit == null) return unknown("no type map rules for binding " + binding);
        Flattener f = new Flattener(binding, byId);
        Layout l = f.layout(type, 0);
        if (l.unknown != null) return unknown(l.unknown);
        List<Hole> holes = l.cut ? List.of() : holes(l.runs, l.lb, l.ub);
        return new TypeMap(unit, null, l.runs, holes, l.cut, l.size, l.lb, l.ub - l.lb);
    }

    /** Gaps in [lb, ub) not covered by any run. */
    static List<Hole> holes(List<Run> runs, long lb, long ub) {
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort((a, b) -> Long.compare(a.displacement, b.displacement));
        List<Hole> out = new ArrayList<>();
        long at = lb;
        for (Run r : sorted) {
            if (r.length() <= 0) continue;
            long from = Math.max(r.displacement, lb);
            if (from > at && at < ub) out.add(new Hole(at, Math.min(from, ub) - at));
            at = Math.max(at, r.end());
        }
        if (at < ub) out.add(new Hole(at, ub - at));
        return out;
    }

    /** A map being built: runs (bounded), exact size and bounds, MPI's explicit-bound stickiness, alignment. */
    private static final class Layout {
        String unknown;
        List<Run> runs = new ArrayList<>();
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
    private static final class Block {
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
    static final java.util.Set<String> MPJ_BASIC = java.util.Set.of("MPI_BYTE", "MPI_CHAR", "MPI_SHORT", "MPI_BOOLEAN",
            "MPI_INT", "MPI_LONG", "MPI_FLOAT", "MPI_DOUBLE", "MPI_PACKED", "MPI_OBJECT");

    private static final class Flattener {
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
                        long placedBlocks = Math.min(count, MAX_RUNS);
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
            if (p == null) return Layout.unknown("built from datatype #" + id + ", which is no longer in the snapshot");
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
            l.runs.add(new Run(base, 0, n, 1));
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
            Run only = old.runs.size() == 1 ? old.runs.get(0) : null;
            if (only != null && !old.cut && only.displacement == old.lb && only.length() == e && e > 0) {
                // a dense type: all copies are one run
                add(l, new Run(only.type, displacement + only.displacement, only.count * copies, only.elementSize));
                return;
            }
            for (long k = 0; k < copies; k++) {
                for (Run r : old.runs) {
                    if (l.cut || ++placed > MAX_PLACED) {
                        l.cut = true;
                        return;
                    }
                    add(l, new Run(r.type, displacement + k * e + r.displacement, r.count, r.elementSize));
                }
            }
        }

        private static void add(Layout l, Run r) {
            int n = l.runs.size();
            if (n > 0) {
                Run last = l.runs.get(n - 1);
                if (last.type.equals(r.type) && last.elementSize == r.elementSize && last.end() == r.displacement) {
                    l.runs.set(n - 1, new Run(last.type, last.displacement, last.count + r.count, last.elementSize));
                    return;
                }
            }
            if (n >= MAX_RUNS) {
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

        private static long[] ints(List<TypeArgument> a, int i) {
            TypeArgument t = arg(a, i);
            if (t.kind() != TypeArgument.Kind.INTS) throw new IllegalArgumentException("argument " + (i + 1) + " is not a recorded int array");
            return t.values();
        }

        private static long type(List<TypeArgument> a, int i) {
            TypeArgument t = arg(a, i);
            if (t.kind() != TypeArgument.Kind.TYPE || t.values().length == 0) {
                throw new IllegalArgumentException("argument " + (i + 1) + " is not a recorded datatype");
            }
            return t.values()[0];
        }

        private static long[] types(List<TypeArgument> a, int i) {
            TypeArgument t = arg(a, i);
            if (t.kind() != TypeArgument.Kind.TYPES) throw new IllegalArgumentException("argument " + (i + 1) + " is not a recorded datatype array");
            return t.values();
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
            l.runs.add(new Run(name, 0, 1, size));
            l.size = size;
            l.ub = size;
            l.align = align;
            return l;
        }

        /** MPI's pair types: {@code first} at 0, {@code second} at {@code at}. */
        private static Layout pair(String first, long firstSize, String second, long at, long secondSize, long extent) {
            Layout l = new Layout();
            l.runs.add(new Run(first, 0, 1, firstSize));
            Flattener.add(l, new Run(second, at, 1, secondSize));
            l.size = firstSize + secondSize;
            l.ub = extent;
            l.align = Math.max(firstSize, secondSize);
            return l;
        }
    }
}
