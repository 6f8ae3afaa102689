package io.mpilens.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.TypeArgument.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The flattening rules on synthetic snapshots. The expected sizes and extents are what Open MPI
 * 4.1's Java bindings answered for the same constructor calls (getSize/getExtent/getLb times the
 * type's baseSize, probed 2026-11-25; MPJ Express 0.44 multicore for the element cases); the
 * examples' tours check the maps against a real self-send of marker bytes on both bindings.
 */
class TypeMapTest {
    private final Map<Long, HandleInfo> byId = new HashMap<>();
    private long next = 100;

    private long predefined(String name, long size, long extent) {
        long id = next++;
        byId.put(id, HandleInfo.builder(id, HandleKind.DATATYPE).name(name).predefined(true).state(Lifecycle.ACTIVE)
                .typeSize(size).extent(extent).lowerBound(0).build());
        return id;
    }

    private long derived(String constructor, TypeArgument... args) {
        long id = next++;
        List<Long> parents = new ArrayList<>();
        for (TypeArgument a : args) {
            if (a.kind() == Kind.TYPE || a.kind() == Kind.TYPES) for (long v : a.values()) parents.add(v);
        }
        byId.put(id, HandleInfo.builder(id, HandleKind.DATATYPE).constructor(constructor).state(Lifecycle.ACTIVE)
                .typeArguments(List.of(args)).parents(parents.stream().mapToLong(Long::longValue).toArray()).build());
        return id;
    }

    private static TypeArgument n(long v) {
        return new TypeArgument(Kind.INT, new long[] {v}, 1);
    }

    private static TypeArgument ints(long... v) {
        return new TypeArgument(Kind.INTS, v, v.length);
    }

    private static TypeArgument type(long id) {
        return new TypeArgument(Kind.TYPE, new long[] {id}, 1);
    }

    private static TypeArgument types(long... ids) {
        return new TypeArgument(Kind.TYPES, ids, ids.length);
    }

    private TypeMap open(long id) {
        return TypeMap.of(byId.get(id), "openmpi", byId);
    }

    private static String runs(TypeMap m) {
        StringBuilder s = new StringBuilder();
        for (TypeMap.Run r : m.runs()) s.append(s.length() == 0 ? "" : ", ").append(r);
        return s.toString();
    }

    private static String holes(TypeMap m) {
        StringBuilder s = new StringBuilder();
        for (TypeMap.Hole h : m.holes()) s.append(s.length() == 0 ? "" : ", ").append(h.displacement()).append("..").append(h.end());
        return s.toString();
    }

    @Test
    void structWithPaddingIsAlignedToItsWidestMember() {
        long dbl = predefined("MPI_DOUBLE", 1, 1), in = predefined("MPI_INT", 1, 1), sh = predefined("MPI_SHORT", 1, 1);
        // {int @0, double @8, short @16}: data 4 + 8 + 2; Open MPI pads 18 to 24
        TypeMap m = open(derived("createStruct", ints(1, 1, 1), ints(0, 8, 16), types(in, dbl, sh)));
        assertTrue(m.known(), m.whyUnknown());
        assertEquals(TypeMap.Unit.BYTE, m.unit());
        assertEquals("MPI_INT x1 @0, MPI_DOUBLE x1 @8, MPI_SHORT x1 @16", runs(m));
        assertEquals(14, m.size());
        assertEquals(0, m.lowerBound());
        assertEquals(24, m.extent());
        assertEquals("4..8, 18..24", holes(m));
        assertEquals(10, m.holeTotal());
    }

    @Test
    void openMpiPadsEveryConstructorWithoutAnExplicitUpperBound() {
        long dbl = predefined("MPI_DOUBLE", 1, 1), in = predefined("MPI_INT", 1, 1), b = predefined("MPI_BYTE", 1, 1);
        assertEquals(24, open(derived("createHIndexed", ints(1, 1), ints(0, 12), type(dbl))).extent());
        assertEquals(24, open(derived("createHVector", n(2), n(1), n(12), type(dbl))).extent());
        long s = derived("createStruct", ints(1, 1), ints(0, 8), types(dbl, in));
        assertEquals(16, open(s).extent());
        assertEquals(32, open(derived("createContiguous", n(2), type(s))).extent());
        assertEquals(48, open(derived("createVector", n(2), n(1), n(2), type(s))).extent());
        TypeMap negative = open(derived("createStruct", ints(1, 1), ints(-4, 0), types(in, b)));
        assertEquals(-4, negative.lowerBound());
        assertEquals(8, negative.extent());
        TypeMap bytes = open(derived("createStruct", ints(3), ints(1), types(b)));
        assertEquals(1, bytes.lowerBound());
        assertEquals(3, bytes.extent());
        assertEquals("", holes(bytes));
    }

    @Test
    void pairTypesHaveTheirCLayout() {
        long di = predefined("MPI_DOUBLE_INT", 12, 16), b = predefined("MPI_BYTE", 1, 1);
        TypeMap m = open(derived("createStruct", ints(1, 1), ints(0, 16), types(di, b)));
        assertEquals("MPI_DOUBLE x1 @0, MPI_INT x1 @8, MPI_BYTE x1 @16", runs(m));
        assertEquals(13, m.size());
        assertEquals(24, m.extent());
        assertEquals("12..16, 17..24", holes(m));
        TypeMap si = open(derived("createContiguous", n(1), type(predefined("MPI_SHORT_INT", 6, 8))));
        assertEquals("2..4", holes(si));
        assertEquals("MPI_INT x2 @0", runs(open(derived("createContiguous", n(1), type(predefined("MPI_INT2", 8, 8))))));
    }

    @Test
    void resizedBoundsAreExplicitAndWinOverData() {
        long dbl = predefined("MPI_DOUBLE", 1, 1), in = predefined("MPI_INT", 1, 1), b = predefined("MPI_BYTE", 1, 1);
        long s = derived("createStruct", ints(1, 1), ints(0, 8), types(dbl, in));
        long r = derived("createResized", type(s), n(0), n(12));
        assertEquals(12, open(r).extent());
        assertEquals("", holes(open(r)));
        // a byte after the explicit upper bound: data 13, extent still 12 (Open MPI: size 13, extent 12)
        TypeMap m = open(derived("createStruct", ints(1, 1), ints(0, 12), types(r, b)));
        assertEquals(13, m.size());
        assertEquals(12, m.extent());
        long r6 = derived("createResized", type(in), n(0), n(6));
        TypeMap two = open(derived("createStruct", ints(2), ints(0), types(r6)));
        assertEquals("MPI_INT x1 @0, MPI_INT x1 @6", runs(two));
        assertEquals(12, two.extent());
        assertEquals("4..6, 10..12", holes(two));
    }

    @Test
    void vectorsIndexedAndDenseCopies() {
        long in = predefined("MPI_INT", 1, 1);
        long contig = derived("createContiguous", n(4), type(in));
        assertEquals("MPI_INT x4 @0", runs(open(contig)));
        TypeMap vec = open(derived("createVector", n(2), n(1), n(4), type(contig)));
        assertEquals("MPI_INT x4 @0, MPI_INT x4 @64", runs(vec));
        assertEquals(80, vec.extent());
        assertEquals("16..64", holes(vec));
        TypeMap idx = open(derived("createIndexed", ints(2, 1), ints(0, 3), type(in)));
        assertEquals("MPI_INT x2 @0, MPI_INT x1 @12", runs(idx));
        assertEquals(16, idx.extent());
        TypeMap empty = open(derived("createContiguous", n(0), type(in)));
        assertTrue(empty.runs().isEmpty());
        assertEquals(0, empty.extent());
        assertEquals(0, empty.size());
    }

    @Test
    void hugeMapsAreCutButKeepTheirExactSizeAndBounds() {
        long in = predefined("MPI_INT", 1, 1);
        TypeMap dense = open(derived("createContiguous", n(1_000_000_000), type(in)));
        assertEquals(1, dense.runs().size(), "a dense type is one run however long");
        assertFalse(dense.cut());
        TypeMap strided = open(derived("createVector", n(10_000_000), n(1), n(2), type(in)));
        assertTrue(strided.cut());
        assertEquals(TypeMap.MAX_RUNS, strided.runs().size());
        assertEquals(40_000_000, strided.size());
        assertEquals(4L * (2 * 9_999_999 + 1), strided.extent());
        assertTrue(strided.holes().isEmpty(), "holes of a cut map are not known");
    }

    @Test
    void unknownInsteadOfGuessed() {
        long in = predefined("MPI_INT", 1, 1);
        TypeMap cutArgs = open(derived("createIndexed", new TypeArgument(Kind.INTS, new long[] {1, 1}, 5000), ints(0, 2), type(in)));
        assertFalse(cutArgs.known());
        assertTrue(cutArgs.whyUnknown().contains("cut"), cutArgs.whyUnknown());
        assertFalse(open(derived("createContiguous", n(2), type(0))).known());
        assertFalse(open(derived("createContiguous", n(2), type(999))).known());
        assertFalse(TypeMap.of(byId.get(in), "mpich", byId).known());
    }

    @Test
    void mpjExpressCountsElementsAndDoesNotPad() {
        long in = predefined("MPI_INT", 1, 1);
        // MPJ Express 0.44: Struct({1,1},{1,5},{INT,INT}) moves elements 1 and 5, lb 1, extent 5
        TypeMap s = TypeMap.of(byId.get(derived("Struct", ints(1, 1), ints(1, 5), types(in, in))), "mpj", byId);
        assertEquals(TypeMap.Unit.ELEMENT, s.unit());
        assertEquals("MPI_INT x1 @1, MPI_INT x1 @5", runs(s));
        assertEquals(1, s.lowerBound());
        assertEquals(5, s.extent());
        assertEquals("2..5", holes(s));
        // Hindexed({1,2},{2,7}, INT): elements 2, 7, 8; extent 7
        TypeMap h = TypeMap.of(byId.get(derived("Hindexed", ints(1, 2), ints(2, 7), type(in))), "mpj", byId);
        assertEquals("MPI_INT x1 @2, MPI_INT x2 @7", runs(h));
        assertEquals(7, h.extent());
        long hv = derived("Hvector", n(2), n(1), n(3), type(in));
        assertEquals(4, TypeMap.of(byId.get(hv), "mpj", byId).extent());
        // MPJ Express lays out a Contiguous of that Hvector as elements 0, 2, 3, 5 (not MPI's 0, 3, 4, 7)
        assertFalse(TypeMap.of(byId.get(derived("Contiguous", n(2), type(hv))), "mpj", byId).known());
        // its predefined types carry no size in the snapshot: a basic type is one element, MPI_INT2 two
        long bare = next++;
        byId.put(bare, HandleInfo.builder(bare, HandleKind.DATATYPE).name("MPI_INT2").predefined(true).build());
        TypeMap pairs = TypeMap.of(byId.get(derived("Contiguous", n(2), type(bare))), "mpj", byId);
        assertEquals("MPI_INT x4 @0", runs(pairs));
        assertEquals(4, pairs.extent());
    }
}
