package io.mpilens.api.model;

import java.util.Arrays;

/** Virtual topology of a communicator: Cartesian (dims, periods) or graph (index, edges). */
public final class Topology {
    public enum Type { CARTESIAN, GRAPH, DIST_GRAPH }

    private final Type type;
    private final int[] dims;
    private final boolean[] periods;
    private final int[] index;
    private final int[] edges;

    private Topology(Type type, int[] dims, boolean[] periods, int[] index, int[] edges) {
        this.type = type;
        this.dims = dims;
        this.periods = periods;
        this.index = index;
        this.edges = edges;
    }

    public static Topology cartesian(int[] dims, boolean[] periods) {
        return new Topology(Type.CARTESIAN, dims.clone(), periods.clone(), new int[0], new int[0]);
    }

    public static Topology graph(Type type, int[] index, int[] edges) {
        return new Topology(type, new int[0], new boolean[0], index.clone(), edges.clone());
    }

    public Type type() { return type; }
    public int[] dims() { return dims.clone(); }
    public boolean[] periods() { return periods.clone(); }
    /** Graph topologies: cumulative neighbour counts, as MPI_Graph_create takes them. */
    public int[] index() { return index.clone(); }
    public int[] edges() { return edges.clone(); }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Topology)) return false;
        Topology t = (Topology) o;
        return type == t.type && Arrays.equals(dims, t.dims) && Arrays.equals(periods, t.periods)
                && Arrays.equals(index, t.index) && Arrays.equals(edges, t.edges);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + Arrays.hashCode(dims) + Arrays.hashCode(index);
    }

    @Override
    public String toString() {
        return type == Type.CARTESIAN
                ? "cart dims=" + Arrays.toString(dims) + " periods=" + Arrays.toString(periods)
                : type.name().toLowerCase() + " index=" + Arrays.toString(index) + " edges=" + Arrays.toString(edges);
    }
}
