package io.mpilens.plugin.tests;

import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.START;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.awaitPause;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.configuration;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.debugPerspective;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.inBackground;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.release;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.screenshotMaximized;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.waitUntil;
import static io.mpilens.plugin.model.CallRows.Column.CALL;
import static io.mpilens.plugin.model.CallRows.Column.ON;
import static io.mpilens.plugin.model.CallRows.Column.PEER;
import static io.mpilens.plugin.model.CallRows.Column.RANK;
import static io.mpilens.plugin.model.CallRows.Column.SINCE;
import static io.mpilens.plugin.model.CallRows.Column.TAG;
import static io.mpilens.plugin.model.CallRows.Column.VERDICT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.plugin.debug.MpiJob;
import io.mpilens.plugin.launch.MpiJobProcess;
import io.mpilens.plugin.launch.MpiLaunchSettings;
import io.mpilens.plugin.model.CallRows;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.views.CallsView;
import io.mpilens.plugin.views.HostsView;
import io.mpilens.headless.text.WaitForPicture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.ISuspendResume;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;

/**
 * The MPI Calls view on a real 5-rank Open MPI job that hangs without a failure
 * ({@code examples.openmpi.Deadlock}: ranks 0 and 1 receive from each other, rank 2 waits in a
 * barrier, ranks 3 and 4 play ping-pong): while the job runs it asks for a suspend; with every
 * rank suspended it shows each rank's call in its table (call, communicator, peer, tag, since
 * when, verdict) and draws the wait-for picture: the possible deadlock with its cycle in amber, and
 * says that one look confirms nothing; resumed for a moment and suspended again, it compares the
 * two suspensions and confirms the deadlock of ranks 0 and 1 (red, the cycle thick), with rank 2
 * stuck behind them (dashed); more suspensions until ranks 3 and 4 were caught inside recv at two
 * in a row show them "not deadlocked: progress in between" (green). Screenshots of each. The same
 * on MPJ Express multicore ({@code examples.mpj.Deadlock}), whose five ranks are threads of one
 * JVM: each thread's call is shown under its own rank.
 */
class CallsViewInWorkbenchTest {
    /** One binding's job: how ranks 0 and 1's receives and rank 2's barrier read in the view. */
    private record Case(String name, Binding binding, String example, String mainClass, String recv0, String recv1,
                        String barrier, String shots) {
    }
    /** Suspends or resumes every rank at once, as the launch does (the Debug view's Suspend on the launch). */
    private static void wholeJob(ILaunch launch, boolean suspend, String what) throws Exception {
        ISuspendResume all = (ISuspendResume) launch;
        inBackground(what, () -> {
            if (suspend) all.suspend();
            else all.resume();
            return null;
        });
    }

    @Test
    void aSuspendedDeadlockedJobShowsItsCallsAndTheCycle() throws Exception {
        deadlocked(new Case("mpi-deadlock", Binding.OPENMPI, "openmpi", "io.mpilens.examples.openmpi.Deadlock",
                "recv on MPI_COMM_WORLD peer 1 tag 7", "recv on MPI_COMM_WORLD peer 0 tag 7", "barrier on MPI_COMM_WORLD",
                "calls-view"));
    }

    /** Five ranks in one JVM: every thread's call under its own rank, and the deadlock confirmed across a resume. */
    @Test
    void aSuspendedMpjMulticoreJobShowsEachRanksCallAndTheDeadlock() throws Exception {
        deadlocked(new Case("mpj-deadlock", Binding.MPJ_MULTICORE, "mpj", "io.mpilens.examples.mpj.Deadlock",
                "Recv on MPI_COMM_WORLD peer 1 tag 7", "Recv on MPI_COMM_WORLD peer 0 tag 7", "Barrier on MPI_COMM_WORLD",
                "calls-view-mpj-multicore"));
    }

    /** The view's row of {@code rank}'s thread in {@code method}. */
    private static CallRows.Row row(CallsView calls, int rank, String method) {
        return calls.shownRows().stream().filter(r -> r.rank() == rank && r.cell(CALL).equals(method)).findFirst()
                .orElseThrow(() -> new AssertionError("no row of rank " + rank + " in " + method + ": " + calls.shownRows()));
    }

    /** The picture's arrow {@code from -> to} has the verdict's colour and is (or is not) on the cycle. */
    private static void assertArrow(WaitForPicture p, int from, int to, WaitFor.Verdict verdict, boolean cycle) {
        WaitForPicture.Arrow a = p.arrows().stream().filter(x -> x.from() == from && x.to() == to).findFirst()
                .orElseThrow(() -> new AssertionError("no arrow " + from + " -> " + to + ": " + p.arrows()));
        assertEquals(verdict, a.verdict(), a.toString());
        assertEquals(WaitForPicture.colour(verdict), a.colour(), a.toString());
        assertEquals(cycle, a.cycle(), a.toString());
    }

    /** Takes the mouse off the views and hides hovers and pop-ups that would cover a screenshot. */
    private static void quiet() {
        org.eclipse.swt.widgets.Display d = PlatformUI.getWorkbench().getDisplay();
        d.setCursorLocation(1275, 995);
        for (org.eclipse.swt.widgets.Shell s : d.getShells()) {
            if (s.isVisible() && (s.getStyle() & org.eclipse.swt.SWT.ON_TOP) != 0) s.setVisible(false);
        }
        MpiViewsInWorkbenchTest.spin(300);
    }

    /** Resumes the job for a moment and suspends it again: the view's next look, compared with this one. */
    private static void lookAgain(ILaunch launch, CallsView calls) throws Exception {
        int before = calls.shownJob().resumes();
        wholeJob(launch, false, "every rank is resumed");
        Thread.sleep(1500);
        wholeJob(launch, true, "every rank is suspended again");
        calls.job().refresh();
        waitUntil(() -> "the MPI Calls view reads the job suspended again", START.toMillis(),
                () -> calls.shownJob().resumes() > before && calls.shownPicture() != null);
    }

    private void deadlocked(Case c) throws Exception {
        Path control = Files.createTempDirectory("mpilens-ui-deadlock-");
        debugPerspective();
        ILaunchConfiguration config = configuration(c.name(), c.example(), c.mainClass(),
                "-Dmpilens.control=" + control, new MpiLaunchSettings(c.binding(), 5, "", ""));
        ILaunch launch = inBackground("the launch delegate starts the job and attaches",
                () -> config.launch(ILaunchManager.DEBUG_MODE, new NullProgressMonitor()));
        Job job = ((MpiJobProcess) launch.getProcesses()[0]).job();
        List<Long> pids = new ArrayList<>(List.of(job.pid()));
        try {
            awaitPause(job, "ready");
            release(control, "ready");
            job.awaitLines(l -> l.contains("MPILENS-STUCK "), 5, START);

            IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
            window.getShell().setBounds(0, 0, 1280, 1000);
            IWorkbenchPage page = window.getActivePage();
            CallsView calls = (CallsView) page.showView(CallsView.ID);
            MpiJob mpiJob = MpiViewsInWorkbenchTest.follow(launch);
            waitUntil("the running job's MPI Calls view asks for a suspend",
                    () -> calls.shownJob() != null && calls.shownJob().ranks().size() == 5
                            && calls.shownText().startsWith("Suspend the job"));
            for (var r : calls.shownJob().ranks()) if (r.process() != null) pids.add(r.process().pid());

            // another MPI view opened on the running job reads it now: no debug event would
            var existing = page.findView(HostsView.ID);
            if (existing != null) page.hideView(existing);
            JobView before = mpiJob.current();
            var hosts = page.showView(HostsView.ID);
            waitUntil("opening MPI Hosts reads the running job again", () -> mpiJob.current() != before);
            page.hideView(hosts);

            wholeJob(launch, true, "every rank is suspended");
            mpiJob.refresh();
            waitUntil(() -> "the MPI Calls view shows the cycle of the suspended job:\n" + calls.shownText(), START.toMillis(),
                    () -> calls.shownText().contains("  cycle 0 -> 1 -> 0"));
            String text = calls.shownText();
            assertTrue(text.contains("possible deadlock (one look): "), text);
            assertTrue(text.contains("  rank 0  " + c.recv0() + "  waits for 1"), text);
            assertTrue(text.contains("  rank 1  " + c.recv1() + "  waits for 0"), text);
            assertTrue(text.contains("(one look at a suspended job: resume it for a moment and suspend it again,"), text);
            assertFalse(text.contains("DEADLOCK"), "one suspension confirms nothing: " + text);
            // the table: a row per rank and thread, its call taken apart
            String recv = c.recv0().split(" ")[0], barrier = c.barrier().split(" ")[0];
            CallRows.Row zero = row(calls, 0, recv);
            assertEquals(List.of("0", "MPI_COMM_WORLD", "1", "7", "possible deadlock (one look)"), List.of(zero.cell(RANK),
                    zero.cell(ON), zero.cell(PEER), zero.cell(TAG), zero.cell(VERDICT)), zero.toString());
            assertTrue(zero.cell(SINCE).matches("\\d\\d:\\d\\d:\\d\\d"), zero.toString());
            CallRows.Row two = row(calls, 2, barrier);
            assertEquals(List.of("MPI_COMM_WORLD", "", "", "stuck behind it (one look)"),
                    List.of(two.cell(ON), two.cell(PEER), two.cell(TAG), two.cell(VERDICT)), two.toString());
            // the picture: a box per rank, the cycle's arrows in the colour of a possible deadlock
            WaitForPicture picture = calls.shownPicture();
            assertEquals(List.of(0, 1, 2, 3, 4), picture.boxes().stream().map(WaitForPicture.Box::rank).toList());
            assertArrow(picture, 0, 1, WaitFor.Verdict.POSSIBLE, true);
            assertArrow(picture, 1, 0, WaitFor.Verdict.POSSIBLE, true);
            assertArrow(picture, 2, 0, WaitFor.Verdict.BEHIND_POSSIBLE, false);
            quiet();
            screenshotMaximized(page, calls, c.shots() + "-one-look.png");

            // resume for a moment, suspend again: the second look confirms ranks 0 and 1, never the busy pair
            lookAgain(launch, calls);
            waitUntil(() -> "the MPI Calls view confirms the deadlock:\n" + calls.shownText(), START.toMillis(),
                    () -> calls.shownText().contains("DEADLOCK: "));
            text = calls.shownText();
            assertTrue(text.contains("DEADLOCK: ranks 0 1 wait for each other; no blocking call returned in between"),
                    text);
            assertTrue(text.contains("  stuck behind them: rank 2"), text);
            assertFalse(text.contains("possible deadlock"), text);
            CallRows.Row zeroAgain = row(calls, 0, recv);
            assertEquals("DEADLOCK: nothing moved between two looks", zeroAgain.cell(VERDICT));
            assertEquals(zero.cell(SINCE), zeroAgain.cell(SINCE), "in the same call since the first look");
            assertEquals("stuck behind the deadlock", row(calls, 2, barrier).cell(VERDICT));
            picture = calls.shownPicture();
            assertArrow(picture, 0, 1, WaitFor.Verdict.DEADLOCK, true);
            assertArrow(picture, 1, 0, WaitFor.Verdict.DEADLOCK, true);
            assertArrow(picture, 2, 1, WaitFor.Verdict.BEHIND_DEADLOCK, false);
            assertTrue(picture.boxes().get(2).dashed(), picture.boxes().get(2).toString());
            assertFalse(text.contains("DEADLOCK: ranks 0 1 3") || text.contains("DEADLOCK: ranks 3 4"), text);
            quiet();
            screenshotMaximized(page, calls, c.shots() + "-deadlock.png");

            // the busy pair caught inside recv at two suspensions in a row: progress in between, not a deadlock
            String progress = "not deadlocked: ranks 3 4 looked stuck, but there was progress in between";
            for (int i = 0; i < 10 && !calls.shownText().contains(progress); i++) lookAgain(launch, calls);
            assertTrue(calls.shownText().contains(progress), "ten looks never caught ranks 3 and 4 both inside recv"
                    + " twice in a row:\n" + calls.shownText());
            for (int r : new int[] {3, 4}) {
                // caught in recv or in send (MPJ Express's blocks until the peer receives)
                assertTrue(calls.shownRows().stream().filter(x -> x.rank() == r).allMatch(x -> x.cell(VERDICT)
                        .equals("not deadlocked: progress in between")), calls.shownRows().toString());
            }
            assertArrow(calls.shownPicture(), 3, 4, WaitFor.Verdict.PROGRESS, false);
            assertArrow(calls.shownPicture(), 0, 1, WaitFor.Verdict.DEADLOCK, true);
            quiet();
            screenshotMaximized(page, calls, c.shots() + "-progress.png");

        } finally {
            // leave the workbench as found: an open MPI view follows the next launch from its start
            // (the next test expects its views to read the job when it first shows them)
            IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
            var calls = page.findView(CallsView.ID);
            if (calls != null) page.hideView(calls);
            inBackground("the launch terminates", () -> {
                launch.terminate();
                return null;
            });
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        }
        waitUntil("no process of the job is left (launcher, rank JVMs " + pids + ")", START.toMillis(), () -> pids.stream()
                .map(ProcessHandle::of).flatMap(Optional::stream).noneMatch(ProcessHandle::isAlive));
    }
}
