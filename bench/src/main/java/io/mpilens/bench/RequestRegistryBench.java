package io.mpilens.bench;

import io.mpilens.agent.registry.HandleRegistry;
import io.mpilens.agent.registry.RequestRouting;
import io.mpilens.agent.registry.RowSpec;
import io.mpilens.api.model.HandleKind;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the registry adds to one non-blocking request: create (iSend returns a Request) plus
 * complete (wait). Baseline: the application allocating the Request wrapper alone. The
 * difference is the agent's cost per request; the goal is at most 5 ns.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class RequestRegistryBench {
    /** Stands in for the binding's Request wrapper. */
    static final class Request {
        long handle;
    }

    private final HandleRegistry registry = HandleRegistry.INSTANCE;
    /** The registry's request routing, which the interceptor calls (one field load here, as the registry was). */
    private final RequestRouting requests = registry.requests();
    private Object comm;
    private int proc;

    @Setup(Level.Trial)
    public void setUp() {
        comm = new Object();
        proc = registry.process(RequestRegistryBench.class.getClassLoader());
        registry.processInitialized(proc, 0, 1);
        RowSpec s = new RowSpec(HandleKind.COMMUNICATOR);
        s.proc = proc;
        s.name = "bench-comm";
        registry.add(comm, s);
    }

    @Benchmark
    public Object baselineWrapperOnly() {
        Request r = new Request();
        r.handle = 1;
        return r;
    }

    private long nextHandle = 0x7f0000000000L;

    /** Open MPI: requests keyed by their native handle, no reference to the wrapper. */
    @Benchmark
    public Object createAndCompleteByHandle() {
        Request r = new Request();
        r.handle = nextHandle += 64;
        requests.addRequest(r, r.handle, proc, "mpi.Request", "iSend", 1, 7, comm, false);
        requests.requestCompleted(r, r.handle);
        return r;
    }

    /**
     * MPJ Express under -javaagent: no native handle, so a request is keyed by the id the
     * registry gives it (the interceptor keeps it in the wrapper's id field).
     */
    @Benchmark
    public Object createAndCompleteById() {
        Request r = new Request();
        r.handle = requests.addRequest(r, RequestRouting.KEY_IS_ID, proc, "mpi.Request", "Isend", 1, 7, comm, false);
        requests.requestCompleted(r, r.handle);
        return r;
    }

    /** MPJ Express after a late attach (its request classes have no id field): tracked by weak reference. */
    @Benchmark
    public Object createAndCompleteByReference() {
        Request r = new Request();
        r.handle = 1;
        requests.addRequest(r, 0L, proc, "mpi.Request", "iSend", 1, 7, comm, false);
        requests.requestCompleted(r, 0L);
        return r;
    }
}
