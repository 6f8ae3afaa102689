package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Requests in their wrappers and the request ring (the default), on the example
 * {@code RequestsInWrappers} of each binding (Open MPI; MPJ Express multicore, four ranks in one
 * JVM, and niodev): a pending request the application keeps is shown with its call,
 * peer, tag and communicator; one whose wrapper it dropped is shown too, and stays (MPI keeps it
 * until it is waited for or freed, which the application can no longer do); a freed communicator
 * is held by the request pending on it and released when that request completes. A heap dump of
 * the same moment shows the same. The agent's health stays clean.
 */
class RequestsInWrappersTest {
    @ParameterizedTest
    @EnumSource(Binding.class)
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void pendingRequestsAreReadFromTheirWrappersAndHoldTheirFreedCommunicator(Binding b, @TempDir Path control) throws Exception {
        Files.createDirectories(control);
        boolean openMpi = b == Binding.OPENMPI;
        String irecv = openMpi ? "iRecv" : "Irecv";
        JobSpec spec = JobSpec.builder(b, 4, "io.mpilens.examples." + (openMpi ? "openmpi" : "mpj") + ".RequestsInWrappers")
                .classPath(Tours.classPath(b)).agentJar(Tours.AGENT)
                .jdwp(true).controlDir(control)
                .env("MPILENS_JOBS", control.resolve("jobs").toString()).build();
        try (Job job = Job.launch(spec)) {
            List<JdiTargetReader> readers = Tours.connect(Tours.addresses(job, b));
            try {
                Tours.awaitPause(job, "pending");
                long[] dupIds = new long[4];
                for (ProcessSnapshot p : Tours.snapshot(readers, true)) {
                    String r = "rank " + p.rank() + ": ";
                    HandleInfo kept = request(p, 5).orElseThrow(() -> new AssertionError(r + "no request with tag 5"));
                    assertTrue(kept.id() > RegistryDecoder.WRAPPED_REQUEST_ID, r + "found in the request ring: " + kept.id());
                    assertEquals(irecv, kept.creatingCall(), r + "call");
                    assertEquals(p.rank(), kept.peer(), r + "peer");
                    assertFalse(kept.complete(), r + "pending");
                    assertEquals(world(p).id(), kept.communicator(), r + "on MPI_COMM_WORLD");
                    HandleInfo dropped = request(p, 6).orElseThrow(() -> new AssertionError(r + "no request with tag 6"));
                    assertEquals(irecv, dropped.creatingCall(), r + "the dropped request's call");
                    assertFalse(dropped.complete(), r + "the dropped request is pending");
                    HandleInfo onDup = request(p, 7).orElseThrow(() -> new AssertionError(r + "no request with tag 7"));
                    HandleInfo dup = p.handles().stream().filter(h -> h.id() == onDup.communicator()).findFirst()
                            .orElseThrow(() -> new AssertionError(r + "the freed duplicate is not shown"));
                    assertEquals(Lifecycle.FREED, dup.state(), r + "the duplicate is freed");
                    // Open MPI: the receive (cancelled later); MPJ Express: the receive and its send
                    List<Long> onDupIds = p.handles().stream().filter(h -> h.kind() == HandleKind.REQUEST
                            && h.communicator() == dup.id()).map(HandleInfo::id).sorted().toList();
                    assertEquals(openMpi ? 1 : 2, onDupIds.size(), r + "requests on the duplicate: " + onDupIds);
                    assertEquals(onDupIds.size(), dup.refCount(), r + "held by its pending requests");
                    assertEquals(onDupIds, java.util.Arrays.stream(dup.heldBy()).boxed().sorted().toList(),
                            r + "held by the requests");
                    dupIds[p.rank()] = dup.id();
                }
                // the same moment from a heap dump: the dump reader finds the wrappers among its instance records
                // (the rank waits at its pause, nothing changes: no suspension, which jcmd could not reach)
                List<ProcessSnapshot> live = new RegistryDecoder(readers.get(0)).decode();
                Path dump = HeapDumpTourTest.jcmdHeapDump(live.get(0).pid(), control.resolve("rank.hprof"));
                List<ProcessSnapshot> fromDump = io.mpilens.headless.hprof.HeapDumps.read(dump);
                HeapDumpTourTest.assertSameSnapshots(live, fromDump);
                assertTrue(request(fromDump.get(0), 5).isPresent(), "the dump shows the pending request");
                job.release("pending");
                Tours.awaitPause(job, "done");
                for (ProcessSnapshot p : Tours.snapshot(readers, true)) {
                    String r = "rank " + p.rank() + ": ";
                    assertEquals(List.of(6), p.handles().stream().filter(h -> h.kind() == HandleKind.REQUEST && !h.predefined())
                            .map(HandleInfo::tag).toList(), r + "only the dropped request, never waited for, is left: " + p.handles());
                    assertFalse(p.handles().stream().anyMatch(h -> h.id() == dupIds[p.rank()]),
                            r + "the duplicate is released once its request completed");
                }
                job.release("done");
                Tours.awaitPause(job, "collected");
                for (ProcessSnapshot p : Tours.snapshot(readers, true)) {
                    assertTrue(p.released().stream().anyMatch(h -> h.id() == dupIds[p.rank()]),
                            "rank " + p.rank() + ": the duplicate's row is released for good, in the history");
                }
                job.release("collected");
                Tours.awaitPause(job, "end");
                for (ProcessSnapshot p : Tours.snapshot(readers, false)) {
                    assertEquals(0, p.agentHealth().internalErrors(), "rank " + p.rank() + " agent errors, last: "
                            + p.agentHealth().lastError());
                    assertEquals(0, p.agentHealth().untrackedEvents(), "rank " + p.rank() + " untracked events");
                    assertTrue(p.agentHealth().requestsTracked(), "rank " + p.rank() + " requests tracked");
                }
            } finally {
                Tours.disconnect(readers);
            }
            job.release("end");
            assertEquals(0, job.waitFor(Tours.START), "job exit code; output:\n" + job.tail());
        }
    }

    private static Optional<HandleInfo> request(ProcessSnapshot p, int tag) {
        return p.handles().stream().filter(h -> h.kind() == HandleKind.REQUEST && h.tag() == tag).findFirst();
    }

    private static HandleInfo world(ProcessSnapshot p) {
        return p.handles().stream().filter(h -> "MPI_COMM_WORLD".equals(h.name())).findFirst().orElseThrow();
    }
}
