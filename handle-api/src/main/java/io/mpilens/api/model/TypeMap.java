package io.mpilens.api.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
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

    /** A run or a hole: one piece of the map laid out as a strip ({@link #spans()}). */
    public static final class Span {
        private final Run run;
        private final Hole hole;

        private Span(Run run, Hole hole) {
            this.run = run;
            this.hole = hole;
        }

        public boolean isHole() { return hole != null; }
        /** The run; null for a hole. */
        public Run run() { return run; }
        /** The hole; null for a run. */
        public Hole hole() { return hole; }
        public long displacement() { return hole != null ? hole.displacement : run.displacement; }
    }

    /** Runs and holes in displacement order (runs at one displacement in type map order). */
    public List<Span> spans() {
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort((a, b) -> Long.compare(a.displacement, b.displacement));
        List<Span> out = new ArrayList<>(sorted.size() + holes.size());
        int h = 0;
        for (Run r : sorted) {
            while (h < holes.size() && holes.get(h).displacement < r.displacement) out.add(new Span(null, holes.get(h++)));
            out.add(new Span(r, null));
        }
        while (h < holes.size()) out.add(new Span(null, holes.get(h++)));
        return out;
    }

    /**
     * Whether a map is shown for this handle: a derived datatype whose constructor was recorded
     * (one made before a late attach has no map to tell; a predefined one is its own intrinsic).
     */
    public static boolean shownFor(HandleInfo h) {
        return h.kind() == HandleKind.DATATYPE && !h.predefined() && h.constructor() != null;
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
        TypeMapRules.Layout l = new TypeMapRules.Flattener(binding, byId).layout(type, 0);
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

}
