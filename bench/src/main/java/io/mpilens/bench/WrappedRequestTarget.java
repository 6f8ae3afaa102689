package io.mpilens.bench;

import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.agent.registry.RequestFacts;
import io.mpilens.agent.registry.RequestHolder;
import io.mpilens.agent.registry.WrapperRequests;
import io.mpilens.agent.registry.RowSpec;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.registry.RegistryLayout;

/**
 * The JVM {@link RequestReadBench} reads: one rank whose pending requests live in their wrappers
 * and the agent's request ring, as the agent leaves Open MPI's {@code mpi.Request} when it loads
 * after it (the binding's native handle plus the sequence field {@code RegistryLayout.REQUEST_SEQ_FIELD}),
 * created the way the agent's advice creates them, and optionally a heap of small filler objects
 * (reading the ring must not depend on the heap's size). Runs on the application JDK with
 * {@code bench/target/classes} and the agent jar on its class path.
 *
 * <p>Arguments: pending requests in wrappers (-1: none was ever created, no ring: today's
 * snapshot), filler megabytes. Prints {@value #READY}, then sleeps until killed.
 */
public final class WrappedRequestTarget {
    static final String READY = "WRAPPED-REQUEST-TARGET-READY";

    /** Stands in for a communicator's wrapper as woven with requests in wrappers: the registry fills its id field. Also {@link RequestInWrapperBench}'s. */
    static final class Comm implements RequestHolder {
        long handle = 0x5555;
        private transient long mpilens$id;

        @Override public long mpilens$id() { return mpilens$id; }
    }

    /**
     * Stands in for Open MPI's {@code mpi.Request} as woven for requests in wrappers: the binding's
     * fields plus the agent's and its accessors. Also {@link RequestInWrapperBench}'s.
     */
    static final class Request implements RequestFacts {
        long handle;
        Object sendBuf;
        Object recvBuf;
        transient int mpilens$seq;

        @Override public void mpilens$seq(int seq) { mpilens$seq = seq; }
        @Override public int mpilens$seq() { return mpilens$seq; }
    }

    static Request[] requests;
    static Object[] filler;

    private WrappedRequestTarget() {
    }

    public static void main(String[] args) throws InterruptedException {
        int pending = Integer.parseInt(args[0]);
        long fillerMb = Long.parseLong(args[1]);
        HandleRegistry r = HandleRegistry.INSTANCE;
        r.configure("bench", "openmpi", false);
        int p = r.process(WrappedRequestTarget.class.getClassLoader());
        r.processInitialized(p, 0, 2);
        Comm world = new Comm();
        RowSpec s = new RowSpec(HandleKind.COMMUNICATOR);
        s.proc = p;
        s.bindingClass = "mpi.Intracomm";
        s.name = "MPI_COMM_WORLD";
        s.flags = RegistryLayout.F_PREDEFINED;
        s.i0 = 0;
        s.i1 = 2;
        r.addPredefined(world, s);
        WrapperRequests.nullHandle(0x7e00_0000_0000L);
        requests = new Request[Math.max(pending, 0)];
        for (int i = 0; i < requests.length; i++) {
            Request q = new Request();
            q.handle = 0x7f00_0000_0000L + 64L * i;
            // what the creation advice does
            WrapperRequests.created(world, i % 2 == 0 ? "iRecv" : "iSend", i % 2, i % 1000, q);
            requests[i] = q;
        }
        // small objects, as a real heap holds them: the walk's cost grows with their number
        long objects = fillerMb * (1 << 20) / 64;
        filler = new Object[(int) Math.min(objects, Integer.MAX_VALUE - 8)];
        for (int i = 0; i < filler.length; i++) filler[i] = new long[6]; // 16 + 48 bytes
        System.out.println(READY + " pending=" + pending + " fillerObjects=" + filler.length);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
