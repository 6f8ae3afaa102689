package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.Transition;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.text.FaultBoxes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * The end of {@code mpilens demo}: 4 ranks of the {@code RecoverAfterFailure} example under
 * Open MPI with {@code orte_abort_on_non_zero_status 0}; rank 2 is killed with SIGKILL, the
 * survivors find out with status messages and a deadline and build a communicator of
 * themselves with {@code createGroup}. Cominfo is printed before, during and after. With
 * {@code --recovery rebuild} ({@code RebuildAfterFailure}) the survivors then spawn a replacement
 * and merge with it: cominfo also while they are inside {@code spawn} (RECOVERING, the replacement
 * JOINING as rank 2's next epoch) and after the rebuild.
 */
final class RecoveryStory {
    private static final Duration START = Duration.ofSeconds(120);
    private static final Duration READ = Duration.ofSeconds(5);
    private static final Duration SEEN = Duration.ofSeconds(30);
    private static final Duration PAUSE = Duration.ofMillis(200);
    private static final String JOB = "demo-recovery";
    private static final String REBUILD_JOB = "demo-rebuild";
    private static final int VICTIM = 2;

    private final Path home;
    private final Path agent;
    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;
    private final FaultBoxes boxes;
    private final boolean rebuild;

    RecoveryStory(Path home, Path agent, PrintWriter out, PrintWriter err, boolean json, boolean color, boolean rebuild) {
        this.rebuild = rebuild;
        this.home = home;
        this.agent = agent;
        this.out = out;
        this.err = err;
        this.json = json;
        this.boxes = new FaultBoxes(color);
    }

    int run() throws InterruptedException {
        Path control;
        try {
            control = Files.createTempDirectory("mpilens-recovery-");
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_INTERNAL;
        }
        Path jobs = control.resolve("jobs");
        String id = rebuild ? REBUILD_JOB : JOB;
        String example = rebuild ? "RebuildAfterFailure" : "RecoverAfterFailure";
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi." + example)
                .classPath(home.resolve("examples/support/target/classes"), home.resolve("examples/openmpi/target/classes"))
                .agentJar(agent).jdwp(true).controlDir(control).mpirunArgs("--mca orte_abort_on_non_zero_status 0")
                .env("MPILENS_JOBS", jobs.toString()).env("MPILENS_JOB", id).build();
        DemoCommand.say(err, "the recovery story: 4 ranks of " + example + " (Open MPI; survivors keep"
                + " running after a rank dies)");
        try (Job job = Job.launch(spec)) {
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready"), 4, START);
            JobObserver o = JobObserver.forJob(new JobDirectory(jobs), id, READ);
            if (rebuild) o.withFrames(false); // the survivors' calls: RECOVERING while they are inside spawn
            show("before: every rank has a receive pending from every other", o.observe());

            long pid = new JobDirectory(jobs).job(id).records().stream().filter(r -> r.rank() == VICTIM)
                    .mapToLong(JobRecord::pid).findFirst().orElseThrow(() -> new IOException("rank " + VICTIM + " never registered"));
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            DemoCommand.say(err, "killed rank " + VICTIM + " (pid " + pid + ") with SIGKILL");
            show("during: rank " + VICTIM + " FAILED, COMM_WORLD DETECTED, the receives from it can never complete",
                    observeUntil(o, m -> m.rank(VICTIM).map(r -> r.state() == ProcessState.FAILED).orElse(false)));

            job.release("ready");
            JobModel after;
            if (rebuild) {
                job.awaitLines(l -> l.contains("MPILENS-PAUSE owner=" + VICTIM + " point=joining"), 1, START);
                show("recovering: the survivors built 'survivors' and are inside spawn; the replacement, rank "
                        + VICTIM + "'s epoch 1, is JOINING (it waits before MPI_Init)", observeUntil(o, m -> m.replacement(VICTIM)
                        .map(r -> r.state() == ProcessState.JOINING).orElse(false) && !m.recovering().isEmpty()));
                job.release("joining");
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=rebuilt"), 4, START);
                after = observeUntil(o, m -> m.communicator("MPI_COMM_WORLD").map(c -> c.rebuilt()).orElse(false));
                show("after: merged with the replacement and split by the old ranks into 'rebuilt':"
                        + " COMM_WORLD RECOVERED (rebuilt)", after);
            } else {
                job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=recovered"), 3, START);
                after = observeUntil(o, m -> m.communicator("survivors").isPresent());
                show("after: the survivors missed rank " + VICTIM + "'s status at the deadline and built 'survivors'"
                        + " with createGroup: COMM_WORLD RECOVERED", after);
            }
            if (!json) {
                out.println("timeline:");
                for (Transition t : after.timeline()) {
                    if (t.from() != null) out.println("  " + WatchCommand.stamp(t.at()) + "  " + t.subject() + ": " + t.from() + " -> " + t.to());
                }
                out.flush();
            }
            DemoCommand.say(err, "stopping the recovery job (it cannot finalize without rank " + VICTIM + ")");
            return MpiLensCli.EXIT_OK;
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_INTERNAL;
        } finally {
            try (var files = Files.walk(control)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException e) {
                // a temporary directory left behind is harmless
            }
        }
    }

    private static JobModel observeUntil(JobObserver o, Predicate<JobModel> done) throws IOException, InterruptedException {
        return o.observeUntil(done, PAUSE, SEEN);
    }

    private void show(String what, JobModel m) {
        if (json) {
            out.println(FaultJson.model(m, true, false));
        } else {
            DemoCommand.say(err, what);
            for (String l : boxes.cominfo(m)) out.println(l);
        }
        out.flush();
    }
}
