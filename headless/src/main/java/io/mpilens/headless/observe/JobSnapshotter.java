package io.mpilens.headless.observe;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.api.registry.UnsupportedLayoutException;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.agentless.BindingObjects;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAttach;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.jdi.TargetChangedException;
import io.mpilens.headless.jdi.ThreadFrames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Attaches to the JDWP addresses of a job's ranks in parallel, one thread each, decodes each
 * registry and disconnects. Every address has its own deadline: {@code timeout} to connect,
 * then {@code timeout} again to finish reading, so one stopped rank never holds up the others.
 */
public final class JobSnapshotter {
    /** A registry replaced its arrays mid-read this many times in a row: give up. */
    private static final long POLL_MILLIS = 50;

    private final Duration timeout;
    private final boolean suspend;
    private boolean agentless;
    private boolean agentlessOnly;

    /**
     * @param suspend suspend each target VM while reading it (and resume it after); without it
     *                the target runs on and torn rows are skipped by the decoder
     */
    public JobSnapshotter(Duration timeout, boolean suspend) {
        if (timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("timeout must be positive");
        this.timeout = timeout;
        this.suspend = suspend;
    }

    /**
     * Agentless mode: a JVM without an mpilens registry is read from its MPI binding's own objects,
     * through the same connection (a JVM listening on port 0 moves to a new port once a debugger
     * detaches, so a second attach would miss it); with {@code only}, every JVM is read so.
     */
    public JobSnapshotter agentless(boolean only) {
        this.agentless = true;
        this.agentlessOnly = only;
        return this;
    }

    /** What {@link #snapshot} read, and the JVMs read in agentless mode. */
    public record WithAgentless(JobSnapshot job, List<AgentlessProcess> agentless) {
    }

    /** What one JVM held: its MPI processes and, when asked for, the MPI call each thread is inside. */
    public record Reading(List<ProcessSnapshot> processes, List<BindingFrame> frames) {
    }

    public JobSnapshot snapshot(List<JdwpAddress> addresses) {
        return snapshotWithAgentless(addresses).job();
    }

    /** As {@link #snapshot}, plus what agentless mode (if turned on) read. */
    public WithAgentless snapshotWithAgentless(List<JdwpAddress> addresses) {
        List<Task> tasks = new ArrayList<>();
        for (JdwpAddress a : addresses) tasks.add(new Task(a, false));
        tasks.forEach(Task::start);
        List<JobSnapshot.Rank> ranks = new ArrayList<>();
        List<JobSnapshot.Failure> failures = new ArrayList<>();
        List<AgentlessProcess> reduced = new ArrayList<>();
        for (Task t : tasks) {
            String address = t.address.toString();
            try {
                for (ProcessSnapshot p : t.await().processes()) ranks.add(new JobSnapshot.Rank(address, p));
                reduced.addAll(t.agentlessRead);
            } catch (TargetReadException | RegistryNotFoundException | UnsupportedLayoutException e) {
                failures.add(new JobSnapshot.Failure(address, e.getMessage()));
            } catch (RuntimeException e) { // a defect or damaged data: say so, without a stack trace
                failures.add(new JobSnapshot.Failure(address, "reading " + address + " failed: " + e
                        + " (please report this to the mpilens developers)"));
            }
        }
        return new WithAgentless(new JobSnapshot(ranks, failures), reduced);
    }

    /** Reads one address with the same deadlines; errors are thrown, not collected. */
    public List<ProcessSnapshot> read(JdwpAddress address) {
        return read(address, false).processes();
    }

    /** As {@link #read(JdwpAddress)}; with {@code frames}, also the binding frames of every thread, same connection. */
    public Reading read(JdwpAddress address, boolean frames) {
        Task t = new Task(address, frames);
        t.start();
        return t.await();
    }

    /** Times a live read starts over when the registry grew while it was read. */
    static final int READ_ATTEMPTS = 3;

    /**
     * The one place a live read is made consistent (the CLI, the Eclipse views and
     * {@code MpiLens.read} all come here): decoded again when the registry grew while being
     * read ({@link TargetChangedException}), at most {@link #READ_ATTEMPTS} times.
     */
    public static List<ProcessSnapshot> decode(JdiTargetReader reader) {
        RegistryDecoder decoder = new RegistryDecoder(reader);
        for (int attempt = 1; ; attempt++) {
            try {
                return decoder.decode();
            } catch (TargetChangedException e) {
                if (attempt == READ_ATTEMPTS) throw e;
            }
        }
    }

    private final class Task {
        final JdwpAddress address;
        final boolean frames;
        final CompletableFuture<Reading> result = new CompletableFuture<>();
        final AtomicReference<JdiTargetReader> reader = new AtomicReference<>();
        /** What agentless mode read, when it did; set before the result completes. */
        volatile List<AgentlessProcess> agentlessRead = List.of();
        /** Connect deadline (enforced by the attach itself, plus slack), then the read deadline. */
        volatile long deadlineNanos;

        Task(JdwpAddress address, boolean frames) {
            this.address = address;
            this.frames = frames;
        }

        void start() {
            deadlineNanos = System.nanoTime() + timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
            Thread t = new Thread(this::run, "mpilens-read-" + address);
            t.setDaemon(true);
            t.start();
        }

        private void run() {
            try (JdiTargetReader r = JdiTargetReader.attach(address, timeout)) {
                reader.set(r);
                deadlineNanos = System.nanoTime() + timeout.toNanos();
                if (result.isDone()) return; // abandoned meanwhile
                result.complete(suspend ? r.whileSuspended(() -> reading(r, true)) : reading(r, false));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }

        private Reading reading(JdiTargetReader r, boolean vmSuspended) {
            List<ProcessSnapshot> processes;
            try {
                if (agentlessOnly) throw new RegistryNotFoundException("agentless mode asked for");
                processes = decode(r);
            } catch (RegistryNotFoundException e) {
                if (!agentless) throw e;
                // instances are listed and read with the VM suspended, so none goes away mid-read
                java.util.function.Supplier<List<AgentlessProcess>> read = () -> BindingObjects.read(r, r);
                agentlessRead = vmSuspended ? read.get() : r.whileSuspended(read);
                processes = List.of();
            }
            return new Reading(processes, frames ? ThreadFrames.read(r.virtualMachine(), vmSuspended,
                    receiverIds(r, !processes.isEmpty()), processes.size() > 1) : List.of());
        }

        /** Wrapper identity to registry id, for the receivers of the frames; nothing without a registry. */
        private java.util.function.Function<com.sun.jdi.ObjectReference, Long> receiverIds(JdiTargetReader r,
                                                                                          boolean registry) {
            return registry ? ThreadFrames.registryIds(r) : o -> null;
        }

        Reading await() {
            while (true) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    JdiTargetReader r = reader.get();
                    TargetReadException late = r == null ? JdwpAttach.attachFailed(address, timeout, null)
                            : new TargetReadException(address + " was attached but did not finish answering within "
                            + JdwpAttach.seconds(timeout) + ": is the rank stopped (SIGSTOP) or overloaded?"
                            + " Try again, or with a longer --timeout");
                    if (result.completeExceptionally(late) && r != null) r.abandon(); // unblocks the reading thread
                }
                try {
                    return result.get(Math.min(Math.max(left, 1), TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS)),
                            TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // deadline not reached yet, or it moved when the attach completed
                } catch (ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof RuntimeException) throw (RuntimeException) c;
                    if (c instanceof Error) throw (Error) c;
                    throw new TargetReadException("reading " + address + " failed: " + c, c);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new TargetReadException("interrupted while reading " + address);
                }
            }
        }
    }
}
