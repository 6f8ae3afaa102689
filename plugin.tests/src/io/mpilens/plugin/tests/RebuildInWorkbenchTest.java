package io.mpilens.plugin.tests;

import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.START;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.awaitPause;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.configuration;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.debugPerspective;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.inBackground;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.release;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.screenshotMaximized;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.spin;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.plugin.debug.MpiJob;
import io.mpilens.plugin.launch.MpiJobProcess;
import io.mpilens.plugin.launch.MpiLaunchSettings;
import io.mpilens.plugin.model.Box;
import io.mpilens.plugin.model.CommunicatorBoxes;
import io.mpilens.plugin.model.HostBoxes;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import io.mpilens.plugin.model.StatePalette;
import io.mpilens.plugin.views.CommunicatorsView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.ISuspendResume;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;

/**
 * FT-MPI's REBUILD in the MPI Communicators view, on a real 4-rank Open MPI job launched as an
 * MPI Java Application ({@code RebuildAfterFailure}, {@code orte_abort_on_non_zero_status 0}, the
 * job of {@code RebuildStoryTest}): rank 2 is killed; the survivors {@code createGroup}, {@code spawn}
 * a replacement JVM (the agent and JDWP, like its parents) and {@code merge} with it. The replacement
 * becomes a debug target of the launch; with the job suspended while the survivors are inside
 * {@code spawn} and the replacement waits before MPI init, COMM_WORLD is RECOVERING (who is inside
 * which call) and rank 2's cell names its JOINING epoch 1; after the rebuild, COMM_WORLD is
 * RECOVERED (rebuilt) and the communicators built with the replacement show it as
 * {@code 2 ← pid N, epoch 1}, OK.
 */
class RebuildInWorkbenchTest {
    private static final Pattern REBUILT = Pattern.compile("MPILENS-REBUILT owner=2 rank=2 size=4 pid=(\\d+)");

    @Test
    void aReplacementSpawnedByTheSurvivorsIsRankTwosNextEpochAndTheWorldIsRebuilt() throws Exception {
        Path control = Files.createTempDirectory("mpilens-ui-rebuild-");
        debugPerspective();
        ILaunchConfiguration config = configuration("mpi-rebuild", "openmpi", "io.mpilens.examples.openmpi.RebuildAfterFailure",
                "-Dmpilens.control=" + control, new MpiLaunchSettings(Binding.OPENMPI, 4, "--mca orte_abort_on_non_zero_status 0", ""));
        ILaunch launch = inBackground("the launch delegate starts the job and attaches",
                () -> config.launch(ILaunchManager.DEBUG_MODE, new NullProgressMonitor()));
        Job job = ((MpiJobProcess) launch.getProcesses()[0]).job();
        List<Long> pids = new ArrayList<>(List.of(job.pid()));
        IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
        window.getShell().setBounds(0, 0, 1280, 1000);
        IWorkbenchPage page = window.getActivePage();
        try {
            awaitPause(job, "ready");
            CommunicatorsView comms = (CommunicatorsView) page.showView(CommunicatorsView.ID);
            MpiViewsInWorkbenchTest.follow(launch);
            waitUntil("MPI Communicators shows COMM_WORLD of 4 OK ranks",
                    () -> box(comms, "MPI_COMM_WORLD").map(b -> b.state().equals("OK") && b.cells().size() == 4).orElse(false));
            long victim = comms.shownJob().rank(2).orElseThrow().process().pid();
            String victimTarget = comms.shownJob().rank(2).orElseThrow().target();
            for (RankView r : comms.shownJob().ranks()) pids.add(r.process().pid());

            ProcessHandle.of(victim).orElseThrow().destroyForcibly();
            waitUntil("COMM_WORLD DETECTED", () -> box(comms, "MPI_COMM_WORLD").map(b -> b.state().equals("DETECTED")).orElse(false));
            release(control, "ready");
            // the replacement waits before MPI init: the survivors are inside spawn meanwhile
            waitUntil("the replacement pauses at joining", START.toMillis(),
                    () -> job.output().stream().anyMatch(l -> l.contains("MPILENS-PAUSE owner=2 point=joining")));
            waitUntil(() -> "the replacement is a debug target of the launch, rank 2's epoch 1, JOINING: "
                    + comms.shownJob().model().processes(), START.toMillis(), () -> {
                        refreshNow(launch);
                        return comms.shownJob().model().replacement(2).map(r -> r.state() == ProcessState.JOINING).orElse(false);
                    });
            IDebugTarget replacementTarget = launch.getDebugTargets()[launch.getDebugTargets().length - 1];
            assertTrue(replacementTarget.getName().startsWith("rank 2 replacement (pid "), replacementTarget.getName());
            RankStatus joining = comms.shownJob().model().replacement(2).orElseThrow();
            assertEquals(1, joining.epoch());
            assertTrue(comms.shownJob().summary().contains(" \u2014 4 ranks + 1 spawned, "), comms.shownJob().summary());
            pids.add(joining.pid());

            // the whole job suspended (the Debug view's Suspend on the launch): the threads' calls are read
            suspendOrResume(launch, true, victimTarget);
            waitUntil(() -> "COMM_WORLD RECOVERING with the survivors inside spawn: " + box(comms, "MPI_COMM_WORLD"),
                    START.toMillis(), () -> box(comms, "MPI_COMM_WORLD").map(b -> b.state().equals("RECOVERING")).orElse(false));
            Box world = box(comms, "MPI_COMM_WORLD").orElseThrow();
            assertEquals(StatePalette.border(io.mpilens.headless.ft.CommState.RECOVERING), world.border());
            assertTrue(world.subtitle().endsWith(", inside ranks 0 1 3: spawn on survivors"), world.subtitle());
            assertEquals(List.of("r0", "r1", "r2", "r3"), world.cells().stream().map(Box.Cell::label).toList());
            assertEquals("FAILED \u2192 epoch 1 JOINING", world.cells().get(2).detail());
            assertTrue(world.cells().get(2).tooltip().contains("replaced by pid " + joining.pid() + ", epoch 1 (JOINING)"),
                    world.cells().get(2).tooltip());
            Box.Cell hostCell = HostBoxes.of(comms.shownJob()).stream().flatMap(b -> b.cells().stream())
                    .filter(c -> c.label().equals("rank 2 epoch 1")).findFirst().orElseThrow();
            assertEquals(StatePalette.fill(ProcessState.JOINING), hostCell.fill());
            screenshotMaximized(page, comms, "mpi-communicators-rebuild-recovering.png");

            suspendOrResume(launch, false, victimTarget);
            release(control, "joining");
            job.awaitLines(l -> l.contains("MPILENS-REBUILT "), 4, START);
            Matcher m = job.output().stream().map(REBUILT::matcher).filter(Matcher::find).findFirst()
                    .orElseThrow(() -> new AssertionError("the replacement reports rank 2 of 4: " + job.output()));
            long replacementPid = Long.parseLong(m.group(1)); // what the binding itself answered
            assertEquals(joining.pid(), replacementPid);
            waitUntil(() -> "4 processes pause at rebuilt", START.toMillis(), () -> job.output().stream()
                    .filter(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=rebuilt")).count() >= 4);
            waitUntil(() -> "COMM_WORLD RECOVERED (rebuilt), the replacement OK in rebuilt: " + boxes(comms).values(),
                    START.toMillis(), () -> {
                        refreshNow(launch);
                        return box(comms, "MPI_COMM_WORLD").map(b -> b.state().equals("RECOVERED (rebuilt)")).orElse(false)
                                && box(comms, "rebuilt").map(b -> b.cells().stream().allMatch(c -> c.detail().equals("OK")))
                                .orElse(false);
                    });
            Map<String, Box> after = boxes(comms);
            world = after.get("MPI_COMM_WORLD");
            assertEquals(StatePalette.border(io.mpilens.headless.ft.CommState.RECOVERED), world.border());
            assertTrue(world.subtitle().startsWith("size 4, recovered by survivors, rebuilt with replacements as "), world.subtitle());
            assertTrue(world.subtitle().endsWith(", rebuilt"), world.subtitle());
            assertEquals("FAILED \u2192 epoch 1 OK", world.cells().get(2).detail());
            Box rebuilt = after.get("rebuilt");
            String cell = "2 \u2190 pid " + replacementPid + ", epoch 1";
            assertEquals(List.of("r0", "r1", cell, "r3"), rebuilt.cells().stream().map(Box.Cell::label).toList());
            assertEquals(StatePalette.fill(ProcessState.OK), rebuilt.cells().get(2).fill());
            assertEquals("OK", rebuilt.state());
            assertTrue(rebuilt.subtitle().startsWith("size 4, from merge("), rebuilt.subtitle());
            Box survivors = after.get("survivors");
            assertEquals(List.of("r0", "r1", "r3"), survivors.cells().stream().map(Box.Cell::label).toList());
            assertTrue(survivors.subtitle().contains("from MPI_COMM_WORLD"), survivors.subtitle());
            Box spawn = after.values().stream().filter(b -> b.title().startsWith("spawn(")).findFirst()
                    .orElseThrow(() -> new AssertionError("the spawn intercommunicator: " + after.keySet()));
            assertTrue(spawn.subtitle().startsWith("size 4, inter: [0, 1, 3] | [2], from survivors"), spawn.subtitle());
            assertEquals(cell, spawn.cells().get(3).label());
            screenshotMaximized(page, comms, "mpi-communicators-rebuilt.png");
        } finally {
            var comms = page.findView(CommunicatorsView.ID);
            if (comms != null) page.hideView(comms);
            inBackground("the launch terminates", () -> {
                launch.terminate();
                return null;
            });
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        }
        waitUntil("no process of the job is left (launcher, rank JVMs, the replacement " + pids + ")", START.toMillis(),
                () -> pids.stream().map(ProcessHandle::of).flatMap(Optional::stream).noneMatch(ProcessHandle::isAlive));
    }

    /** A running job changes without debug events: read it again now and then. */
    private static void refreshNow(ILaunch launch) {
        MpiJob.of(launch).refresh();
        spin(400);
    }

    /** Suspends or resumes the whole job, as the Debug view does on the launch; {@code dead}: the killed rank's target. */
    private static void suspendOrResume(ILaunch launch, boolean suspend, String dead) throws Exception {
        ISuspendResume all = (ISuspendResume) launch;
        inBackground(suspend ? "every process of the job is suspended" : "every process is resumed", () -> {
            if (suspend) all.suspend();
            else all.resume();
            return null;
        });
        for (IDebugTarget t : launch.getDebugTargets()) {
            if (t.isTerminated() || t.isDisconnected() || t.getName().equals(dead)) continue;
            waitUntil(t.getName() + (suspend ? " suspended" : " resumed"), () -> t.isSuspended() == suspend);
        }
        MpiJob.of(launch).refresh();
    }

    private static Map<String, Box> boxes(CommunicatorsView v) {
        JobView job = v.shownJob();
        return job == null ? Map.of() : CommunicatorBoxes.of(job).stream()
                .collect(Collectors.toMap(Box::title, Function.identity(), (a, b) -> a, java.util.LinkedHashMap::new));
    }

    private static Optional<Box> box(CommunicatorsView v, String title) {
        return Optional.ofNullable(boxes(v).get(title));
    }
}
