package io.mpilens.agent.profile;

import io.mpilens.api.binding.BindingCalls;
import io.mpilens.api.binding.BindingClasses;
import io.mpilens.api.job.RankVariables;
import java.util.Set;

/** Open MPI's Java bindings (4.1; 5.0 has the same API). */
final class OpenMpiProfile {
    /** A class only Open MPI's binding has (mpi.Freeable exists in MPJ Express too). */
    static final String MARKER = "mpi/Constant.class";

    private OpenMpiProfile() {
    }

    static BindingProfile create() {
        BindingProfile p = new BindingProfile();
        p.id = "openmpi";
        p.displayName = "Open MPI Java bindings";
        p.markerResource = MARKER;
        p.bindingPackages = new String[] {"mpi."};
        p.mpiClass = "mpi.MPI";
        p.initMethods = Set.of("Init", "InitThread");
        p.finalizeMethods = Set.of("Finalize");
        p.handleClasses.putAll(BindingClasses.OPEN_MPI.handleClasses());
        p.constructedClasses = Set.of("mpi.Win", "mpi.File", "mpi.Info", "mpi.Op", "mpi.Message");
        p.freeMethods = Set.of("free", "close");
        p.setErrhandlerMethod = "setErrhandler";
        p.setNameMethod = "setName";
        p.commitMethod = "commit";
        p.persistentRequestClass = "mpi.Prequest";
        p.startMethods = Set.of("start", "startAll");
        p.waitMethods = BindingCalls.OPEN_MPI.waitOne();
        p.testMethods = Set.of("test", "testStatus");
        p.waitAllMethods = BindingCalls.OPEN_MPI.waitAll();
        p.testAllMethods = Set.of("testAll", "testAllStatus");
        p.someMethods = BindingProfile.union(BindingCalls.OPEN_MPI.waitAny(), Set.of("testAny", "testAnyStatus", "testSome", "testSomeStatus"));
        p.requestIsNullMethod = "isNull";
        p.infoSetMethod = "set";
        p.infoDeleteMethod = "delete";
        p.attrSetMethod = "setAttr";
        p.attrDeleteMethod = "deleteAttr";
        p.fileNameArg = 1; // File(comm, filename, amode [, info])
        p.fileModeArg = 2;
        p.fileModeFields = new String[] {"MODE_RDONLY", "MODE_RDWR", "MODE_WRONLY", "MODE_CREATE", "MODE_EXCL",
            "MODE_DELETE_ON_CLOSE", "MODE_UNIQUE_OPEN", "MODE_SEQUENTIAL", "MODE_APPEND"};
        p.requestKeyField = "handle";
        p.handleWritebackMethod = "setHandles";
        p.wrapperCompletion = true;
        // (buf, count, type, peer, tag [, ...])
        for (String m : new String[] {"iSend", "ibSend", "isSend", "irSend", "iRecv", "sendInit", "bSendInit",
                "sSendInit", "rSendInit", "recvInit"}) {
            p.requestCalls.put(m, new BindingProfile.RequestCall(3, 4));
        }
        p.calls = BindingCalls.OPEN_MPI;
        // Win(base, size, dispUnit, info, comm); Win(size, dispUnit, info, comm, base, flavor); Win(info, comm)
        p.windowCtorsByArity.put(5, new BindingProfile.WindowCtor(1, 2));
        p.windowCtorsByArity.put(6, new BindingProfile.WindowCtor(0, 1));
        p.rankMethod = "getRank";
        p.sizeMethod = "getSize";
        p.nameMethod = "getName";
        p.isInterMethod = "isInter";
        p.remoteSizeMethod = "getRemoteSize";
        p.groupMethod = "getGroup";
        p.remoteGroupMethod = "getRemoteGroup";
        p.translateRanksMethod = "translateRanks";
        p.worldCommField = "COMM_WORLD";
        p.datatypeSizeMethod = "getSize";
        p.datatypeExtentMethod = "getExtent";
        p.datatypeLbMethod = "getLb";
        p.nativeHandleField = "handle";
        p.cartClass = "mpi.CartComm";
        p.cartTopoMethod = "getTopo";
        p.graphClass = "mpi.GraphComm";
        p.graphTopoMethod = "getDims";
        p.nullHandleStatics = Set.of("nullHandle", "NULL");
        p.zeroRequestIsNull = true;
        p.topologyKindMethod = "getTopology";
        p.distGraphNeighborsMethod = "getDistGraphNeighbors";
        p.cartCreateCalls = Set.of("createCart");
        p.graphCreateCalls = Set.of("createGraph");
        p.distGraphAdjacentCalls = Set.of("createDistGraphAdjacent");
        p.distGraphCalls = Set.of("createDistGraph");
        p.nonblockingDupCalls = Set.of("iDup");
        p.worldRankSizeEnvironment = new String[] {RankVariables.OMPI_RANK, RankVariables.OMPI_SIZE};
        p.topologyReader = new BindingProfile.TopologyReader() {
            @Override
            public int[][] cartesian(Object parms) throws ReflectiveOperationException {
                int n = (Integer) parms.getClass().getMethod("getDimCount").invoke(parms);
                int[] dims = new int[n];
                int[] periods = new int[n];
                for (int i = 0; i < n; i++) {
                    dims[i] = (Integer) parms.getClass().getMethod("getDim", int.class).invoke(parms, i);
                    periods[i] = (Boolean) parms.getClass().getMethod("getPeriod", int.class).invoke(parms, i) ? 1 : 0;
                }
                return new int[][] {dims, periods};
            }

            @Override
            public int[][] graph(Object parms) throws ReflectiveOperationException {
                int n = (Integer) parms.getClass().getMethod("getIndexCount").invoke(parms);
                int[] index = new int[n];
                for (int i = 0; i < n; i++) index[i] = (Integer) parms.getClass().getMethod("getIndex", int.class).invoke(parms, i);
                int m = (Integer) parms.getClass().getMethod("getEdgeCount").invoke(parms);
                int[] edges = new int[m];
                for (int i = 0; i < m; i++) edges[i] = (Integer) parms.getClass().getMethod("getEdge", int.class).invoke(parms, i);
                return new int[][] {index, edges};
            }

            @Override
            public int[][] distGraph(Object n) throws ReflectiveOperationException {
                Class<?> c = n.getClass();
                int in = (Integer) c.getMethod("getInDegree").invoke(n);
                int out = (Integer) c.getMethod("getOutDegree").invoke(n);
                int[] sources = new int[in];
                int[] destinations = new int[out];
                for (int i = 0; i < in; i++) sources[i] = (Integer) c.getMethod("getSource", int.class).invoke(n, i);
                for (int i = 0; i < out; i++) destinations[i] = (Integer) c.getMethod("getDestination", int.class).invoke(n, i);
                return new int[][] {sources, destinations};
            }
        };
        return p;
    }
}
