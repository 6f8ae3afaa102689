package io.mpilens.examples.mpj;

import static io.mpilens.examples.Tour.here;

import io.mpilens.examples.Tour;
import mpi.CartParms;
import mpi.Cartcomm;
import mpi.Comm;
import mpi.Datatype;
import mpi.GraphParms;
import mpi.Graphcomm;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Prequest;
import mpi.Request;
import mpi.User_function;

/**
 * The MPJ Express counterpart of the Open MPI {@code HandleTour}: creates every kind of handle
 * MPJ Express has, frees some while they are still referenced, and pauses at the same points
 * ("created", "orphans", "released", "finalized"), printing what MPJ itself answers (see
 * {@link Tour}). MPJ has no object names, native handles or per-communicator errhandlers, so
 * those keys are absent. Needs 4 ranks; under {@code -dev multicore} every rank is a thread
 * of one JVM with its own copy of this class.
 */
public final class HandleTour {
    private HandleTour() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.Rank();
        int size = world.Size();
        if (size != 4) {
            if (rank == 0) System.err.println("HandleTour needs exactly 4 ranks, got " + size);
            MPI.Finalize();
            System.exit(2);
        }
        Tour tour = new Tour(rank);
        // MPJ returns the communicator's own group object here, on every call
        Group worldGroup = world.Group(); int worldGroupLine = here();

        Intracomm split = world.Split(rank % 2, rank); int splitLine = here();
        Intracomm dup = (Intracomm) world.clone(); int dupLine = here();
        Cartcomm cart = world.Create_cart(new int[] {2, 2}, new boolean[] {true, false}, false); int cartLine = here();
        int[] index = {2, 4, 6, 8};
        int[] edges = {1, 3, 0, 2, 1, 3, 2, 0};
        Graphcomm graph = world.Create_graph(index, edges, false); int graphLine = here();
        Group evens = worldGroup.Incl(new int[] {0, 2}); int evensLine = here();
        // MPJ's Create needs no communication and hands non-members a wrapper around no
        // communicator instead of COMM_NULL, so only the members call it
        Intracomm evensComm = null; int evensCommLine = 0;
        if (rank % 2 == 0) {
            evensComm = world.Create(evens); evensCommLine = here();
        }
        Datatype contig = Datatype.Contiguous(4, MPI.INT); int contigLine = here();
        contig.Commit();
        Datatype vec = Datatype.Vector(2, 1, 4, contig); int vecLine = here();
        vec.Commit();
        // type maps with holes, from basic types (MPJ Express counts in elements of the base type)
        Datatype gapped = Datatype.Struct(new int[] {1, 2}, new int[] {0, 3}, new Datatype[] {MPI.INT, MPI.INT}); int gappedLine = here();
        gapped.Commit();
        Datatype hvec = Datatype.Hvector(3, 1, 2, MPI.INT); int hvecLine = here();
        hvec.Commit();
        Op op = new Op(new MaxAbs(), true); int opLine = here();

        int splitRank = split.Rank();
        int[] rbuf = new int[1];
        Request recv = split.Irecv(rbuf, 0, 1, MPI.INT, splitRank, 77); int recvLine = here();
        split.Send(new int[] {42}, 0, 1, MPI.INT, splitRank, 77);
        int[] pbuf = new int[1];
        Prequest persistent = world.Send_init(pbuf, 0, 1, MPI.INT, (rank + 1) % size, 99); int persistentLine = here();

        // ---- pause 1: everything alive
        String p = "created";
        comm(tour, p, 0, world, worldGroup).with("predefined", true).with("match", "name")
                .with("name", "MPI_COMM_WORLD").print();
        comm(tour, p, splitLine, split, worldGroup).with("state", "ACTIVE").with("refCount", 1)
                .with("derivedFrom", "MPI_COMM_WORLD").print();
        comm(tour, p, dupLine, dup, worldGroup).with("state", "ACTIVE").with("refCount", 0).print();
        CartParms topo = cart.Get();
        comm(tour, p, cartLine, cart, worldGroup).with("topology", "CARTESIAN").with("dims", topo.dims)
                .with("periods", topo.periods).print();
        GraphParms gp = graph.Get();
        comm(tour, p, graphLine, graph, worldGroup).with("topology", "GRAPH").with("index", gp.index)
                .with("edges", gp.edges).print();
        if (evensComm != null) {
            comm(tour, p, evensCommLine, evensComm, worldGroup).with("group", "line:" + evensLine).print();
        }
        group(tour, p, worldGroupLine, worldGroup, worldGroup).with("refCount", 0).print();
        group(tour, p, evensLine, evens, worldGroup).with("refCount", evensComm != null ? 1 : 0).with("communicators", evensComm != null ? "line:" + evensCommLine : "").print();
        datatype(tour, p, contigLine, contig).with("state", "ACTIVE").with("refCount", 1).with("typeArguments", "4,MPI_INT")
                .with("typeMap", moved(contig)).print();
        datatype(tour, p, gappedLine, gapped).with("typeArguments", "[1,2],[0,3],[MPI_INT,MPI_INT]").with("typeMap", moved(gapped)).print();
        datatype(tour, p, hvecLine, hvec).with("typeArguments", "3,1,2,MPI_INT").with("typeMap", moved(hvec)).print();
        datatype(tour, p, vecLine, vec).with("parents", "line:" + contigLine).with("refCount", 0).with("typeArguments", "2,1,4,line:" + contigLine).print();
        tour.expect(p, opLine, "OP").with("state", "ACTIVE").print();
        tour.expect(p, recvLine, "REQUEST").with("peer", splitRank).with("tag", 77).with("persistent", false)
                .with("complete", false).with("communicator", "line:" + splitLine).with("creatingCall", "Irecv")
                .with("requestType", "point-to-point").print();
        tour.expect(p, persistentLine, "REQUEST").with("peer", (rank + 1) % size).with("tag", 99)
                .with("persistent", true).with("creatingCall", "Send_init").with("requestType", "point-to-point").print();
        tour.pause(p);
        world.Barrier();

        // ---- pause 2: orphans — freed by the application, kept alive by holders
        p = "orphans";
        split.Free(); // the receive posted on it is still pending
        contig.free(); // vec was built from it
        // Group() would hand back the communicator's own group: Incl makes a fresh wrapper
        Group dropped = worldGroup.Incl(new int[] {rank}); int droppedLine = here();
        dropped = null; // never freed: a leaked handle once the wrapper is collected
        Tour.collectGarbage();
        tour.expect(p, splitLine, "COMMUNICATOR").with("state", "FREED").with("refCount", 1)
                .with("heldBy", "line:" + recvLine).print();
        tour.expect(p, contigLine, "DATATYPE").with("state", "FREED").with("refCount", 1)
                .with("heldBy", "line:" + vecLine).print();
        tour.expect(p, droppedLine, "GROUP").with("state", "ACTIVE").with("leaked", true).print();
        tour.pause(p);
        world.Barrier();

        // ---- pause 3: the last holders go, the orphans are released
        p = "released";
        recv.Wait();
        vec.free();
        tour.expect(p, recvLine, "REQUEST").with("state", "RELEASED").print();
        tour.expect(p, splitLine, "COMMUNICATOR").with("state", "RELEASED").print();
        tour.expect(p, vecLine, "DATATYPE").with("state", "RELEASED").print();
        tour.expect(p, contigLine, "DATATYPE").with("state", "RELEASED").print();
        tour.pause(p);
        world.Barrier();
        if (rbuf[0] != 42) throw new IllegalStateException("self-receive got " + rbuf[0]);

        // a Prequest has no free in MPJ: the never-started persistent send is simply dropped
        op.free();
        if (evensComm != null) evensComm.Free();
        evens.free();
        graph.Free();
        cart.Free();
        dup.Free();
        gapped.free();
        hvec.free();
        worldGroup.free();
        MPI.Finalize();
        tour.pause("finalized");
    }

    /** Element-wise maximum of absolute values of ints: a user-defined, commutative op. */
    static final class MaxAbs extends User_function {
        @Override
        public void Call(Object in, int inOffset, Object inOut, int inOutOffset, int count, Datatype type) {
            int[] a = (int[]) in;
            int[] b = (int[]) inOut;
            for (int i = 0; i < count; i++) {
                b[inOutOffset + i] = Math.max(Math.abs(a[inOffset + i]), Math.abs(b[inOutOffset + i]));
            }
        }
    }

    private static Tour.Expectation comm(Tour tour, String point, int line, Comm c, Group worldGroup)
            throws MPIException {
        // the public field, not Group(): that call would register the comm's group as a new handle here
        return tour.expect(point, line, "COMMUNICATOR").with("rank", c.Rank()).with("size", c.Size())
                .with("members", worldRanks(c.group, worldGroup));
    }

    private static Tour.Expectation group(Tour tour, String point, int line, Group g, Group worldGroup)
            throws MPIException {
        return tour.expect(point, line, "GROUP").with("rank", g.Rank()).with("size", g.Size())
                .with("members", worldRanks(g, worldGroup));
    }

    private static Tour.Expectation datatype(Tour tour, String point, int line, Datatype t) throws MPIException {
        // MPJ counts size, extent and lower bound in base elements, not bytes
        return tour.expect(point, line, "DATATYPE").with("typeSize", t.Size()).with("extent", t.Extent())
                .with("lowerBound", t.Lb()).with("committed", true);
    }

    /**
     * What MPI itself moves for one element of {@code t} (built from MPI.INT): a self-send from
     * a buffer whose element i holds i gives the source offsets in send order; as intervals, with
     * the type's bounds, all in elements.
     */
    static String moved(Datatype t) throws MPIException {
        int[] src = new int[64];
        for (int i = 0; i < src.length; i++) src[i] = i;
        int[] dst = new int[64];
        mpi.Status s = MPI.COMM_SELF.Sendrecv(src, 0, 1, t, 0, 4242, dst, 0, dst.length, MPI.INT, 0, 4242);
        return Tour.intervals(java.util.Arrays.copyOf(dst, s.Get_count(MPI.INT))) + ";lb=" + t.Lb() + ";extent=" + t.Extent();
    }

    private static int[] worldRanks(Group g, Group worldGroup) throws MPIException {
        int[] ranks = new int[g.Size()];
        for (int i = 0; i < ranks.length; i++) ranks[i] = i;
        return Group.Translate_ranks(g, ranks, worldGroup);
    }
}
