package io.mpilens.examples.mpj.corpus;

import static io.mpilens.examples.mpj.corpus.Corpus.say;

import java.util.Arrays;
import mpi.Cartcomm;
import mpi.Graphcomm;
import mpi.Intracomm;
import mpi.MPI;

/** Cartesian and graph communicators of MPJ Express. */
public final class Topologies {
    private Topologies() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Intracomm world = MPI.COMM_WORLD;
            int[] dims = new int[2];
            Cartcomm.Dims_create(size, dims);
            Cartcomm cart = world.Create_cart(dims, new boolean[] {true, false}, false);
            say("cart", cart.Topo_test() == MPI.CART, Arrays.toString(cart.Get().dims), Arrays.toString(cart.Coords(rank)));
            Cartcomm row = cart.Sub(new boolean[] {false, true});
            say("cart sub", row.Size());
            Cartcomm cartDup = (Cartcomm) cart.clone();
            say("cart clone", cartDup.Get().dims.length);
            Cartcomm small = world.Create_cart(new int[] {3}, new boolean[] {false}, false);
            say("cart of 3", small == null ? "null" : small.Size());
            Graphcomm pair = world.Create_graph(new int[] {1, 2}, new int[] {1, 0}, false);
            say("graph of 2", pair == null ? "null" : pair.Size());
            int[] index = new int[size];
            int[] edges = new int[size];
            for (int i = 0; i < size; i++) {
                index[i] = i + 1;
                edges[i] = (i + 1) % size;
            }
            Graphcomm graph = world.Create_graph(index, edges, false);
            say("graph", graph.Topo_test() == MPI.GRAPH, Arrays.toString(graph.Neighbours(rank)));
            Graphcomm graphDup = (Graphcomm) graph.clone();
            say("graph clone", graphDup.Get().edges.length);
            for (Intracomm c : new Intracomm[] {cart, row, cartDup, small, pair, graph, graphDup}) {
                if (c != null) c.Free();
            }
            Corpus.notInBinding("distributed graphs (MPJ Express 0.44 has no MPI_Dist_graph_create)");
            say("done");
        });
    }
}
