package io.mpilens.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A floor, not the product: what creating and completing one request would cost in a table
 * that does the least a request row needs (the owner check, the call/class and communicator
 * caches, five stores and a release store into a ring of rows with the id inline, completion of
 * the newest row) and nothing else: no index (so no stale-handle detection and no fast
 * completion out of order), no marks from other threads, no growth, no id blocks, no orphan
 * check. Compare with {@link RequestRegistryBench#createAndCompleteByHandle}, which does all
 * of that, to see what those features cost. {@code bench/run jmh RequestFloorBench}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class RequestFloorBench {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Row: id (stamp, stored last), key, peer/tag, communicator id, meta, communicator slot. */
    private static final int S = 6;

    static final class Request {
        long handle;
    }

    static final class Ring {
        long ownerId;
        final long[] rows = new long[64 * S];
        final int mask = 63;
        int cursor;
        int lastRow;
        long nextId = 1;
        final long idLimit = Long.MAX_VALUE;
        String metaCall;
        String metaClass;
        int metaProc;
        long metaValue;
        WeakReference<Object> lastComm;
        int lastCommSlot;
        long lastCommId;
    }

    private Ring ring;
    private final long[] commIds = new long[16];
    private final Object comm = new Object();
    private long nextHandle = 0x7f0000000000L;

    @Setup
    public void setUp() {
        ring = new Ring();
        ring.ownerId = Thread.currentThread().getId();
        ring.metaCall = "iSend";
        ring.metaClass = "mpi.Request";
        ring.metaValue = 77;
        ring.lastComm = new WeakReference<>(comm);
        ring.lastCommSlot = 3;
        ring.lastCommId = 9;
        commIds[3] = 9;
    }

    @Benchmark
    public Object baselineWrapperOnly() {
        Request r = new Request();
        r.handle = nextHandle += 64;
        return r;
    }

    @Benchmark
    public Object createAndCompleteFloor() {
        Request r = new Request();
        r.handle = nextHandle += 64;
        add(r.handle, 0, "mpi.Request", "iSend", 1, 7, comm);
        complete(r.handle);
        return r;
    }

    private void add(long key, int proc, String cls, String call, int peer, int tag, Object communicator) {
        Ring t = ring;
        if (t.ownerId != Thread.currentThread().getId()) throw new IllegalStateException("not the owner");
        if (t.metaCall != call || t.metaClass != cls || t.metaProc != proc) throw new IllegalStateException("meta");
        int c = t.lastCommSlot;
        if (c < 0 || c >= commIds.length || commIds[c] != t.lastCommId || t.lastComm.get() != communicator) {
            throw new IllegalStateException("communicator");
        }
        if (t.nextId == t.idLimit) throw new IllegalStateException("ids");
        long[] rows = t.rows;
        int r = t.cursor;
        int b = r * S;
        if (rows[b] != 0) throw new IllegalStateException("full");
        t.cursor = (r + 1) & t.mask;
        t.lastRow = r;
        rows[b + 1] = key;
        rows[b + 2] = ((long) peer << 32) | (tag & 0xFFFF_FFFFL);
        rows[b + 3] = t.lastCommId;
        rows[b + 4] = t.metaValue;
        rows[b + 5] = c;
        LONGS.setRelease(rows, b, t.nextId++);
    }

    private void complete(long key) {
        Ring t = ring;
        if (t.ownerId != Thread.currentThread().getId()) throw new IllegalStateException("not the owner");
        long[] rows = t.rows;
        int b = t.lastRow * S;
        if (rows[b + 1] != key || rows[b] == 0) throw new IllegalStateException("not the newest");
        LONGS.setRelease(rows, b, 0L);
    }
}
