package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiError;
import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.InFlightCalls;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.headless.ft.Transition;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.JobObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job model of real MPJ Express niodev jobs (4 rank JVMs and a daemon, all started and
 * stopped by the test): a killed rank is FAILED, COMM_WORLD DETECTED, and FAILED on each survivor
 * whose device closed its channels (its MPIException, with communicator, peer and cause, recorded); survivors blocked in {@code Allreduce} on COMM_WORLD are shown inside it, mapped to
 * COMM_WORLD and flagged as never completing; a stopped rank is UNAVAILABLE, never FAILED, and OK
 * again after SIGCONT.
 */
class MpjNiodevFailureTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    Path tmp;

    private static final Duration POLL = Duration.ofMillis(300);

    private static JobModel observeUntil(JobObserver o, Predicate<JobModel> done) throws Exception {
        return o.observeUntil(done, POLL, Duration.ofSeconds(30));
    }

    /** The calls inside {@code Allreduce} in the observer's last round (it reads frames). */
    private static List<InFlightCall> allreduces(JobModel m, JobObserver o) {
        return calls(m, o, ".Allreduce");
    }

    /** Ranks that printed {@code MPILENS-CAUGHT}: their call ended with an MPIException. */
    private static Set<Integer> caught(Job job) {
        Set<Integer> out = new TreeSet<>();
        for (String l : job.linesStartingWith("MPILENS-CAUGHT")) out.add(Integer.parseInt(l.split("owner=")[1].split(" ")[0]));
        return out;
    }

    /** A 4-rank niodev job of {@code mainClass} registered as {@code id}, paused at "ready". */
    private Job launchReady(String mainClass, String id) throws Exception {
        Job job = Job.launch(JobSpec.builder(Binding.MPJ_NIODEV, 4, mainClass).classPath(Tours.classPath(Binding.MPJ_NIODEV))
                .agentJar(Tours.AGENT).jdwp(true).controlDir(Files.createDirectories(tmp.resolve("control")))
                .env("MPILENS_JOBS", tmp.resolve("jobs").toString()).env("MPILENS_JOB", id).build());
        try {
            Tours.awaitPause(job, "ready");
            return job;
        } catch (Exception | AssertionError e) {
            job.close();
            throw e;
        }
    }

    private static long pid(Path jobs, String job, int rank) throws Exception {
        return new JobDirectory(jobs).job(job).records().stream().filter(r -> r.rank() == rank)
                .mapToLong(JobRecord::pid).findFirst().orElseThrow();
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aKilledRankIsFailedAndTheSurvivorsExceptionsMakeWorldDetected() throws Exception {
        String id = "it-niodev-kill";
        Path jobs = tmp.resolve("jobs");
        try (Job job = launchReady("io.mpilens.examples.mpj.SendAfterPeerDeath", id)) {
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), id, TIMEOUT);
            JobModel before = observeUntil(o, m -> m.processes().size() == 4
                    && m.processes().stream().allMatch(r -> r.state() == ProcessState.OK));
            assertEquals(CommState.OK, before.communicator("MPI_COMM_WORLD").orElseThrow().state());

            new ProcessBuilder("kill", "-9", Long.toString(pid(jobs, id, 2))).inheritIO().start().waitFor();
            job.release("ready");
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=caught"), 3, Tours.START);
            JobModel m = observeUntil(o, x -> x.rank(2).orElseThrow().state() == ProcessState.FAILED
                    && x.communicator("MPI_COMM_WORLD").orElseThrow().raisedOn().size() == 3);

            assertEquals(ProcessState.FAILED, m.rank(2).orElseThrow().state(), m.rank(2).toString());
            CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
            assertEquals(CommState.DETECTED, world.state());
            assertEquals(List.of(2), world.failed());
            assertEquals(List.of(0, 1, 3), world.raisedOn(), "each survivor's send raised an MPIException");
            for (int r : new int[] {0, 1, 3}) {
                RankStatus s = m.rank(r).orElseThrow();
                assertEquals(ProcessState.OK, s.state(), s.toString());
                MpiError e = s.snapshot().errors().get(0);
                long worldId = s.snapshot().handles().stream().filter(h -> "MPI_COMM_WORLD".equals(h.name()))
                        .findFirst().orElseThrow().id();
                assertEquals(worldId, e.handleId(), "the communicator: " + e);
                assertEquals(2, e.peer(), "the peer: " + e);
                assertEquals("java.nio.channels.ClosedChannelException", e.causeClass(), "the cause: " + e);
            }
            // the survivors' devices closed every channel: COMM_WORLD is FAILED on each of them, after DETECTED
            assertEquals(List.of(0, 1, 3), m.failedOn(world.key()), m.failedOn().toString());
            Instant detected = o.timeline().stream().filter(t -> t.subject().equals("comm MPI_COMM_WORLD")
                    && "DETECTED".equals(t.to())).map(Transition::at).findFirst().orElseThrow(() -> new AssertionError(o.timeline()));
            for (int r : new int[] {0, 1, 3}) {
                Transition failed = o.timeline().stream().filter(t -> t.subject().equals("comm MPI_COMM_WORLD on rank " + r))
                        .findFirst().orElseThrow(() -> new AssertionError(o.timeline()));
                assertEquals("FAILED", failed.to());
                assertFalse(failed.at().isBefore(detected), o.timeline().toString());
            }
            // the status word: rank 2 FAILED, every survivor's MPIException an error too (rank 0's: ER_PR0)
            assertEquals(StatusWord.ER_PR0 | StatusWord.ER_OTH, m.status().bits(), m.status().line());
            Cli.Result status = Cli.mpilens(Map.of("MPILENS_JOBS", jobs.toString(), "MPILENS_HOSTS", "none", "NO_COLOR", "1"),
                    "status", "--job", id);
            assertEquals(12, status.code(), status.all());
            assertTrue(status.out().contains("status  ER_PR0+ER_OTH (12): ranks 0 1 3 MPI error in ")
                    && status.out().contains("; rank 2 FAILED"), status.all());
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aStoppedRankIsUnavailableNeverFailedAndOkAfterSigcont() throws Exception {
        String id = "it-niodev-stop";
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        try (Job job = Job.launch(Tours.tour(Binding.MPJ_NIODEV, control)
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", id).build())) {
            Tours.awaitPause(job, "created");
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), id, TIMEOUT);
            observeUntil(o, m -> m.processes().size() == 4 && m.processes().stream().allMatch(r -> r.state() == ProcessState.OK));
            long pid = pid(jobs, id, 1);
            new ProcessBuilder("kill", "-STOP", Long.toString(pid)).inheritIO().start().waitFor();
            try {
                JobModel m = observeUntil(o, x -> x.rank(1).orElseThrow().state() == ProcessState.UNAVAILABLE);
                assertEquals(ProcessState.UNAVAILABLE, m.rank(1).orElseThrow().state(), m.rank(1).toString());
                assertTrue(m.rank(1).orElseThrow().evidence().contains("stopped"), m.rank(1).orElseThrow().evidence());
                assertEquals(List.of(1), m.communicator("MPI_COMM_WORLD").orElseThrow().unavailable());
                assertEquals(CommState.OK, m.communicator("MPI_COMM_WORLD").orElseThrow().state());
            } finally {
                new ProcessBuilder("kill", "-CONT", Long.toString(pid)).inheritIO().start().waitFor();
            }
            JobModel back = observeUntil(o, x -> x.rank(1).orElseThrow().state() == ProcessState.OK);
            assertEquals(ProcessState.OK, back.rank(1).orElseThrow().state(), back.rank(1).toString());
            assertFalse(o.timeline().stream().anyMatch(t -> "FAILED".equals(t.to())), o.timeline().toString());
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void survivorsBlockedInAllreduceAreShownInsideItFlaggedNeverCompleting() throws Exception {
        String id = "it-niodev-allreduce";
        Path jobs = tmp.resolve("jobs");
        try (Job job = launchReady("io.mpilens.examples.mpj.AllreduceAfterPeerDeath", id)) {
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), id, TIMEOUT).withFrames(false);
            observeUntil(o, m -> m.processes().size() == 4 && m.processes().stream().allMatch(r -> r.state() == ProcessState.OK));
            new ProcessBuilder("kill", "-9", Long.toString(pid(jobs, id, 2))).inheritIO().start().waitFor();
            job.release("ready");
            job.awaitLines(l -> l.contains("MPILENS-ALLREDUCE "), 3, Tours.START);

            // the device gives up with an MPIException on survivors that talk to rank 2 directly in the
            // reduction tree; the others wait for them forever: each survivor is one or the other
            JobModel m = o.observeUntil(x -> allreduces(x, o).size() + caught(job).size() >= 3
                    && allreduces(x, o).stream().allMatch(InFlightCall::neverCompletes), POLL, Duration.ofSeconds(30));
            List<InFlightCall> inside = allreduces(m, o);
            Set<Integer> caught = caught(job);
            String seen = "inside Allreduce " + inside + "; caught " + job.linesStartingWith("MPILENS-CAUGHT");
            assertEquals(ProcessState.FAILED, m.rank(2).orElseThrow().state());
            Set<Integer> all = new TreeSet<>(caught);
            for (InFlightCall c : inside) all.add(c.rank());
            assertEquals(Set.of(0, 1, 3), all, seen);
            assertFalse(inside.isEmpty(), "some survivor blocks in Allreduce: " + seen);
            for (InFlightCall c : inside) {
                assertFalse(caught.contains(c.rank()), seen);
                assertEquals("MPI_COMM_WORLD", c.receiver(), c.toString());
                assertTrue(c.handleId() != 0, "mapped to the registry: " + c);
                assertEquals(List.of(2), c.failedPeers(), c.toString());
                assertTrue(c.neverCompletes(), c.toString());
            }
            for (int r : caught) {
                MpiError e = m.rank(r).orElseThrow().snapshot().errors().get(0);
                assertEquals("Allreduce", e.call(), "rank " + r + " recorded its MPIException: " + e);
            }
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aRankWaitingInACollectiveOnItsOwnCommunicatorIsMappedToItsHandle() throws Exception {
        String id = "it-niodev-late";
        Path jobs = tmp.resolve("jobs");
        try (Job job = launchReady("io.mpilens.examples.mpj.LateMember", id)) {
            job.release("ready");
            job.awaitLines(l -> l.contains("MPILENS-REDUCED "), 2, Tours.START); // ranks 0 and 2: their half is complete
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), id, TIMEOUT).withFrames(false);
            JobModel m = o.observeUntil(x -> !allreduces(x, o).isEmpty(), POLL, Duration.ofSeconds(30));
            List<InFlightCall> inside = allreduces(m, o);
            assertEquals(1, inside.size(), InFlightCalls.of(m, o.frames()).toString());
            InFlightCall c = inside.get(0);
            assertEquals(1, c.rank(), c.toString());
            long half = m.rank(1).orElseThrow().snapshot().handles().stream()
                    .filter(h -> h.kind() == HandleKind.COMMUNICATOR && "Split".equals(h.creatingCall()))
                    .findFirst().orElseThrow().id();
            assertEquals(half, c.handleId(), "the receiver is rank 1's Split communicator {1, 3}: " + c);
            assertFalse(c.neverCompletes(), "rank 3 is late, not failed: " + c);
            job.release("late");
            job.awaitLines(l -> l.contains("MPILENS-REDUCED "), 4, Tours.START);

            // rank 1 waits on a request (MPJ: no native handle), posted on a clone of its half with
            // the same group: only the wrapper's identity in the agent's index maps it
            job.awaitLines(l -> l.contains("MPILENS-WAIT "), 1, Tours.START);
            JobModel w = o.observeUntil(x -> !calls(x, o, ".Wait").isEmpty(), POLL, Duration.ofSeconds(30));
            InFlightCall wait = calls(w, o, ".Wait").get(0);
            assertEquals(1, wait.rank(), wait.toString());
            HandleInfo recv = w.rank(1).orElseThrow().snapshot().handles().stream()
                    .filter(h -> h.kind() == HandleKind.REQUEST && "Irecv".equals(h.creatingCall()))
                    .findFirst().orElseThrow();
            assertEquals(recv.id(), wait.handleId(), "the receiver is rank 1's Irecv request: " + wait);
            HandleInfo twin = w.rank(1).orElseThrow().snapshot().handle(recv.communicator()).orElseThrow();
            assertEquals("clone", twin.creatingCall(), "posted on the twin of the Split communicator: " + twin);
            assertEquals(3, wait.peer(), "local rank 1 of the twin {1, 3} is rank 3: " + wait);
            assertFalse(wait.neverCompletes(), "rank 3 is paused, not failed: " + wait);
            job.release("send");
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=done"), 4, Tours.START);
        }
    }

    private static List<InFlightCall> calls(JobModel m, JobObserver o, String suffix) {
        return InFlightCalls.of(m, o.frames()).stream().filter(c -> c.call().endsWith(suffix)).collect(Collectors.toList());
    }
}
