package io.mpilens.plugin.tests;

import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.START;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.awaitPause;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.configuration;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.debugPerspective;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.inBackground;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.release;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.structure;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.plugin.debug.MpiJob;
import io.mpilens.plugin.launch.MpiJobProcess;
import io.mpilens.plugin.launch.MpiLaunchSettings;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.ILogicalStructureType;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IThread;
import org.eclipse.jdt.debug.core.IJavaLineBreakpoint;
import org.eclipse.jdt.debug.core.IJavaPrimitiveValue;
import org.eclipse.jdt.debug.core.IJavaStackFrame;
import org.eclipse.jdt.debug.core.JDIDebugModel;
import org.junit.jupiter.api.Test;

/**
 * The MPI Java Application launch on MPJ Express multicore: all four ranks are threads of one
 * JVM, so the launch has one debug target (niodev: below); a breakpoint stops every rank's thread, and the
 * Variables view's MPI handle structure finds MPJ wrappers (which carry no native handle) by the
 * id the agent keeps in them — communicators and requests alike (with the launch's default agent
 * options a request is in its rank thread's own table, keyed by that id).
 */
class MpjLaunchInWorkbenchTest {
    private static final String TOUR = "io.mpilens.examples.mpj.HandleTour";
    /** {@code world.Barrier()} right after the "orphans" pause, found in the tour's source. */
    private static final int BREAK_LINE = MpiViewsInWorkbenchTest.lineAfterPause(java.nio.file.Paths.get(System.getProperty("mpilens.root", ".."))
            .toAbsolutePath().normalize().resolve("examples/mpj/src/main/java/io/mpilens/examples/mpj/HandleTour.java"), "orphans", "world.Barrier();");

    @Test
    void anMpjMulticoreLaunchIsOneTargetWhoseRankThreadsShowTheirHandles() throws Exception {
        Path control = Files.createTempDirectory("mpilens-ui-mpj-");
        ILaunch launch = launchTour("mpj-tour", control, Binding.MPJ_MULTICORE,
                "the launch delegate starts the MPJ job and attaches");
        Job job = ((MpiJobProcess) launch.getProcesses()[0]).job();
        List<Long> pids = new ArrayList<>(List.of(job.pid()));
        IJavaLineBreakpoint bp = null;
        try {
            assertEquals(1, launch.getDebugTargets().length, "multicore: one JVM for all ranks");
            assertTrue(launch.getDebugTargets()[0].getName().startsWith("ranks 0-3 (127.0.0.1:"),
                    launch.getDebugTargets()[0].getName());
            toOrphans(job, control);
            JobView v = followedView(launch, 1, "the MPI views read 4 ranks from the one JVM");
            assertEquals(List.of(0, 1, 2, 3), v.ranks().stream().map(RankView::rank).collect(Collectors.toList()));
            for (RankView r : v.ranks()) assertEquals(ProcessState.OK, r.state(), r.label());
            pids.add(v.ranks().get(0).process().pid());

            bp = breakAfterOrphans();
            release(control, "orphans");
            Map<Integer, IJavaStackFrame> byRank = stoppedRanks(launch, "the 4 rank threads stop at HandleTour.java:"
                    + BREAK_LINE);
            assertEquals(BREAK_LINE, byRank.get(2).getLineNumber());
            Shown shown = rankTwoAndZero(byRank);
            assertEquals("ACTIVE", shown.dup().get("State"));
            assertTrue(shown.recv().get("Process").startsWith("rank 2 of 4"), shown.recv().toString());
            // rank 0's thread has its own handles (ids are per JVM: another row)
            assertTrue(!shown.dup0().get("Id").equals(shown.dup().get("Id")), shown.dup0() + " / " + shown.dup());
        } finally {
            terminate(launch, bp);
        }
        assertTrue(launch.isTerminated());
        awaitNoProcess("no process of the MPJ job is left (starter, rank JVM " + pids + ")", pids);
    }

    /**
     * The same launch on MPJ Express niodev: one JVM per rank (and a private daemon), so four
     * debug targets; the breakpoint stops each rank's JVM, each JVM's registry shows its own
     * rank's handles, and terminating the launch leaves no process of the job behind.
     */
    @Test
    void anMpjNiodevLaunchIsOneTargetPerRankAndEachShowsItsOwnHandles() throws Exception {
        Path control = Files.createTempDirectory("mpilens-ui-niodev-");
        ILaunch launch = launchTour("niodev-tour", control, Binding.MPJ_NIODEV,
                "the launch delegate starts the niodev job and attaches");
        Job job = ((MpiJobProcess) launch.getProcesses()[0]).job();
        List<Long> pids = new ArrayList<>(List.of(job.pid()));
        IJavaLineBreakpoint bp = null;
        try {
            assertEquals(4, launch.getDebugTargets().length, "niodev: one JVM per rank");
            toOrphans(job, control);
            for (ProcessHandle p : job.processes()) pids.add(p.pid());
            JobView v = followedView(launch, 4, "the MPI views read 4 ranks from 4 JVMs");
            assertEquals(List.of(0, 1, 2, 3), v.ranks().stream().map(RankView::rank).collect(Collectors.toList()));
            for (RankView r : v.ranks()) {
                assertEquals(ProcessState.OK, r.state(), r.label());
                pids.add(r.process().pid());
            }
            assertEquals(4, v.ranks().stream().map(r -> r.process().pid()).distinct().count(), "four rank JVMs: "
                    + v.ranks().stream().map(r -> r.label() + " pid " + r.process().pid()).collect(Collectors.toList()));

            bp = breakAfterOrphans();
            release(control, "orphans");
            Map<Integer, IJavaStackFrame> byRank = stoppedRanks(launch, "the 4 rank JVMs stop at HandleTour.java:"
                    + BREAK_LINE);
            Shown shown = rankTwoAndZero(byRank);
            assertTrue(!shown.dup0().get("Process").equals(shown.dup().get("Process")),
                    "each rank's own JVM: " + shown.dup0() + " / " + shown.dup());
        } finally {
            terminate(launch, bp);
        }
        assertTrue(launch.isTerminated());
        awaitNoProcess("no process of the niodev job is left (launcher, daemon, rank JVMs " + pids + ")", pids);
    }

    /** What the Variables view's MPI handle structure shows for rank 2's {@code dup} and {@code recv} and rank 0's {@code dup}. */
    private record Shown(Map<String, String> dup, Map<String, String> recv, Map<String, String> dup0) {
    }

    /** Reads {@link Shown} at the breakpoint and checks what both launches expect of it. */
    private static Shown rankTwoAndZero(Map<Integer, IJavaStackFrame> byRank) throws Exception {
        IJavaStackFrame r2 = byRank.get(2);
        ILogicalStructureType type = handleStructure(r2);
        Map<String, String> dup = structure(type, r2.findVariable("dup"));
        assertTrue(dup.getOrDefault("Process", "").startsWith("rank 2 of 4, pid "), dup.toString());
        assertEquals("COMMUNICATOR", dup.get("Kind"), dup.toString());
        assertEquals("2", dup.get("Rank"));
        assertEquals("4", dup.get("Size"));
        assertEquals("[0, 1, 2, 3]", dup.get("Members"));
        Map<String, String> recv = structure(type, r2.findVariable("recv"));
        assertEquals("REQUEST", recv.get("Kind"), recv.toString());
        assertEquals("Irecv", recv.get("Creating call"), recv.toString());
        Map<String, String> dup0 = structure(type, byRank.get(0).findVariable("dup"));
        assertEquals("0", dup0.get("Rank"), dup0.toString());
        return new Shown(dup, recv, dup0);
    }

    /** The MPJ HandleTour launched in debug mode through the MPI Java Application launch type. */
    private static ILaunch launchTour(String name, Path control, Binding binding, String what) throws Exception {
        debugPerspective();
        ILaunchConfiguration config = configuration(name, "mpj", TOUR, "-Dmpilens.control=" + control,
                new MpiLaunchSettings(binding, 4, "", ""));
        return inBackground(what, () -> config.launch(ILaunchManager.DEBUG_MODE, new NullProgressMonitor()));
    }

    /** Lets the tour run from its "created" pause to its "orphans" pause. */
    private static void toOrphans(Job job, Path control) throws Exception {
        awaitPause(job, "created");
        release(control, "created");
        awaitPause(job, "orphans");
    }

    /**
     * The MPI views following this launch, once they show its 4 ranks, all read, from
     * {@code targets} debug targets — not the view still shown from an earlier launch.
     */
    private static JobView followedView(ILaunch launch, int targets, String what) {
        MpiJob job = MpiViewsInWorkbenchTest.follow(launch);
        waitUntil(what, () -> {
            JobView v = job.current();
            return v.ranks().size() == 4 && v.ranks().stream().allMatch(r -> r.process() != null)
                    && v.ranks().stream().map(RankView::target).distinct().count() == targets;
        });
        return job.current();
    }

    private static IJavaLineBreakpoint breakAfterOrphans() throws Exception {
        return JDIDebugModel.createLineBreakpoint(ResourcesPlugin.getWorkspace().getRoot(), TOUR, BREAK_LINE, -1, -1, 0,
                true, null);
    }

    /** Each rank's top frame, once all four ranks' threads (in any of the launch's JVMs) stopped at the breakpoint. */
    private static Map<Integer, IJavaStackFrame> stoppedRanks(ILaunch launch, String what) {
        Map<Integer, IJavaStackFrame> byRank = new HashMap<>();
        waitUntil(what, () -> {
            byRank.clear();
            try {
                for (IDebugTarget target : launch.getDebugTargets()) {
                    for (IThread t : target.getThreads()) {
                        if (!t.isSuspended() || t.getBreakpoints().length == 0) continue;
                        IJavaStackFrame f = (IJavaStackFrame) t.getTopStackFrame();
                        byRank.put(((IJavaPrimitiveValue) f.findVariable("rank").getValue()).getIntValue(), f);
                    }
                }
            } catch (Exception e) {
                return false;
            }
            return byRank.size() == 4;
        });
        return byRank;
    }

    private static ILogicalStructureType handleStructure(IJavaStackFrame frame) throws Exception {
        return Arrays.stream(DebugPlugin.getLogicalStructureTypes(frame.findVariable("dup").getValue()))
                .filter(t -> t.getId().equals("io.mpilens.handleStructure")).findFirst().orElseThrow(
                        () -> new AssertionError("no MPI handle structure offered for MPJ's mpi.Intracomm"));
    }

    private static void terminate(ILaunch launch, IJavaLineBreakpoint bp) throws Exception {
        if (bp != null) bp.delete();
        inBackground("the launch terminates", () -> {
            launch.terminate();
            return null;
        });
        DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
    }

    private static void awaitNoProcess(String what, List<Long> pids) {
        waitUntil(what, START.toMillis(), () -> pids.stream()
                .map(ProcessHandle::of).flatMap(Optional::stream).noneMatch(ProcessHandle::isAlive));
    }
}
