package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.HeapDumpJob;
import io.mpilens.headless.observe.JobObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * FT-MPI's REBUILD on a real Open MPI job ({@code orte_abort_on_non_zero_status 0}, 4 ranks,
 * {@code RebuildAfterFailure}): rank 2 is killed; the survivors {@code createGroup} themselves,
 * {@code spawn} one replacement JVM (with the agent) and {@code merge} with it, then {@code split}
 * so that it takes rank 2. The job id is left to the launcher (no {@code MPILENS_JOB}): the
 * replacement, under a launcher namespace of its own, must register into its parents' job.
 * mpilens shows it as rank 2's next epoch (JOINING while it waits before MPI init, then OK), the
 * communicators it is in with it as their member, COMM_WORLD RECOVERING while the survivors are inside
 * {@code spawn} (read from their threads' frames), then RECOVERED (rebuilt) with the lineage.
 */
class RebuildStoryTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern REBUILT = Pattern.compile("MPILENS-REBUILT owner=(\\d+) rank=(\\d+) size=(\\d+) pid=(\\d+)");

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aSpawnedReplacementIsTheFailedRanksNextEpochAndTheWorldIsRebuilt() throws Exception {
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path jobs = tmp.resolve("jobs");
        JobSpec spec = Tours.survivingJob("RebuildAfterFailure", control, jobs).build(); // no MPILENS_JOB: the launcher's id
        try (Job job = Job.launch(spec)) {
            Tours.awaitPause(job, "ready");
            JobDirectory directory = new JobDirectory(jobs);
            assertEquals(1, directory.jobs().size(), "one job: " + directory.jobs());
            String id = directory.jobs().get(0).id();
            JobObserver o = JobObserver.forJob(directory, id, TIMEOUT).withFrames(false); // the calls: RECOVERING
            JobModel before = o.observe();
            assertEquals(CommState.OK, before.communicator("MPI_COMM_WORLD").orElseThrow().state());
            long victim = directory.job(id).records().get(2).pid();
            // stands in for the dump the agent's dumpOnError writes as a rank dies (under that name):
            // SIGKILL leaves none, and a dump of the failed rank's death is what places a replacement post mortem
            Path dying = HeapDumpTourTest.jcmdHeapDump(victim, tmp.resolve("mpilens-rank2-pid" + victim + ".hprof"));

            new ProcessBuilder("kill", "-9", Long.toString(victim)).inheritIO().start().waitFor();
            JobModel detected = o.observeUntil(m -> m.rank(2).orElseThrow().state() == ProcessState.FAILED,
                    Duration.ofMillis(200), Duration.ofSeconds(20));
            assertEquals(CommState.DETECTED, detected.communicator("MPI_COMM_WORLD").orElseThrow().state());
            job.release("ready");
            // the replacement waits before MPI init: the survivors are inside spawn meanwhile
            job.awaitLines(l -> l.contains("MPILENS-PAUSE owner=2 point=joining"), 1, Tours.START);
            JobModel joining = o.observeUntil(m -> m.replacement(2).map(r -> r.state() == ProcessState.JOINING).orElse(false),
                    Duration.ofMillis(200), Duration.ofSeconds(30));
            assertEquals(1, directory.jobs().size(), "the spawned JVM registered into its parents' job: " + directory.jobs());
            List<JobRecord> spawned = directory.job(id).records().stream().filter(JobRecord::spawned).toList();
            assertEquals(1, spawned.size(), directory.job(id).records().toString());
            assertEquals(id, spawned.get(0).spawnedBy(), "the parents' namespace, from what Open MPI put in its environment");
            assertNotEquals(id, spawned.get(0).namespace(), "its own launcher namespace is another one");
            assertEquals(ProcessState.FAILED, joining.rank(2).orElseThrow().state(), joining.processes().toString());
            RankStatus starting = joining.replacement(2).orElseThrow(() -> new AssertionError(joining.processes().toString()));
            assertEquals(ProcessState.JOINING, starting.state(), starting.toString());
            assertEquals(1, starting.epoch(), starting.toString());
            assertEquals(spawned.get(0).pid(), starting.pid());
            assertNotEquals(victim, starting.pid());
            // the survivors are inside spawn on "survivors", derived from COMM_WORLD: it is being rebuilt
            CommunicatorView rebuilding = joining.communicator("MPI_COMM_WORLD").orElseThrow();
            assertEquals(CommState.RECOVERING, rebuilding.state(), joining.recovering().toString());
            List<InFlightCall> inside = joining.recovering(rebuilding.key());
            assertEquals(List.of(0, 1, 3), inside.stream().map(InFlightCall::rank).distinct().sorted().toList(), inside.toString());
            for (InFlightCall c : inside) {
                assertTrue(c.call().endsWith(".spawn"), c.toString());
                assertEquals("survivors", c.receiver(), c.toString());
            }
            String during = Cli.run(jobs, 0, "cominfo", "--job", id);
            assertTrue(during.contains("RECOVERING") && during.contains("inside  ranks 0 1 3: spawn on survivors"), during);

            job.release("joining");
            job.awaitLines(l -> l.contains("MPILENS-REBUILT "), 4, Tours.START);
            Map<Integer, Matcher> reports = new java.util.TreeMap<>();
            for (String l : job.linesStartingWith("MPILENS-REBUILT")) {
                Matcher x = REBUILT.matcher(l);
                assertTrue(x.find(), l);
                reports.put(Integer.parseInt(x.group(1)), x);
            }
            // what the binding itself answered: every process has its old rank in the rebuilt communicator of 4
            for (int r = 0; r < 4; r++) {
                assertEquals(Integer.toString(r), reports.get(r).group(2), "rank in rebuilt");
                assertEquals("4", reports.get(r).group(3));
            }
            long replacementPid = Long.parseLong(reports.get(2).group(4));
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=rebuilt"), 4, Tours.START);

            JobModel after = o.observeUntil(m -> m.communicator("rebuilt").isPresent()
                    && m.communicator("MPI_COMM_WORLD").orElseThrow().rebuilt(), Duration.ofMillis(200), Duration.ofSeconds(30));
            RankStatus replacement = after.replacement(2).orElseThrow(() -> new AssertionError(after.processes().toString()));
            assertEquals(ProcessState.OK, replacement.state(), replacement.toString());
            assertEquals(1, replacement.epoch());
            assertEquals(replacementPid, replacement.pid(), "the process that says it is rank 2 of rebuilt");
            assertEquals(ProcessState.FAILED, after.rank(2).orElseThrow().state());
            assertEquals(victim, after.rank(2).orElseThrow().pid());

            CommunicatorView world = after.communicator("MPI_COMM_WORLD").orElseThrow();
            CommunicatorView survivors = after.communicator("survivors").orElseThrow();
            CommunicatorView rebuilt = after.communicator("rebuilt").orElseThrow(() -> new AssertionError(after.communicators().toString()));
            CommunicatorView merged = byKey(after, rebuilt.parent());
            CommunicatorView spawn = byKey(after, merged.parent());
            assertEquals(CommState.RECOVERED, world.state());
            assertEquals(List.of(2), world.failed());
            assertEquals(Map.of(), world.epochs(), "COMM_WORLD holds the failed incarnation, not the replacement");
            assertEquals(List.of(merged.key(), rebuilt.key()), world.rebuiltBy(), "the intracommunicators of all four again");
            assertTrue(world.recoveredBy().contains(survivors.key()), "the shrink before the rebuild: " + world);
            // lineage: COMM_WORLD -> survivors (createGroup) -> spawn -> merge -> rebuilt (split)
            assertEquals(world.key(), survivors.parent());
            assertEquals(survivors.key(), spawn.parent());
            assertTrue(spawn.inter(), spawn.toString());
            assertEquals(List.of(List.of(0, 1, 3), List.of(2)), spawn.groups());
            assertEquals(List.of(0, 1, 3, 2), merged.members(), "merge(false) on the survivors' side: parents first");
            assertEquals(List.of(0, 1, 2, 3), rebuilt.members());
            assertEquals(CommState.OK, rebuilt.state());
            assertEquals(Map.of(2, 1), rebuilt.epochs());
            assertEquals(List.of(0, 1, 2, 3), rebuilt.seenBy(), "the replacement's own registry holds it too");
            for (CommunicatorView c : List.of(spawn, merged)) assertEquals(Map.of(2, 1), c.epochs(), c.toString());
            assertTrue(o.timeline().stream().anyMatch(t -> t.subject().equals("rank 2 epoch 1") && "OK".equals(t.to())
                    && "JOINING".equals(t.from())), o.timeline().toString());
            List<String> worldStates = o.timeline().stream().filter(t -> t.subject().equals("comm MPI_COMM_WORLD"))
                    .map(t -> t.to()).toList();
            int d = worldStates.indexOf("DETECTED");
            int r = worldStates.indexOf("RECOVERING");
            int b = worldStates.indexOf("RECOVERED (rebuilt)");
            assertTrue(d >= 0 && d < r && r < b, "DETECTED -> RECOVERING -> RECOVERED (rebuilt): " + worldStates);

            String text = Cli.run(jobs, 0, "cominfo", "--job", id);
            assertTrue(text.contains("RECOVERED (rebuilt)"), text);
            assertTrue(text.contains("replaced 2 <- pid " + replacementPid + ", epoch 1"), text);
            String json = Cli.run(jobs, 0, "cominfo", "--job", id, "--json");
            assertTrue(json.contains("\"rebuiltBy\":[\"" + merged.key() + "\",\"" + rebuilt.key() + "\"]"), json);
            assertTrue(json.contains("\"replacements\":[{\"rank\":2,\"epoch\":1,\"pid\":" + replacementPid + "}]"), json);
            // handles: the replacement's own registry, under the rank it replaces (the dead one has ended: exit code 3)
            String handles = Cli.run(jobs, 3, "handles", "--job", id);
            assertTrue(handles.contains("rank 2/4  pid " + replacementPid), handles);
            assertFalse(handles.contains("rank 0/1"), "not under its own COMM_WORLD: " + handles);
            assertTrue(handles.lines().anyMatch(l -> l.contains(" rebuilt ")), handles);
            String only = Cli.run(jobs, 3, "handles", "--job", id, "--ranks", "2");
            assertTrue(only.contains("rank 2/4  pid " + replacementPid) && !only.contains("rank 0/4"), only);
            String hosts = Cli.run(jobs, 0, "hostinfo", "--job", id);
            assertTrue(hosts.contains("pid " + replacementPid) && hosts.contains("OK/e1"), hosts);
            String listed = Cli.run(jobs, 0, "jobs");
            assertTrue(listed.contains(id + " ") && listed.contains("4/4+1"), listed);
            assertFalse(listed.contains(spawned.get(0).namespace()), "no job of its own: " + listed);

            // the same from heap dumps (jcmd, at the "rebuilt" pause): the replacement's dump is a
            // process the job spawned, not a second rank 0 ...
            List<Path> dumps = new ArrayList<>();
            long rank0 = directory.job(id).records().get(0).pid();
            for (JobRecord rec : directory.job(id).records()) {
                if (rec.pid() == victim) continue;
                dumps.add(HeapDumpTourTest.jcmdHeapDump(rec.pid(),
                        tmp.resolve((rec.spawned() ? "replacement" : "rank" + rec.rank()) + ".hprof")));
            }
            assertEquals(4, dumps.size(), "survivors 0 1 3 and the replacement: " + dumps);
            HeapDumpJob.Reading noDeath = HeapDumpJob.read(dumps, null);
            JobModel post = noDeath.model();
            assertEquals(rank0, post.rank(0).orElseThrow().pid(), "rank 0 is rank 0's dump, not the replacement's own rank 0");
            assertEquals(1, noDeath.problems().size(), noDeath.problems().toString());
            assertTrue(noDeath.problems().get(0).startsWith("replacement.hprof is a process the job spawned (MPI_Comm_spawn):"
                    + " no dump shows a rank that died"), noDeath.problems().toString());
            // ... whose rank is not known without a dump of the failed rank's death: rank 2 is UNAVAILABLE, not replaced
            assertEquals(ProcessState.UNAVAILABLE, post.rank(2).orElseThrow().state());
            assertTrue(post.replacement(2).isEmpty(), post.processes().toString());
            // with the dump written as rank 2 died, the replacement is rank 2's epoch 1 and the world rebuilt, as live
            List<Path> withDeath = new ArrayList<>(dumps);
            withDeath.add(dying);
            HeapDumpJob.Reading placed = HeapDumpJob.read(withDeath, null);
            assertEquals(List.of(), placed.problems());
            JobModel pm = placed.model();
            assertEquals(ProcessState.FAILED, pm.rank(2).orElseThrow().state(), pm.processes().toString());
            assertEquals(victim, pm.rank(2).orElseThrow().pid());
            RankStatus fromDump = pm.replacement(2).orElseThrow(() -> new AssertionError(pm.processes().toString()));
            assertEquals(1, fromDump.epoch());
            assertEquals(replacementPid, fromDump.pid());
            CommunicatorView worldFromDumps = pm.communicator("MPI_COMM_WORLD").orElseThrow();
            assertEquals(CommState.RECOVERED, worldFromDumps.state());
            assertEquals("RECOVERED (rebuilt)", worldFromDumps.stateName());
            CommunicatorView rebuiltFromDumps = pm.communicator("rebuilt").orElseThrow(() -> new AssertionError(pm.communicators().toString()));
            assertEquals(List.of(0, 1, 2, 3), rebuiltFromDumps.members());
            assertEquals(Map.of(2, 1), rebuiltFromDumps.epochs());
            assertEquals(List.of(0, 1, 2, 3), rebuiltFromDumps.seenBy());
        }
    }

    private static CommunicatorView byKey(JobModel m, String key) {
        return m.communicators().stream().filter(c -> c.key().equals(key)).findFirst()
                .orElseThrow(() -> new AssertionError(key + " in " + m.communicators()));
    }
}
