package io.mpilens.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;

/**
 * How low a request's cost can go, to tell what issue 2's "≤ 5 ns, a few field writes" asks of a
 * design from what the features cost (compare {@link RequestFloorBench} and
 * {@link RequestRegistryBench#createAndCompleteByHandle}): {@code wrapperFields} writes the
 * communicator id and peer/tag into the fresh request wrapper only (nothing a debugger could read
 * in bulk: it would have to find every wrapper in the heap), {@code ringRow} writes a row into the
 * calling thread's ring (id stored last, release) and the row's id into the wrapper, and completes
 * it by that id — no index, no handle reuse, no completion by another thread, no growth, no
 * orphans, no unique ids across threads. Not the product: a floor. {@code bench/run jmh RequestMinimumBench -f 3 -wi 5 -i 5}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
@State(Scope.Thread)
public class RequestMinimumBench {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    static final class Request { long handle; long id; long comm; long peerTag; }
    static final class Comm { long handle = 0x5555; long id = 9; }

    static final class Ring {
        Thread owner;
        final long[] rows = new long[256 * 4];
        int pos;
        long nextId = 1L << 20;
    }
    static Ring RING;

    private final Comm comm = new Comm();
    private long nextHandle = 0x7f0000000000L;

    @Setup
    public void setUp() {
        RING = new Ring();
        RING.owner = Thread.currentThread();
    }

    @Benchmark
    public Object baseline() {
        Request r = new Request();
        r.handle = nextHandle += 64;
        return r;
    }

    /** "A few field writes": comm id, peer/tag into the fresh wrapper; nothing a debugger could find in bulk. */
    @Benchmark
    public Object wrapperFields() {
        Request r = new Request();
        r.handle = nextHandle += 64;
        r.comm = comm.id;
        r.peerTag = (1L << 32) | 7;
        return r;
    }

    /** Per-thread ring row (id stored last, release) + the id in the wrapper; completion by the id. */
    @Benchmark
    public Object ringRow() {
        Request r = new Request();
        r.handle = nextHandle += 64;
        add(r, 1, 7);
        complete(r);
        return r;
    }

    private void add(Request r, int peer, int tag) {
        Ring t = RING;
        if (t.owner != Thread.currentThread()) throw new IllegalStateException();
        long[] rows = t.rows;
        long id = t.nextId;
        int b = ((int) id & 255) << 2;
        if (rows[b] != 0) throw new IllegalStateException("pending row in the way");
        t.nextId = id + 1;
        rows[b + 1] = r.handle;
        rows[b + 2] = ((long) peer << 32) | (tag & 0xFFFF_FFFFL);
        rows[b + 3] = comm.id;
        LONGS.setRelease(rows, b, id);
        r.id = id;
    }

    private void complete(Request r) {
        long id = r.id;
        Ring t = RING;
        if (t.owner != Thread.currentThread()) throw new IllegalStateException();
        long[] rows = t.rows;
        int b = ((int) id & 255) << 2;
        if (rows[b] != id) throw new IllegalStateException();
        LONGS.setRelease(rows, b, 0L);
    }
}
