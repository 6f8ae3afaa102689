package io.mpilens.plugin.tests;

import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.START;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.awaitPause;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.configuration;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.debugPerspective;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.inBackground;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.release;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.plugin.debug.JobAttach;
import io.mpilens.plugin.debug.MpiJob;
import io.mpilens.plugin.launch.MpiJobProcess;
import io.mpilens.plugin.launch.MpiLaunchSettings;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IProcess;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.debug.ui.IDebugView;
import org.eclipse.swt.widgets.Tree;
import org.eclipse.swt.widgets.TreeItem;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;

/**
 * Run As > MPI Java Application: the job runs with the agent and JDWP on every rank but no
 * debugger; the console says where the ranks listen, and attaching there later (the Attach to
 * MPI Job command's code path) shows the running job in the MPI views, without a restart. The
 * job then runs to its end on its own and the launch terminates with it.
 */
class MpiRunModeInWorkbenchTest {
    private static final String TOUR = "io.mpilens.examples.openmpi.HandleTour";
    private static final Pattern ADDRESSES = Pattern.compile("Attach to MPI Job\\.\\.\\. with (\\S+)");

    @Test
    void aRunModeLaunchHasNoDebuggerNamesItsPortsAndCanBeAttachedToLater() throws Exception {
        Path control = Files.createTempDirectory("mpilens-ui-run-");
        debugPerspective();
        ILaunchConfiguration config = configuration("mpi-run", "openmpi", TOUR, "-Dmpilens.control=" + control,
                new MpiLaunchSettings(Binding.OPENMPI, 4, "", ""));
        ILaunch launch = inBackground("the launch delegate starts the job in run mode",
                () -> config.launch(ILaunchManager.RUN_MODE, new NullProgressMonitor()));
        IProcess process = launch.getProcesses()[0];
        Job job = ((MpiJobProcess) process).job();
        ILaunch attached = null;
        try {
            assertEquals(0, launch.getDebugTargets().length, "run mode: no debugger attached");
            awaitPause(job, "created");
            String console = process.getStreamsProxy().getOutputStreamMonitor().getContents();
            Matcher m = ADDRESSES.matcher(console);
            assertTrue(m.find(), "the console names the ranks' JDWP addresses:\n" + console);
            List<JdwpAddress> addresses = new ArrayList<>();
            for (String a : m.group(1).split(",")) addresses.add(JdwpAddress.parse(a));
            assertEquals(4, addresses.size(), m.group(1));
            assertTrue(console.contains("[mpilens] run mode: 4 rank JVMs with the mpilens agent, no debugger attached."), console);
            IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
            page.getWorkbenchWindow().getShell().setBounds(0, 0, 1280, 1000);
            org.eclipse.ui.IViewPart consoleView = page.showView("org.eclipse.ui.console.ConsoleView");
            page.setPartState(page.getReference(consoleView), IWorkbenchPage.STATE_MAXIMIZED);
            MpiViewsInWorkbenchTest.spin(500);
            MpiViewsInWorkbenchTest.screenshot(page.getWorkbenchWindow().getShell(), "the workbench", "run-mode-console.png");
            page.setPartState(page.getReference(consoleView), IWorkbenchPage.STATE_RESTORED);

            release(control, "created");
            awaitPause(job, "orphans");
            // later, the user attaches to the addresses the console gave
            attached = inBackground("attaching to the running job", () -> JobAttach.attach("run-mode tour", addresses,
                    Duration.ofSeconds(20)));
            assertEquals(4, attached.getDebugTargets().length);
            assertEquals("run-mode tour [MPI job attached without a launch configuration]", debugViewLabel(page, attached),
                    "the Debug view names the launch made without a launch configuration (Eclipse's own label: <unknown>)");
            page.activate(page.showView(IDebugUIConstants.ID_DEBUG_VIEW));
            List<String> mains = debugViewMainThreads(page, attached);
            assertEquals(4, mains.size(), "each rank JVM's main thread in the Debug view: " + mains);
            MpiViewsInWorkbenchTest.screenshot(page.getWorkbenchWindow().getShell(), "the Debug view with the attached launch",
                    "run-mode-debug-view.png");
            MpiJob mpiJob = MpiViewsInWorkbenchTest.follow(attached);
            waitUntil("the MPI views read the 4 ranks of the job started in run mode", () -> {
                JobView v = mpiJob.current();
                return v.ranks().size() == 4 && v.ranks().stream().allMatch(r -> r.process() != null);
            });
            JobView v = mpiJob.current();
            for (RankView r : v.ranks()) assertEquals(ProcessState.OK, r.state(), r.label());
            HandleInfo split = v.ranks().stream().filter(r -> r.rank() == 0).findFirst().orElseThrow().process().handles()
                    .stream().filter(h -> "tour-split-0".equals(h.name())).findFirst().orElseThrow();
            assertTrue(split.isOrphan(), "the freed split held by its pending receive: " + split);
            for (IDebugTarget t : attached.getDebugTargets()) t.disconnect();
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(attached);
            attached = null;

            for (String point : List.of("orphans", "released", "finalized")) {
                if (!point.equals("orphans")) awaitPause(job, point);
                release(control, point);
            }
            waitUntil("the job ends on its own and the run launch with it", START.toMillis(), launch::isTerminated);
            assertEquals(0, process.getExitValue(), "the job's exit code; output:\n" + job.tail());
        } finally {
            if (attached != null) {
                ILaunch a = attached;
                inBackground("the attach launch ends", () -> {
                    a.terminate();
                    return null;
                });
            }
            if (!launch.isTerminated()) {
                inBackground("the run launch terminates", () -> {
                    launch.terminate();
                    return null;
                });
            }
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        }
    }

    /**
     * The Debug view's row of the main thread under each of {@code launch}'s debug targets, once the
     * view has labelled every target's threads (right after an attach their rows are there, blank).
     */
    static List<String> debugViewMainThreads(IWorkbenchPage page, ILaunch launch) throws Exception {
        IDebugView debug = (IDebugView) page.showView(IDebugUIConstants.ID_DEBUG_VIEW);
        Tree tree = (Tree) debug.getViewer().getControl();
        List<String> mains = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        waitUntil(() -> "the Debug view labels each rank JVM's main thread; its rows under the launch: " + seen, 30_000, () -> {
            mains.clear();
            seen.clear();
            for (TreeItem l : tree.getItems()) {
                if (l.getData() != launch) continue;
                for (TreeItem target : l.getItems()) {
                    seen.add(target.getText());
                    for (TreeItem thread : target.getItems()) {
                        seen.add("  " + thread.getText());
                        if (thread.getText().startsWith("Thread [main]")) mains.add(target.getText() + " / " + thread.getText());
                    }
                }
            }
            return mains.size() == launch.getDebugTargets().length;
        });
        // the agent's threads sit with the JVM's own in its root thread group (AgentThreads): system threads to
        // JDT, which its Debug view's filter hides with the JVM's (when that filter is on, the default)
        assertTrue(seen.stream().filter(row -> row.contains("[mpilens-")).allMatch(row -> row.contains("System Thread [mpilens-")),
                "the agent's threads are system threads: " + seen);
        // the screenshot once the view has settled (a refresh blanks rows for a moment), or after 5 s
        for (long end = System.currentTimeMillis() + 5_000; System.currentTimeMillis() < end && blankRow(tree, launch); ) {
            MpiViewsInWorkbenchTest.spin(100);
        }
        return List.copyOf(mains);
    }

    private static boolean blankRow(Tree tree, ILaunch launch) {
        for (TreeItem l : tree.getItems()) {
            if (l.getData() != launch) continue;
            for (TreeItem target : l.getItems()) for (TreeItem thread : target.getItems()) if (thread.getText().isEmpty()) return true;
        }
        return false;
    }

    /** The text of {@code launch}'s row in the Debug view, once the view has labelled it. */
    static String debugViewLabel(IWorkbenchPage page, ILaunch launch) throws Exception {
        IDebugView debug = (IDebugView) page.showView(IDebugUIConstants.ID_DEBUG_VIEW);
        Tree tree = (Tree) debug.getViewer().getControl();
        String[] label = {null};
        waitUntil(() -> "the Debug view labels the launch; its row reads " + label[0], 20_000, () -> {
            for (TreeItem i : tree.getItems()) if (i.getData() == launch) label[0] = i.getText();
            return label[0] != null && (label[0].contains("[") || label[0].contains("<unknown>"));
        });
        return label[0];
    }
}
