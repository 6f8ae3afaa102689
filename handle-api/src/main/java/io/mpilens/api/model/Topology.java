package io.mpilens.api.model;

import java.util.Arrays;

/**
 * Virtual topology of a communicator: Cartesian (dims, periods), graph (index, edges), or
 * distributed graph (this rank's sources and destinations, null when they are not known).
 */
public final class Topology {
    public enum Type { CARTESIAN, GRAPH, DIST_GRAPH }

    private final Type type;
    private final int[] dims;
    private final boolean[] periods;
    private final int[] index;
    private final int[] edges;
    private final int[] sources;
    private final int[] destinations;

    private Topology(Type type, int[] dims, boolean[] periods, int[] index, int[] edges, int[] sources,
                     int[] destinations) {
        this.type = type;
        this.dims = dims;
        this.periods = periods;
        this.index = index;
        this.edges = edges;
        this.sources = sources;
        this.destinations = destinations;
    }

    public static Topology cartesian(int[] dims, boolean[] periods) {
        return new Topology(Type.CARTESIAN, dims.clone(), periods.clone(), new int[0], new int[0], null, null);
    }

    public static Topology graph(Type type, int[] index, int[] edges) {
        return new Topology(type, new int[0], new boolean[0], index.clone(), edges.clone(), null, null);
    }

    /** A distributed graph seen from one rank: its in- and out-neighbours, null when not known. */
    public static Topology distGraph(int[] sources, int[] destinations) {
        return new Topology(Type.DIST_GRAPH, new int[0], new boolean[0], new int[0], new int[0],
                sources == null ? null : sources.clone(), destinations == null ? null : destinations.clone());
    }

    public Type type() { return type; }
    public int[] dims() { return dims.clone(); }
    public boolean[] periods() { return periods.clone(); }
    /** Graph topologies: cumulative neighbour counts, as MPI_Graph_create takes them. */
    public int[] index() { return index.clone(); }
    public int[] edges() { return edges.clone(); }
    /** Distributed graph: ranks this rank receives from (MPI_Dist_graph_neighbors sources); null if not known. */
    public int[] sources() { return sources == null ? null : sources.clone(); }
    /** Distributed graph: ranks this rank sends to; null if not known. */
    public int[] destinations() { return destinations == null ? null : destinations.clone(); }
    /** Distributed graph whose neighbours are known. */
    public boolean neighboursKnown() { return sources != null && destinations != null; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Topology)) return false;
        Topology t = (Topology) o;
        return type == t.type && Arrays.equals(dims, t.dims) && Arrays.equals(periods, t.periods)
                && Arrays.equals(index, t.index) && Arrays.equals(edges, t.edges)
                && Arrays.equals(sources, t.sources) && Arrays.equals(destinations, t.destinations);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + Arrays.hashCode(dims) + Arrays.hashCode(index);
    }

    @Override
    public String toString() {
        if (type == Type.CARTESIAN) return "cart dims=" + Arrays.toString(dims) + " periods=" + Arrays.toString(periods);
        if (type == Type.DIST_GRAPH) {
            return neighboursKnown() ? "dist_graph sources=" + Arrays.toString(sources) + " destinations="
                    + Arrays.toString(destinations) : "dist_graph neighbours unknown";
        }
        return "graph index=" + Arrays.toString(index) + " edges=" + Arrays.toString(edges);
    }
}
