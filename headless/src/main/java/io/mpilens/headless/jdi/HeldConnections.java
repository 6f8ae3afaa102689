package io.mpilens.headless.jdi;

import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import io.mpilens.api.target.TargetReadException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * JDWP connections a long-lived mpilens process ({@code mpilens mcp}) keeps open between reads of
 * the same JVM, so that a second question costs no attach. Installed once per process; without it
 * (the CLI, Eclipse) {@link JdiTargetReader#attach} opens and disposes a connection per read.
 *
 * <p>A JVM's JDWP agent serves one debugger: while a connection is held here nobody else can attach
 * to that rank. So a connection unused for {@code idle} is disposed, and the JVM listens again
 * (on a new port when started with {@code address=…:0}; its agent rewrites its record). One read
 * at a time per connection; a connection whose JVM went away is dropped and the next read attaches
 * anew (and reports the rank as the CLI does when that fails).
 */
public final class HeldConnections implements AutoCloseable {
    private static volatile HeldConnections installed;

    private final Duration idle;
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    private final ScheduledExecutorService reaper;
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong reused = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    private static final class Held {
        final Semaphore free = new Semaphore(1);
        volatile JdiTargetReader reader;
        volatile long lastUsedNanos = System.nanoTime();
    }

    private HeldConnections(Duration idle) {
        this.idle = idle;
        reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mpilens-held-connections");
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(100, idle.toMillis() / 4);
        reaper.scheduleWithFixedDelay(this::disposeIdle, period, period, TimeUnit.MILLISECONDS);
    }

    /** From now on every {@link JdiTargetReader#attach} of this process goes through the returned connections. */
    public static synchronized HeldConnections install(Duration idle) {
        if (idle.isNegative() || idle.isZero()) throw new IllegalArgumentException("idle time must be positive");
        if (installed != null) throw new IllegalStateException("held connections are already installed");
        installed = new HeldConnections(idle);
        return installed;
    }

    static HeldConnections installed() {
        return installed;
    }

    /** How many connections were opened, how many reads found one open, how many were dropped (JVM gone). */
    public record Counts(long opened, long reused, long dropped, int open) {
    }

    public Counts counts() {
        int open = (int) held.values().stream().filter(h -> h.reader != null).count();
        return new Counts(opened.get(), reused.get(), dropped.get(), open);
    }

    /** A reader of {@code address} for one read; its {@link JdiTargetReader#close()} gives the connection back. */
    JdiTargetReader lease(JdwpAddress address, Duration timeout) {
        Held h = held.computeIfAbsent(address.toString(), a -> new Held());
        try {
            if (!h.free.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new TargetReadException(address + " is being read by another call of this mpilens process for"
                        + " longer than " + JdwpAttach.seconds(timeout) + ": try again, or with a longer timeout");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TargetReadException("interrupted while waiting to read " + address);
        }
        try {
            JdiTargetReader r = h.reader;
            if (r != null && !alive(r.virtualMachine())) {
                r.dispose();
                h.reader = r = null;
                dropped.incrementAndGet();
            }
            if (r == null) {
                r = new JdiTargetReader(JdwpAttach.connect(address, timeout), address.toString(), this);
                h.reader = r;
                opened.incrementAndGet();
            } else reused.incrementAndGet();
            r.leased();
            return r;
        } catch (RuntimeException | Error e) {
            h.free.release();
            throw e;
        }
    }

    /** The read is done: the connection stays for the next one, unless its JVM went away meanwhile. */
    void giveBack(JdiTargetReader r) {
        Held h = held.get(r.describe());
        if (h == null || h.reader != r) {
            r.dispose();
            return;
        }
        h.lastUsedNanos = System.nanoTime();
        if (!alive(r.virtualMachine())) {
            r.dispose();
            h.reader = null;
            dropped.incrementAndGet();
        }
        h.free.release();
    }

    /** A read was abandoned (its deadline passed): the connection is disposed, not kept. */
    void abandon(JdiTargetReader r) {
        Held h = held.get(r.describe());
        r.dispose();
        if (h != null && h.reader == r) {
            h.reader = null;
            dropped.incrementAndGet();
            h.free.release();
        }
    }

    private void disposeIdle() {
        long now = System.nanoTime();
        for (Held h : held.values()) {
            if (h.reader == null || now - h.lastUsedNanos < idle.toNanos() || !h.free.tryAcquire()) continue;
            try {
                if (h.reader != null && now - h.lastUsedNanos >= idle.toNanos()) {
                    h.reader.dispose();
                    h.reader = null;
                }
            } finally {
                h.free.release();
            }
        }
    }

    /** Whether the JVM still answers on this connection: one round trip (its threads) succeeds. */
    private static boolean alive(VirtualMachine vm) {
        try {
            vm.allThreads();
            return true;
        } catch (VMDisconnectedException e) {
            return false;
        } catch (RuntimeException e) { // a JDWP error on the probe: do not trust this connection
            return false;
        }
    }

    /** Disposes every held connection (the JVMs keep running) and uninstalls. */
    @Override
    public void close() {
        synchronized (HeldConnections.class) {
            if (installed == this) installed = null;
        }
        reaper.shutdownNow();
        for (Held h : held.values()) {
            JdiTargetReader r = h.reader;
            h.reader = null;
            if (r != null) r.dispose();
        }
    }
}
