package io.mpilens.agent.profile;

import io.mpilens.api.binding.BindingCalls;
import io.mpilens.api.binding.BindingClasses;
import java.util.Set;

/**
 * MPJ Express 0.44 (mpiJava 1.2 API), multicore and niodev devices. Its {@code Free()},
 * {@code free()} and {@code Commit()} are empty bodies: only interception sees them. It has no
 * object names, no per-communicator errhandlers and no native handles.
 */
final class MpjExpressProfile {
    static final String MARKER = "mpjdev/MPJDev.class";
    /** The multicore device defines mpi.* in per-rank loaders; its JVM shows only the launcher. */
    static final String LAUNCHER = "runtime/starter/MulticoreStarter.class";

    private MpjExpressProfile() {
    }

    static BindingProfile create() {
        BindingProfile p = new BindingProfile();
        p.id = "mpj";
        p.displayName = "MPJ Express";
        p.markerResource = MARKER;
        p.launcherResources = new String[] {LAUNCHER};
        p.bindingPackages = new String[] {"mpi.", "mpjdev.", "mpjbuf.", "xdev.", "runtime.", "smpdev.", "niodev."};
        p.mpiClass = "mpi.MPI";
        p.initMethods = Set.of("Init", "initThread");
        p.finalizeMethods = Set.of("Finalize");
        p.handleClasses.putAll(BindingClasses.MPJ_EXPRESS.handleClasses());
        p.constructedClasses = Set.of("mpi.Op");
        p.internalClasses = BindingClasses.MPJ_EXPRESS.internalClasses();
        p.freeMethods = Set.of("Free", "free");
        p.commitMethod = "Commit";
        p.persistentRequestClass = "mpi.Prequest";
        p.startMethods = Set.of("Start", "Startall");
        p.waitMethods = BindingCalls.MPJ_EXPRESS.waitOne();
        p.testMethods = Set.of("Test");
        p.waitAllMethods = BindingCalls.MPJ_EXPRESS.waitAll();
        p.testAllMethods = Set.of("Testall");
        p.someMethods = BindingProfile.union(BindingCalls.MPJ_EXPRESS.waitAny(), Set.of("Testany", "Testsome"));
        p.requestIsNullMethod = "Is_null";
        // Request.Wait() sets isNull, and every other completion calls it
        p.wrapperCompletion = true;
        // (buf, offset, count, type, peer, tag)
        for (String m : new String[] {"Isend", "Ibsend", "Issend", "Irsend", "Irecv", "Send_init", "Bsend_init",
                "Ssend_init", "Rsend_init", "Recv_init"}) {
            p.requestCalls.put(m, new BindingProfile.RequestCall(4, 5));
        }
        p.calls = BindingCalls.MPJ_EXPRESS;
        // the woven matcher takes the ones that return nothing: Split, Create, … make the application's handles
        p.javaCollectives = p.calls.blockingCollectives();
        p.rankMethod = "Rank";
        p.sizeMethod = "Size";
        p.isInterMethod = "Test_inter";
        p.remoteSizeMethod = "Remote_size";
        p.groupMethod = "Group";
        p.remoteGroupMethod = "Remote_group";
        p.translateRanksMethod = "Translate_ranks";
        p.worldCommField = "COMM_WORLD";
        p.datatypeSizeMethod = "Size";
        p.datatypeExtentMethod = "Extent";
        p.datatypeLbMethod = "Lb";
        p.cartClass = "mpi.Cartcomm";
        p.cartTopoMethod = "Get";
        p.graphClass = "mpi.Graphcomm";
        p.graphTopoMethod = "Get";
        // no native handles, no topology test (Cartcomm/Graphcomm keep their parameters in Java)
        p.cartCreateCalls = Set.of("Create_cart");
        p.graphCreateCalls = Set.of("Create_graph");
        p.topologyReader = new BindingProfile.TopologyReader() {
            @Override
            public int[][] cartesian(Object parms) throws ReflectiveOperationException {
                int[] dims = (int[]) parms.getClass().getField("dims").get(parms);
                boolean[] per = (boolean[]) parms.getClass().getField("periods").get(parms);
                int[] periods = new int[per.length];
                for (int i = 0; i < per.length; i++) periods[i] = per[i] ? 1 : 0;
                return new int[][] {dims.clone(), periods};
            }

            @Override
            public int[][] graph(Object parms) throws ReflectiveOperationException {
                int[] index = (int[]) parms.getClass().getField("index").get(parms);
                int[] edges = (int[]) parms.getClass().getField("edges").get(parms);
                return new int[][] {index.clone(), edges.clone()};
            }
        };
        return p;
    }
}
