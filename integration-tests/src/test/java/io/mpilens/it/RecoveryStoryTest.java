package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleIds;
import io.mpilens.headless.cli.MpiLensCli;
import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.JobObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recovery story on a real Open MPI job ({@code orte_abort_on_non_zero_status 0}, 4 ranks,
 * {@code RecoverAfterFailure}): rank 2 is killed while every rank has receives pending from every
 * other; mpilens shows rank 2 FAILED, COMM_WORLD DETECTED and the survivors' receives from rank 2
 * (only those) as pending on a failed peer. The survivors detect the failure with status messages
 * and a deadline and build a communicator of themselves with {@code createGroup}: it is OK, derived
 * from COMM_WORLD, and COMM_WORLD is RECOVERED by it.
 */
class RecoveryStoryTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final String JOB = "it-recovery";

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aKilledRankIsDetectedItsPeersRequestsFlaggedAndTheSurvivorsRecover() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        JobSpec spec = Tours.survivingJob("RecoverAfterFailure", control, jobs).env("MPILENS_JOB", JOB).build();
        try (Job job = Job.launch(spec)) {
            Tours.awaitPause(job, "ready");
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), JOB, TIMEOUT);
            JobModel before = o.observe();
            assertEquals(CommState.OK, before.communicator("MPI_COMM_WORLD").orElseThrow().state());
            assertEquals(List.of(), before.pendingOnFailed(), "nobody failed yet");

            long pid = new JobDirectory(jobs).job(JOB).records().get(2).pid();
            new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
            JobModel during = o.observeUntil(m -> m.rank(2).orElseThrow().state() == ProcessState.FAILED,
                    Duration.ofMillis(200), Duration.ofSeconds(20));
            assertEquals(ProcessState.FAILED, during.rank(2).orElseThrow().state(), during.rank(2).toString());
            CommunicatorView world = during.communicator("MPI_COMM_WORLD").orElseThrow();
            assertEquals(CommState.DETECTED, world.state());
            assertEquals(List.of(2), world.failed());
            for (int r : new int[] {0, 1, 3}) assertEquals(ProcessState.OK, during.rank(r).orElseThrow().state());
            // each survivor's receive from rank 2 is flagged; its receives from live ranks are not
            List<PendingOnFailedPeer> pending = during.pendingOnFailed();
            assertEquals(List.of(0, 1, 3), pending.stream().map(PendingOnFailedPeer::rank).collect(Collectors.toList()),
                    pending.toString());
            for (PendingOnFailedPeer p : pending) {
                assertEquals(2, p.peer(), p.toString());
                assertEquals(11, p.tag(), p.toString());
                assertEquals("iRecv", p.call(), p.toString());
                assertEquals(world.key(), p.communicator(), p.toString());
            }
            requestsAreNamedShortInTextAndInFullInJson(jobs, pending);

            job.release("ready");
            job.awaitLines(l -> l.contains("MPILENS-RECOVERED "), 3, Tours.START);
            for (String l : job.linesStartingWith("MPILENS-RECOVERED")) assertTrue(l.contains("live=0,1,3"), l);
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=recovered"), 3, Tours.START);
            JobModel after = o.observeUntil(m -> m.communicator("survivors").isPresent(), Duration.ofMillis(200), Duration.ofSeconds(20));
            CommunicatorView survivors = after.communicator("survivors").orElse(null);
            assertNotNull(survivors, after.communicators().toString());
            CommunicatorView worldAfter = after.communicator("MPI_COMM_WORLD").orElseThrow();
            assertEquals(CommState.OK, survivors.state());
            assertEquals(List.of(0, 1, 3), survivors.members());
            assertEquals(worldAfter.key(), survivors.parent(), "lineage COMM_WORLD -> survivors");
            assertEquals(CommState.RECOVERED, worldAfter.state());
            assertEquals(List.of(survivors.key()), worldAfter.recoveredBy());
            // the coordinator's status receive from rank 2 missed the deadline and stays pending too
            assertEquals(4, after.pendingOnFailed().size(), after.pendingOnFailed().toString());
            assertTrue(o.timeline().stream().anyMatch(t -> t.subject().equals("comm MPI_COMM_WORLD")
                    && "RECOVERED".equals(t.to())), o.timeline().toString());
        }
    }

    /**
     * The survivors' receives from rank 2 live in the agent's request ring: the text names each
     * by its short id ({@code #r5}), as {@code cominfo}, {@code calls} and the {@code handles} table
     * show it; the JSON keeps the full id; each form parses back to the id.
     */
    private static void requestsAreNamedShortInTextAndInFullInJson(Path jobs, List<PendingOnFailedPeer> pending) {
        String cominfo = Cli.run(jobs, MpiLensCli.EXIT_OK, "cominfo", "--job", JOB, "--no-color");
        String calls = Cli.run(jobs, MpiLensCli.EXIT_OK, "calls", "--job", JOB, "--no-color");
        for (PendingOnFailedPeer p : pending) {
            assertTrue(HandleIds.inRing(p.requestId()), "a request of the ring: " + p);
            String shortId = HandleIds.format(p.requestId());
            assertTrue(shortId.matches("r\\d+"), shortId);
            assertEquals(p.requestId(), HandleIds.parse(shortId));
            assertTrue(cominfo.contains("| rank " + p.rank() + ": 1 request pending on FAILED [2]: iRecv #" + shortId + " "),
                    cominfo);
            assertTrue(calls.contains("\nrank " + p.rank() + "  iRecv #" + shortId + " on MPI_COMM_WORLD  peer 2 tag 11\n"),
                    calls);
            assertFalse(cominfo.contains(Long.toString(p.requestId())), cominfo);
        }
        PendingOnFailedPeer first = pending.get(0);
        String ranks = Integer.toString(first.rank());
        String table = Cli.run(jobs, MpiLensCli.EXIT_OK, "handles", "--job", JOB, "--ranks", ranks, "--no-color");
        String row = String.format("%6s req   iRecv", HandleIds.format(first.requestId()));
        assertTrue(table.lines().anyMatch(l -> l.startsWith(row)), row + "\n" + table);
        String json = Cli.run(jobs, MpiLensCli.EXIT_OK, "handles", "--job", JOB, "--ranks", ranks, "--json");
        assertTrue(json.contains("\"id\":\"" + first.requestId() + "\""), json);
        assertFalse(json.contains("\"r" + (first.requestId() - HandleIds.RING_BASE) + "\""), json);
    }
}
