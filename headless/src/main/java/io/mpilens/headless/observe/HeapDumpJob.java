package io.mpilens.headless.observe;

import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.api.registry.UnsupportedLayoutException;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.headless.ft.FaultModel;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.Liveness;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.Replacements;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.headless.hprof.HprofTargetReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The fault-tolerance picture of a job after the fact, from heap dumps (one per rank JVM): the
 * same {@link FaultModel} that {@code cominfo}/{@code hostinfo} build live, with each rank's
 * state taken from what its registry recorded (finalize, MPI exceptions) and from how its dump
 * came to be. Honest about what a dump cannot tell: a rank of the job without a dump is
 * {@code UNAVAILABLE} (nothing known), never {@code FAILED}; only a dump written as the rank
 * died (the agent's {@code dumpOnError}, the JVM's {@code -XX:+HeapDumpOnOutOfMemoryError})
 * is evidence of its death. A dump of a process the job spawned (REBUILD: it holds its parents'
 * {@code getParent} intercommunicator; its ranks are its own COMM_WORLD's) is placed as the next
 * epoch of a failed rank by {@link Replacements}, as live — which needs a failed rank, so only where
 * a rank's dump was written as it died; otherwise it is named among the problems, not taken for a
 * rank of the job.
 */
public final class HeapDumpJob {
    /** Names the JVM and the agent give dumps written as a process dies. */
    private static final Pattern DYING = Pattern.compile("(java_pid\\d+|mpilens-(rank\\d+-)?pid\\d+(-\\d+)?)\\.hprof(\\.gz)?");

    private HeapDumpJob() {
    }

    /** The model, and one line per dump that could not be read. */
    public record Reading(JobModel model, List<String> problems) {
    }

    public static Reading read(List<Path> dumps, HprofTargetReader.Progress progress) {
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        List<Replacements.Spawned> spawned = new ArrayList<>();
        Map<Long, String> spawnedFiles = new TreeMap<>();
        Instant at = Instant.EPOCH;
        int worldSize = -1;
        for (Path f : dumps) {
            String name = String.valueOf(f.getFileName());
            List<ProcessSnapshot> processes;
            try {
                processes = HeapDumps.read(f, progress);
                Instant written = Files.getLastModifiedTime(f).toInstant();
                if (written.isAfter(at)) at = written;
            } catch (RegistryNotFoundException e) {
                problems.add(name + " holds no mpilens registry (its JVM ran without -javaagent:mpilens-agent.jar):"
                        + " without it there is no fault picture; 'mpilens dump " + name + "' shows what the binding's"
                        + " own objects hold");
                continue;
            } catch (TargetReadException | UnsupportedLayoutException | IOException e) {
                problems.add(e.getMessage());
                continue;
            }
            boolean dying = DYING.matcher(name).matches();
            for (ProcessSnapshot p : processes) {
                if (p.rank() < 0) continue; // MPI not initialized: not a rank of the job yet
                if (Replacements.spawnedProcess(p)) { // numbered by its own COMM_WORLD: placed below
                    // no launcher namespace in a dump: each dump is its own (one replacement per spawn)
                    spawned.add(new Replacements.Spawned(status(p, name, dying), "dump " + name));
                    spawnedFiles.put(p.pid(), name);
                    continue;
                }
                if (views.containsKey(p.rank())) {
                    problems.add(name + " holds rank " + p.rank() + " again: give one dump per rank JVM");
                    continue;
                }
                views.put(p.rank(), p);
                worldSize = Math.max(worldSize, p.worldSize());
                ranks.add(status(p, name, dying));
            }
        }
        // ranks of the world that no dump holds: nothing is known about them
        TreeSet<Integer> missing = new TreeSet<>();
        for (int r = 0; r < worldSize; r++) if (!views.containsKey(r)) missing.add(r);
        for (int r : missing) {
            ranks.add(new RankStatus(r, 0, 0, 0, null, null, ProcessState.UNAVAILABLE, "no heap dump of this rank",
                    -1, null));
        }
        JobModel model = FaultModel.observed("heap dumps", at, ranks, views, spawned, (host, pid) -> null, null, null);
        spawnedFiles.forEach((pid, file) -> {
            if (model.processes().stream().noneMatch(r -> r.epoch() > 0 && r.pid() == pid)) {
                problems.add(file + " is a process the job spawned (MPI_Comm_spawn): no dump shows a rank that died"
                        + " (one written as it died: the agent's dumpOnError, -XX:+HeapDumpOnOutOfMemoryError), so"
                        + " which rank it replaces is not known; 'mpilens cominfo --job ID' places it while the job runs");
            }
        });
        return new Reading(model, problems);
    }

    private static RankStatus status(ProcessSnapshot p, String file, boolean dying) {
        ProcessState state;
        String evidence;
        if (p.mpiState() == MpiState.FINALIZED) {
            state = ProcessState.FINALIZED;
            evidence = "MPI finalized (" + file + ")";
        } else if (dying) {
            state = ProcessState.FAILED;
            evidence = "dumped as it died (" + file + ")";
        } else {
            Liveness.Verdict v = Liveness.judge(Liveness.Outcome.ANSWERED, p.mpiState(), true, false);
            state = v.state();
            evidence = "heap dump " + file + ": its state when dumped";
        }
        return new RankStatus(p.rank(), 0, p.pid(), 0, p.host(), file, state, evidence, -1, p);
    }
}
