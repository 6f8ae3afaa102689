package io.mpilens.examples.openmpi.corpus;

import static io.mpilens.examples.openmpi.corpus.Corpus.say;

import java.util.Arrays;
import mpi.CartComm;
import mpi.CartParms;
import mpi.Comm;
import mpi.DistGraphNeighbors;
import mpi.GraphComm;
import mpi.GraphParms;
import mpi.Intracomm;
import mpi.MPI;
import mpi.ShiftParms;

/** Cartesian, graph and distributed-graph communicators, with fewer nodes than ranks and empty graphs. */
public final class Topologies {
    private Topologies() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Intracomm world = MPI.COMM_WORLD;
            int[] dims = new int[2];
            CartComm.createDims(size, dims);
            CartComm cart = world.createCart(dims, new boolean[] {true, false}, false);
            CartParms parms = cart.getTopo();
            say("cart", cart.getTopology() == MPI.CART, parms.getDimCount(), Arrays.toString(cart.getCoords(rank)));
            ShiftParms shift = cart.shift(0, 1);
            say("cart shift", shift.getRankSource(), shift.getRankDest());
            CartComm row = cart.sub(new boolean[] {false, true});
            say("cart sub", row.getSize());
            CartComm cartDup = cart.dup();
            say("cart dup", cartDup.getTopo().getDimCount());
            CartComm small = world.createCart(new int[] {3}, new boolean[] {false}, false);
            say("cart of 3 null", small.isNull());

            GraphComm graph = world.createGraph(new int[] {1, 2}, new int[] {1, 0}, false);
            say("graph of 2 null", graph.isNull());
            if (!graph.isNull()) {
                GraphParms g = graph.getDims();
                say("graph", g.getIndexCount(), g.getEdgeCount(), Arrays.toString(graph.getNeighbors(graph.getRank())));
                GraphComm graphDup = graph.dup();
                say("graph dup", graphDup.getTopology() == MPI.GRAPH);
                graphDup.free();
            }
            GraphComm emptyGraph = world.createGraph(new int[0], new int[0], false);
            say("empty graph null", emptyGraph.isNull());

            int left = (rank + size - 1) % size;
            int right = (rank + 1) % size;
            GraphComm ring = world.createDistGraphAdjacent(new int[] {left}, new int[] {right}, MPI.INFO_NULL, false);
            DistGraphNeighbors n = ring.getDistGraphNeighbors();
            say("dist adjacent", ring.getTopology() == MPI.DIST_GRAPH, n.getInDegree(), n.getSource(0), n.getDestination(0));
            GraphComm weighted = world.createDistGraphAdjacent(new int[] {left}, new int[] {5}, new int[] {right},
                    new int[] {6}, MPI.INFO_NULL, false);
            say("dist adjacent weighted", weighted.getDistGraphNeighbors().isWeighted());
            GraphComm general = world.createDistGraph(new int[] {rank}, new int[] {1}, new int[] {right}, MPI.INFO_NULL,
                    false);
            DistGraphNeighbors gn = general.getDistGraphNeighbors();
            say("dist general", gn.getInDegree(), gn.getOutDegree(), gn.getSource(0), gn.getDestination(0));
            GraphComm generalWeighted = world.createDistGraph(new int[] {rank}, new int[] {1}, new int[] {right},
                    new int[] {2}, MPI.INFO_NULL, false);
            say("dist general weighted", generalWeighted.getDistGraphNeighbors().getOutDegree());
            GraphComm nobody = world.createDistGraphAdjacent(new int[0], new int[0], MPI.INFO_NULL, false);
            say("dist without edges", nobody.getDistGraphNeighbors().getInDegree());
            GraphComm ringDup = ring.dup();
            say("dist dup", ringDup.getTopology() == MPI.DIST_GRAPH);
            int[] got = new int[1];
            ring.neighborAllGather(new int[] {rank}, 1, MPI.INT, got, 1, MPI.INT);
            say("neighbor allgather", got[0]);

            for (Comm c : new Comm[] {cart, row, cartDup, small, graph, ring, weighted, general, generalWeighted, nobody, ringDup}) {
                if (!c.isNull()) c.free();
            }
            say("done");
        });
    }
}
