package io.mpilens.plugin.dumps;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.api.registry.UnsupportedLayoutException;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.headless.ft.Liveness;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.hprof.HeapDumps;
import io.mpilens.plugin.debug.MpiLaunch;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugPlugin;

/**
 * Opens heap dumps (.hprof, plain or gzip; one per rank JVM) into the MPI views: each dump is
 * decoded by {@code headless.hprof.HeapDumps} — the same registry decoder as live reads — in a
 * background job with progress, and the views show the ranks found as one post-mortem job (a
 * launch of its own, {@link MpiLaunch#showing}). A
 * dump without an mpilens registry, or one that is not a heap dump, is named in the views'
 * summary line and in the job's result, which the workbench shows.
 */
public final class HeapDumpViews {
    static final String PLUGIN_ID = "io.mpilens.plugin";

    private HeapDumpViews() {
    }

    /** Schedules the reading job and returns it (callers may join it). */
    public static Job open(List<Path> dumps) {
        String names = dumps.stream().map(p -> p.getFileName().toString()).collect(Collectors.joining(", "));
        Job job = Job.create("Reading MPI handles from heap dump" + (dumps.size() == 1 ? " " : "s ") + names,
                (org.eclipse.core.runtime.jobs.IJobFunction) monitor -> read(dumps, names, monitor));
        job.setUser(true);
        job.schedule();
        return job;
    }

    private static IStatus read(List<Path> dumps, String names, IProgressMonitor monitor) {
        SubMonitor sub = SubMonitor.convert(monitor, dumps.size() * 100);
        List<RankView> ranks = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Path dump : dumps) {
            String label = "heap dump " + dump.getFileName();
            SubMonitor one = sub.split(100);
            one.setTaskName("Reading " + dump);
            try {
                List<ProcessSnapshot> ps = HeapDumps.read(dump, (pass, done, total) -> {
                    if (one.isCanceled()) throw new OperationCanceledException();
                    one.subTask(dump.getFileName() + ": pass " + pass + ", "
                            + (total <= 0 ? done / (1 << 20) + " MB" : (100 * done / total) + "%"));
                });
                for (ProcessSnapshot p : ps) {
                    // the state at the moment of the dump, as the live rules judge an answer
                    ProcessState s = Liveness.judge(Liveness.Outcome.ANSWERED, p.mpiState(), null, false).state();
                    ranks.add(new RankView(label, p, s, false, null));
                }
            } catch (OperationCanceledException e) {
                return Status.CANCEL_STATUS;
            } catch (RegistryNotFoundException e) {
                String why = dump.getFileName() + " has no mpilens registry: the dumped JVM ran without the mpilens agent ("
                        + e.getMessage() + "). Dump a rank started with the agent (the MPI Java Application launch adds it).";
                problems.add(why);
                ranks.add(new RankView(label, null, ProcessState.UNAVAILABLE, false, "no mpilens registry in this dump"));
            } catch (TargetReadException | UnsupportedLayoutException e) {
                problems.add(dump.getFileName() + ": " + e.getMessage());
                ranks.add(new RankView(label, null, ProcessState.UNAVAILABLE, false, e.getMessage()));
            }
        }
        // a launch of its own: the Debug view lists it, the MPI views show it now and whenever it is selected
        DebugPlugin.getDefault().getLaunchManager().addLaunch(MpiLaunch.showing(
                new JobView("Heap dump" + (dumps.size() == 1 ? " " : "s ") + names + " (post-mortem)", ranks)));
        if (problems.isEmpty()) return Status.OK_STATUS;
        return new Status(IStatus.WARNING, PLUGIN_ID, String.join("\n", problems));
    }
}
