package io.mpilens.examples.openmpi;

import static io.mpilens.examples.Tour.here;

import io.mpilens.examples.Tour;
import java.lang.reflect.Field;
import java.nio.IntBuffer;
import mpi.CartComm;
import mpi.CartParms;
import mpi.Comm;
import mpi.Datatype;
import mpi.GraphComm;
import mpi.GraphParms;
import mpi.Group;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import mpi.Win;

/**
 * Creates every kind of handle the Open MPI Java bindings have, frees some while they are
 * still referenced, and pauses at known points: "created", "orphans", "released", "finalized".
 * At each pause it prints what the binding itself answers (see {@link Tour}). Needs 4 ranks.
 */
public final class HandleTour {
    private HandleTour() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        if (size != 4) {
            if (rank == 0) System.err.println("HandleTour needs exactly 4 ranks, got " + size);
            MPI.Finalize();
            System.exit(2);
        }
        Tour tour = new Tour(rank);
        Group worldGroup = world.getGroup(); int worldGroupLine = here();
        world.setErrhandler(MPI.ERRORS_RETURN);

        Intracomm split = world.split(rank % 2, rank); int splitLine = here();
        split.setName("tour-split-" + rank % 2);
        Intracomm dup = world.dup(); int dupLine = here();
        CartComm cart = world.createCart(new int[] {2, 2}, new boolean[] {true, false}, false); int cartLine = here();
        int[] index = {2, 4, 6, 8};
        int[] edges = {1, 3, 0, 2, 1, 3, 2, 0};
        GraphComm graph = world.createGraph(index, edges, false); int graphLine = here();
        Group evens = worldGroup.incl(new int[] {0, 2}); int evensLine = here();
        Intracomm evensComm = null; int evensCommLine = 0;
        if (rank % 2 == 0) {
            evensComm = world.createGroup(evens, 5); evensCommLine = here();
        }
        Datatype contig = Datatype.createContiguous(4, MPI.INT); int contigLine = here();
        contig.commit();
        Datatype vec = Datatype.createVector(2, 1, 4, contig); int vecLine = here();
        vec.commit();
        vec.setName("tour-vector");
        // type maps with holes: a C-like struct MPI pads, a resized int (the vector above has a stride)
        Datatype[] members = {MPI.INT, MPI.DOUBLE, MPI.SHORT};
        Datatype padded = Datatype.createStruct(new int[] {1, 1, 1}, new int[] {0, 8, 16}, members); int paddedLine = here();
        padded.commit();
        padded.setName("tour-padded");
        Datatype resized = Datatype.createResized(MPI.INT, 0, 12); int resizedLine = here();
        resized.commit();
        resized.setName("tour-resized");

        int splitRank = split.getRank();
        IntBuffer rbuf = MPI.newIntBuffer(1);
        Request recv = split.iRecv(rbuf, 1, MPI.INT, splitRank, 77); int recvLine = here();
        split.send(new int[] {42}, 1, MPI.INT, splitRank, 77);
        IntBuffer pbuf = MPI.newIntBuffer(1);
        Prequest persistent = world.sendInit(pbuf, 1, MPI.INT, (rank + 1) % size, 99); int persistentLine = here();
        Win win = new Win(MPI.newIntBuffer(16), 64, 4, MPI.INFO_NULL, world); int winLine = here();
        Info info = new Info(); int infoLine = here();
        info.set("mpilens", "tour");
        // a file opened with that info; the info changes after: the file keeps the pairs it was opened with
        info.set("access_style", "write_once");
        info.set("scratch", "1");
        String infoAtOpen = pairs(info);
        String path = System.getProperty("java.io.tmpdir") + "/mpilens-tour-" + ProcessHandle.current().pid() + ".dat";
        int mode = MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE;
        mpi.File file = new mpi.File(MPI.COMM_SELF, path, mode, info); int fileLine = here();
        info.set("access_style", "read_once");
        info.delete("scratch");
        Info copy = info.dup(); int copyLine = here();
        copy.set("copied", "yes"); // the copy's own pair: the original does not get it
        Request write = file.iWriteAt(0, MPI.newIntBuffer(4), 4, MPI.INT); int writeLine = here();
        // an attribute cached on COMM_WORLD
        int keyval = Comm.createKeyval();
        world.setAttr(keyval, "tour-attribute");

        // ---- pause 1: everything alive
        String p = "created";
        comm(tour, p, 0, world, worldGroup).with("predefined", true).with("match", "name")
                .with("errhandler", "MPI_ERRORS_RETURN").with("windows", "line:" + winLine)
                .with("attributes", keyval + "=\"" + world.getAttr(keyval) + "\"").print();
        tour.expect(p, 0, "COMMUNICATOR").with("match", "name").with("name", "MPI_COMM_SELF").with("files", "line:" + fileLine).print();
        tour.expect(p, infoLine, "INFO").with("infoPairs", pairs(info)).with("usedBy", "line:" + fileLine).print();
        tour.expect(p, copyLine, "INFO").with("infoPairs", pairs(copy)).print();
        tour.expect(p, fileLine, "FILE").with("fileName", path).with("accessMode", file.getAMode())
                .with("accessModeFlags", "MODE_RDWR|MODE_CREATE|MODE_DELETE_ON_CLOSE").with("createdWithInfo", "line:" + infoLine)
                .with("infoPairs", infoAtOpen).with("communicator", "MPI_COMM_SELF").print();
        tour.expect(p, writeLine, "REQUEST").with("communicator", "line:" + fileLine).with("creatingCall", "iWriteAt")
                .with("requestType", "file").with("complete", false).print();
        comm(tour, p, splitLine, split, worldGroup).with("state", "ACTIVE").with("refCount", 1)
                .with("derivedFrom", "MPI_COMM_WORLD").print();
        comm(tour, p, dupLine, dup, worldGroup).with("state", "ACTIVE").with("refCount", 0)
                .with("errhandler", "MPI_ERRORS_RETURN").print();
        CartParms topo = cart.getTopo();
        int[] dims = new int[topo.getDimCount()];
        boolean[] periods = new boolean[dims.length];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = topo.getDim(i);
            periods[i] = topo.getPeriod(i);
        }
        comm(tour, p, cartLine, cart, worldGroup).with("topology", "CARTESIAN").with("dims", dims)
                .with("periods", periods).print();
        GraphParms gp = graph.getDims();
        int[] gIndex = new int[gp.getIndexCount()];
        for (int i = 0; i < gIndex.length; i++) gIndex[i] = gp.getIndex(i);
        int[] gEdges = new int[gp.getEdgeCount()];
        for (int i = 0; i < gEdges.length; i++) gEdges[i] = gp.getEdge(i);
        comm(tour, p, graphLine, graph, worldGroup).with("topology", "GRAPH").with("index", gIndex)
                .with("edges", gEdges).print();
        if (evensComm != null) {
            comm(tour, p, evensCommLine, evensComm, worldGroup).with("group", "line:" + evensLine).print();
        }
        group(tour, p, worldGroupLine, worldGroup, worldGroup).with("refCount", 0).print();
        group(tour, p, evensLine, evens, worldGroup).with("refCount", evensComm != null ? 1 : 0).with("communicators", evensComm != null ? "line:" + evensCommLine : "").print();
        datatype(tour, p, contigLine, contig).with("state", "ACTIVE").with("refCount", 1).with("typeArguments", "4,MPI_INT")
                .with("typeMap", moved(contig, 4)).print();
        datatype(tour, p, vecLine, vec).with("parents", "line:" + contigLine).with("refCount", 0).with("typeArguments", "2,1,4,line:" + contigLine)
                .with("typeMap", moved(vec, 4)).print();
        datatype(tour, p, paddedLine, padded).with("typeArguments", "[1,1,1],[0,8,16],[MPI_INT,MPI_DOUBLE,MPI_SHORT]")
                .with("typeMap", moved(padded, 1)).print();
        datatype(tour, p, resizedLine, resized).with("typeArguments", "MPI_INT,0,12").with("typeMap", moved(resized, 4)).print();
        tour.expect(p, recvLine, "REQUEST").with("peer", splitRank).with("tag", 77).with("persistent", false)
                .with("complete", false).with("communicator", "line:" + splitLine).with("creatingCall", "iRecv")
                .with("requestType", "point-to-point").print();
        tour.expect(p, persistentLine, "REQUEST").with("peer", (rank + 1) % size).with("tag", 99)
                .with("persistent", true).with("creatingCall", "sendInit").with("requestType", "point-to-point").print();
        tour.expect(p, winLine, "WINDOW").with("windowSize", 64).with("displacementUnit", 4)
                .with("communicator", "MPI_COMM_WORLD").with("cHandle", cHandle(win)).print();
        tour.expect(p, infoLine, "INFO").with("cHandle", cHandle(info)).print();
        // communicators inherit their parent's errhandler: ask the binding which ones carry it
        StringBuilder attached = new StringBuilder("MPI_COMM_WORLD");
        Object[][] comms = {{splitLine, split}, {dupLine, dup}, {cartLine, cart}, {graphLine, graph},
                {evensCommLine, evensComm}};
        for (Object[] c : comms) {
            if (c[1] != null && cHandle(((Comm) c[1]).getErrhandler()) == cHandle(MPI.ERRORS_RETURN)) {
                attached.append(",line:").append(c[0]);
            }
        }
        tour.expect(p, 0, "ERRHANDLER").with("match", "name").with("name", "MPI_ERRORS_RETURN")
                .with("predefined", true).with("attachedTo", attached).print();
        tour.pause(p);
        world.barrier();

        // ---- pause 2: orphans — freed by the application, kept alive by holders
        p = "orphans";
        split.free(); // the receive posted on it is still pending
        contig.free(); // vec was built from it
        Group dropped = world.getGroup(); int droppedLine = here();
        dropped = null; // never freed: a leaked handle once the wrapper is collected
        Tour.collectGarbage();
        tour.expect(p, splitLine, "COMMUNICATOR").with("state", "FREED").with("refCount", 1)
                .with("heldBy", "line:" + recvLine).print();
        tour.expect(p, contigLine, "DATATYPE").with("state", "FREED").with("refCount", 1)
                .with("heldBy", "line:" + vecLine).print();
        tour.expect(p, droppedLine, "GROUP").with("state", "ACTIVE").with("leaked", true).print();
        tour.pause(p);
        world.barrier();

        // ---- pause 3: the last holders go, the orphans are released
        p = "released";
        recv.waitFor();
        vec.free();
        tour.expect(p, recvLine, "REQUEST").with("state", "RELEASED").print();
        tour.expect(p, splitLine, "COMMUNICATOR").with("state", "RELEASED").print();
        tour.expect(p, vecLine, "DATATYPE").with("state", "RELEASED").print();
        tour.expect(p, contigLine, "DATATYPE").with("state", "RELEASED").print();
        tour.pause(p);
        world.barrier();

        persistent.free();
        padded.free();
        resized.free();
        win.free();
        write.waitFor();
        file.close();
        world.deleteAttr(keyval);
        Comm.freeKeyval(keyval);
        info.free();
        copy.free();
        if (evensComm != null) evensComm.free();
        evens.free();
        graph.free();
        cart.free();
        dup.free();
        worldGroup.free();
        MPI.Finalize();
        tour.pause("finalized");
    }

    private static Tour.Expectation comm(Tour tour, String point, int line, Comm c, Group worldGroup)
            throws MPIException {
        Group g = c.getGroup();
        int[] members = worldRanks(g, worldGroup);
        g.free();
        Tour.Expectation e = tour.expect(point, line, "COMMUNICATOR").with("rank", c.getRank())
                .with("size", c.getSize()).with("members", members).with("cHandle", cHandle(c));
        String name = c.getName();
        if (name != null && !name.isEmpty()) e.with("name", name);
        return e;
    }

    private static Tour.Expectation group(Tour tour, String point, int line, Group g, Group worldGroup)
            throws MPIException {
        return tour.expect(point, line, "GROUP").with("rank", g.getRank()).with("size", g.getSize())
                .with("members", worldRanks(g, worldGroup)).with("cHandle", cHandle(g));
    }

    private static Tour.Expectation datatype(Tour tour, String point, int line, Datatype t) throws MPIException {
        Tour.Expectation e = tour.expect(point, line, "DATATYPE").with("typeSize", t.getSize())
                .with("extent", t.getExtent()).with("lowerBound", t.getLb()).with("committed", true)
                .with("cHandle", cHandle(t));
        String name = t.getName();
        if (name != null && !name.isEmpty()) e.with("name", name);
        return e;
    }

    private static int[] worldRanks(Group g, Group worldGroup) throws MPIException {
        int[] ranks = new int[g.getSize()];
        for (int i = 0; i < ranks.length; i++) ranks[i] = i;
        return Group.translateRanks(g, ranks, worldGroup);
    }

    /** An info's pairs as the binding answers them, in its order: {@code k=v;k=v}. */
    static String pairs(Info info) throws MPIException {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < info.size(); i++) {
            String k = info.getKey(i);
            s.append(i == 0 ? "" : ";").append(k).append('=').append(info.get(k));
        }
        return s.toString();
    }

    /**
     * What MPI itself moves for one element of {@code t}: a self-send from a buffer whose byte i
     * holds i, received as bytes, gives the source offsets in send order; as intervals, with the
     * type's bounds in bytes ({@code baseBytes}: the binding reports them in base elements).
     */
    static String moved(Datatype t, int baseBytes) throws MPIException {
        java.nio.ByteBuffer src = MPI.newByteBuffer(256);
        for (int i = 0; i < 256; i++) src.put(i, (byte) i);
        java.nio.ByteBuffer dst = MPI.newByteBuffer(256);
        mpi.Status s = MPI.COMM_SELF.sendRecv(src, 1, t, 0, 4242, dst, 256, MPI.BYTE, 0, 4242);
        int[] at = new int[s.getCount(MPI.BYTE)];
        for (int i = 0; i < at.length; i++) at[i] = dst.get(i) & 0xff;
        return Tour.intervals(at) + ";lb=" + t.getLb() * baseBytes + ";extent=" + t.getExtent() * baseBytes;
    }

    /** The native handle the binding keeps in its wrapper (a protected or private field). */
    static long cHandle(Object wrapper) {
        for (Class<?> c = wrapper.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField("handle");
                f.setAccessible(true);
                return f.getLong(wrapper);
            } catch (ReflectiveOperationException e) {
                // look in the superclass
            }
        }
        throw new IllegalStateException("no handle field in " + wrapper.getClass());
    }
}
