package io.mpilens.examples.openmpi;

import static io.mpilens.examples.Tour.here;

import io.mpilens.examples.Tour;
import mpi.CartComm;
import mpi.Comm;
import mpi.GraphComm;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The calls whose results trip a debugger that asks MPI too much (4 ranks, default
 * MPI_ERRORS_ARE_FATAL): null communicators from split/create/createGraph/getParent, distributed
 * graphs (both constructors, and a dup), a nonblocking dup, an empty group, a Cartesian sub.
 * Prints what mpilens must show at "created" (absent=true: no handle for that line).
 */
public final class EdgeCases {
    private EdgeCases() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        if (size != 4) {
            System.err.println("EdgeCases needs 4 ranks");
            MPI.Finalize();
            return;
        }
        Tour tour = new Tour(rank);
        String p = "created";
        int left = (rank + size - 1) % size;
        int right = (rank + 1) % size;

        Intracomm evens = world.split(rank % 2 == 0 ? 0 : MPI.UNDEFINED, rank); int evensLine = here();
        Group worldGroup = world.getGroup();
        Group firstTwo = worldGroup.incl(new int[] {0, 1});
        Intracomm created = world.create(firstTwo); int createdLine = here();
        GraphComm graph = world.createGraph(new int[] {1, 2}, new int[] {1, 0}, false); int graphLine = here();
        int[] in = {left};
        int[] out = {right};
        GraphComm ring = world.createDistGraphAdjacent(in, out, MPI.INFO_NULL, false); int ringLine = here();
        GraphComm ringDup = ring.dup(); int ringDupLine = here();
        int[] me = {rank};
        int[] one = {1};
        GraphComm general = world.createDistGraph(me, one, out, MPI.INFO_NULL, false); int generalLine = here();
        Comm pending = world.iDup(); int pendingLine = here();
        pending.getRequest().waitFor();
        Group empty = worldGroup.incl(new int[0]); int emptyLine = here();
        CartComm cart = world.createCart(new int[] {2, 2}, new boolean[] {true, false}, false);
        CartComm row = cart.sub(new boolean[] {false, true}); int rowLine = here();
        Intercomm parent = Intercomm.getParent(); int parentLine = here();

        System.out.println("rank " + rank + ": evens null " + evens.isNull() + ", created null " + created.isNull()
                + ", graph null " + graph.isNull() + ", parent null " + parent.isNull() + ", empty size " + empty.getSize());
        if (rank % 2 == 0) {
            tour.expect(p, evensLine, "COMMUNICATOR").with("size", 2).with("members", new int[] {0, 2}).print();
        } else {
            tour.expect(p, evensLine, "COMMUNICATOR").with("absent", true).print();
        }
        if (rank < 2) {
            tour.expect(p, createdLine, "COMMUNICATOR").with("size", 2).with("members", new int[] {0, 1}).print();
            tour.expect(p, graphLine, "COMMUNICATOR").with("topology", "GRAPH").with("index", new int[] {1, 2})
                    .with("edges", new int[] {1, 0}).print();
        } else {
            tour.expect(p, createdLine, "COMMUNICATOR").with("absent", true).print();
            tour.expect(p, graphLine, "COMMUNICATOR").with("absent", true).print();
        }
        for (int line : new int[] {ringLine, ringDupLine, generalLine}) {
            tour.expect(p, line, "COMMUNICATOR").with("topology", "DIST_GRAPH").with("size", 4)
                    .with("sources", new int[] {left}).with("destinations", new int[] {right}).print();
        }
        tour.expect(p, pendingLine, "COMMUNICATOR").with("size", 4).with("rank", rank)
                .with("members", new int[] {0, 1, 2, 3}).print();
        tour.expect(p, emptyLine, "GROUP").with("size", 0).with("members", new int[0]).print();
        tour.expect(p, rowLine, "COMMUNICATOR").with("topology", "CARTESIAN").with("dims", new int[] {2})
                .with("periods", new boolean[] {false}).with("size", 2).print();
        tour.expect(p, parentLine, "COMMUNICATOR").with("absent", true).print();
        tour.pause(p);

        for (Comm c : new Comm[] {evens, created, graph}) {
            if (!c.isNull()) c.free();
        }
        for (Comm c : new Comm[] {ring, ringDup, general, pending, row, cart}) c.free();
        for (Group g : new Group[] {worldGroup, firstTwo}) g.free();
        MPI.Finalize();
        tour.pause("end");
    }
}
