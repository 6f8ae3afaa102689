package io.mpilens.plugin.tests;

import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.START;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.debugPerspective;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.inBackground;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.screenshot;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.screenshotMaximized;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.spin;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.job.HostName;
import io.mpilens.api.model.HandleKind;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.plugin.debug.JobAcrossHosts;
import io.mpilens.plugin.debug.ShowJobAcrossHostsHandler;
import io.mpilens.plugin.debug.MpiJob;
import io.mpilens.plugin.debug.MpiLaunch;
import io.mpilens.plugin.launch.MpiJobProcess;
import io.mpilens.plugin.launch.MpiLaunchSettings;
import io.mpilens.plugin.model.Box;
import io.mpilens.plugin.model.CallRows;
import io.mpilens.plugin.model.CommunicatorBoxes;
import io.mpilens.plugin.model.HandleTree;
import io.mpilens.plugin.model.HostBoxes;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import io.mpilens.plugin.views.CallsView;
import io.mpilens.plugin.views.CommunicatorsView;
import io.mpilens.plugin.views.HandlesView;
import io.mpilens.plugin.views.HostsView;
import io.mpilens.plugin.views.JobViewPart;
import io.mpilens.testsupport.SimulatedHosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.debug.ui.IDebugView;
import org.eclipse.jdt.debug.core.IJavaDebugTarget;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Text;
import org.eclipse.swt.widgets.TreeItem;
import org.eclipse.ui.handlers.IHandlerService;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;

/**
 * The MPI views on a real Open MPI job whose 4 ranks run on two simulated hosts
 * ({@code scripts/simhosts}: a host name and a {@code /tmp} of their own each, reached through an
 * ssh stand-in), none on the launch host, as "Show MPI Job Across Hosts…" reads it: the hosts found
 * from the job's own {@code mpirun} (nobody names them), a collector started on each, the
 * snapshots merged. Every rank's handles, MPI_COMM_WORLD with all four, both hosts with their
 * {@code orted}; then rank 2 killed on the second host and the survivors released into a barrier:
 * FAILED, DETECTED, PARTIAL and the barrier that never completes, each after a Refresh. No debug
 * target is made: nothing connects to a rank of another host.
 */
class AcrossHostsInWorkbenchTest {
    private static final Path ROOT = SimulatedHosts.ROOT;

    @Test
    void aJobOnTwoSimulatedHostsShowsEveryRankInTheMpiViews() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        // not under /tmp: each simulated host has a /tmp of its own, and the ranks' pauses read this directory
        Path control = Files.createDirectories(ROOT.resolve("plugin.tests/target/simhosts-ui-" + ProcessHandle.current().pid()));
        try (SimulatedHosts two = SimulatedHosts.up("mlsui", 2)) {
            String h1 = two.names().get(0), h2 = two.names().get(1), rsh = two.rshAgent().toString();
            JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi.HangAfterFailure")
                    .classPath(List.of(ROOT.resolve("examples/support/target/classes"), ROOT.resolve("examples/openmpi/target/classes")))
                    .agentJar(ROOT.resolve("runtime-agent/target/mpilens-agent.jar")).jdwp(true).controlDir(control)
                    .mpirunArgs("--mca plm_rsh_agent " + rsh + " --mca plm_rsh_no_tree_spawn 1 --host " + h1 + ":2," + h2 + ":2"
                            + " --mca orte_abort_on_non_zero_status 0")
                    .build();
            try (Job job = Job.launch(spec)) {
                waitUntil("4 ranks on the simulated hosts pause at ready", START.toMillis(), () -> job.output().stream()
                        .filter(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=ready")).count() >= 4);
                String id = two.exec(h1, "ls /tmp/mpilens-$(id -u)/jobs").trim();

                debugPerspective();
                IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
                window.getShell().setBounds(0, 0, 1280, 1000);
                IWorkbenchPage page = window.getActivePage();
                HandlesView handles = (HandlesView) page.showView(HandlesView.ID);
                CommunicatorsView comms = (CommunicatorsView) page.showView(CommunicatorsView.ID);
                HostsView hosts = (HostsView) page.showView(HostsView.ID);
                CallsView calls = (CallsView) page.showView(CallsView.ID);

                // the user's way: Run > Show MPI Job Across Hosts..., the job id typed, the hosts left
                // empty (found from this mpirun, reached as it reached them); first a host name that is none
                List<String> problems = new ArrayList<>();
                runDialog(window, id, "-oProxyCommand=evil", "java -jar " + cli, problems);
                assertEquals(1, problems.size(), "the bad host name kept the dialog open once: " + problems);
                assertTrue(problems.get(0).contains("'-oProxyCommand=evil' is not a host name"), problems.get(0));
                waitUntil("the views follow the dialog's launch, which reads the job across hosts",
                        () -> handles.job() != null && handles.job().elsewhere() != null);
                JobAcrossHosts across = handles.job().elsewhere();
                assertEquals(id, across.jobId());
                assertEquals(List.of(h1, h2), across.hosts());
                assertTrue(across.said() != null && across.said().startsWith("also reading the hosts of mpirun pid ")
                        && across.said().contains("collectors started with its plm_rsh_agent " + rsh), across.said());
                assertEquals(0, handles.job().launch().getDebugTargets().length, "no debug target: the ranks are on other hosts");
                assertTrue(handles.job().launch() instanceof MpiLaunch, "the job read across hosts is a launch of its own");
                // a rank that misses the deadline (four rank JVMs and two collectors on two CPUs) is read again
                JobView job4 = refreshUntil(handles, j -> allOk(j, 4), "every rank of both hosts read OK", null);
                assertEquals(List.of(0, 1, 2, 3), job4.ranks().stream().map(RankView::rank).collect(Collectors.toList()));
                for (RankView r : job4.ranks()) {
                    assertEquals(r.rank() < 2 ? h1 : h2, r.host(), "rank " + r.rank() + "'s host");
                    HandleInfo world = r.process().handles().stream().filter(h -> "MPI_COMM_WORLD".equals(h.name())).findFirst()
                            .orElseThrow(() -> new AssertionError("MPI_COMM_WORLD of rank " + r.rank()));
                    assertEquals(r.rank(), world.rank());
                    assertEquals(4, world.size());
                }
                assertTrue(handles.shownJob().summary().startsWith("MPI job " + id + " on this host and " + h1 + ", " + h2
                        + " \u2014 4 ranks, "), handles.shownJob().summary());
                // rank 2 (second host) opened down to its communicators: rows read on that host, shown here
                page.setPartState(page.getReference(handles), IWorkbenchPage.STATE_MAXIMIZED);
                waitUntil("MPI_COMM_WORLD's row under rank 2 in MPI Handles", () -> {
                    HandleTree t = handles.tree();
                    HandleTree.RankNode r2 = t.ranks().get(2);
                    handles.viewer().setExpandedState(r2, true);
                    for (HandleTree.KindNode k : t.kinds(r2)) {
                        if (k.kind() == HandleKind.COMMUNICATOR) handles.viewer().setExpandedState(k, true);
                    }
                    spin(100);
                    return t == handles.tree() && hasItem(handles.viewer().getTree().getItems(), "MPI_COMM_WORLD");
                });
                screenshotMaximized(page, handles, "across-hosts-handles.png");

                waitUntil("MPI Communicators shows the 4 ranks", () -> allOk(comms.shownJob(), 4));
                Box world = byTitle(CommunicatorBoxes.of(comms.shownJob())).get("MPI_COMM_WORLD");
                assertEquals("OK", world.state());
                assertEquals(List.of("r0", "r1", "r2", "r3"), world.cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
                waitUntil("MPI Hosts shows the 4 ranks", () -> allOk(hosts.shownJob(), 4));
                Map<String, Box> hostBoxes = byTitle(HostBoxes.of(hosts.shownJob()));
                assertEquals(List.of(h1, h2), HostBoxes.of(hosts.shownJob()).stream().map(Box::title).collect(Collectors.toList()));
                for (String h : List.of(h1, h2)) {
                    assertEquals("UP", hostBoxes.get(h).state(), h);
                    assertTrue(hostBoxes.get(h).subtitle().matches("2 processes; orted pid \\d+"), hostBoxes.get(h).subtitle());
                }
                screenshotMaximized(page, hosts, "across-hosts-hosts.png");

                // rank 2 killed on the second host (one PID namespace for all simulated hosts), the others released
                long pid2 = job4.rank(2).orElseThrow().process().pid();
                ProcessHandle.of(pid2).orElseThrow().destroyForcibly();
                JobView failed = refreshUntil(comms, j -> j.stateOf(2) == ProcessState.FAILED, "rank 2 FAILED", null);
                assertEquals(ProcessState.OK, failed.stateOf(0));
                assertEquals(ProcessState.OK, failed.stateOf(3));
                Files.createFile(control.resolve("ready.go"));
                waitUntil("the 3 survivors enter the barrier", START.toMillis(),
                        () -> job.output().stream().filter(l -> l.contains("MPILENS-BARRIER ")).count() >= 3);
                // a row per survivor in the barrier, flagged; the picture says they never complete
                refreshUntil(calls, j -> List.of(0, 1, 3).stream().allMatch(r -> calls.shownRows().stream().anyMatch(row ->
                        row.rank() == r && row.cell(CallRows.Column.CALL).equals("barrier")
                                && row.cell(CallRows.Column.ON).equals("MPI_COMM_WORLD")
                                && row.cell(CallRows.Column.VERDICT).equals("NEVER COMPLETES: FAILED [2]"))),
                        "the survivors' barrier never completes", null);
                assertTrue(calls.shownText().contains("\nranks 0 1 3 never complete: they wait for a FAILED rank"),
                        calls.shownText());
                screenshotMaximized(page, calls, "across-hosts-calls.png");
                Map<String, Box> after = byTitle(CommunicatorBoxes.of(comms.shownJob()));
                assertEquals("DETECTED", after.get("MPI_COMM_WORLD").state());
                assertEquals("FAILED", after.get("MPI_COMM_WORLD").cells().get(2).detail());
                screenshotMaximized(page, comms, "across-hosts-communicators.png");
                Map<String, Box> hostsAfter = byTitle(HostBoxes.of(hosts.shownJob()));
                assertEquals("UP", hostsAfter.get(h1).state());
                assertEquals("PARTIAL", hostsAfter.get(h2).state());
                assertTrue(hosts.timelineText().lines().anyMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d  rank 2: \\w+ \u2192 FAILED  .*")),
                        hosts.timelineText());
                assertTrue(hosts.timelineText().contains("host " + h2 + ": UP \u2192 PARTIAL"), hosts.timelineText());
                screenshotMaximized(page, hosts, "across-hosts-hosts-after.png");
            } finally {
                endShownJobs(); // their collectors too
            }
        }
    }

    /**
     * An MPI Java Application launch whose mpirun arguments put the ranks on the two simulated hosts:
     * the delegate gives the job an id of its own, attaches no debugger (the ranks' JDWP ports are
     * on their hosts) and the MPI views follow the job through a collector on each host, which the
     * console says; the job then ends by itself.
     */
    @Test
    void aLaunchWhoseMpirunPutsRanksOnOtherHostsIsShownThroughCollectors() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        Path control = Files.createDirectories(ROOT.resolve("plugin.tests/target/simhosts-launch-" + ProcessHandle.current().pid()));
        // the collector command on the hosts, as eclipse.ini's -Dmpilens.remote would give it
        System.setProperty("mpilens.remote", "java -jar " + cli);
        try (SimulatedHosts two = SimulatedHosts.up("mlsul", 2)) {
            String h1 = two.names().get(0), h2 = two.names().get(1), rsh = two.rshAgent().toString();
            debugPerspective();
            ILaunchConfiguration config = MpiViewsInWorkbenchTest.configuration("mpi-across-hosts", "openmpi",
                    "io.mpilens.examples.openmpi.HangAfterFailure", "-Dmpilens.control=" + control,
                    new MpiLaunchSettings(Binding.OPENMPI, 4, "--mca plm_rsh_agent " + rsh + " --mca plm_rsh_no_tree_spawn 1 --host "
                            + h1 + ":2," + h2 + ":2", ""));
            ILaunch launch = inBackground("the launch delegate starts the job on the two hosts",
                    () -> config.launch(ILaunchManager.DEBUG_MODE, new NullProgressMonitor()));
            MpiJobProcess process = (MpiJobProcess) launch.getProcesses()[0];
            try {
                assertEquals(0, launch.getDebugTargets().length, "no debugger attached to ranks on other hosts");
                JobAcrossHosts across = MpiJob.of(launch).elsewhere();
                assertTrue(across != null && across.jobId().startsWith("eclipse-"), "the launch's job reads the ranks across hosts");
                assertEquals(List.of(h1, h2), across.hosts());
                String console = process.getStreamsProxy().getOutputStreamMonitor().getContents();
                assertTrue(console.contains("[mpilens] ranks on other hosts (" + h1 + ", " + h2 + ", from mpirun's --host), job "
                        + across.jobId() + ": no debugger is attached to them"), console);

                IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
                window.getShell().setBounds(0, 0, 1280, 1000);
                IWorkbenchPage page = window.getActivePage();
                HostsView hosts = (HostsView) page.showView(HostsView.ID);
                JobView job4 = refreshUntil(hosts, j -> allOk(j, 4), "every rank of the launch read OK on its host", null);
                for (RankView r : job4.ranks()) assertEquals(r.rank() < 2 ? h1 : h2, r.host(), "rank " + r.rank() + "'s host");
                assertEquals(List.of(h1, h2), HostBoxes.of(job4).stream().map(Box::title).collect(Collectors.toList()));
                screenshotMaximized(page, hosts, "across-hosts-launch-hosts.png");

                Files.createFile(control.resolve("ready.go"));
                waitUntil("the job ends by itself", START.toMillis(), process::isTerminated);
                assertEquals(0, process.getExitValue(), process.getStreamsProxy().getOutputStreamMonitor().getContents());
            } finally {
                if (!process.isTerminated()) process.terminate();
                DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
            }
        } finally {
            System.clearProperty("mpilens.remote");
        }
    }

    /**
     * An MPI Java Application launch with ranks both here and on a simulated host ({@code --host
     * THIS:2,H1:2}): ranks 0 and 1, on this host, are debugged (a JDT debug target each, as in a
     * launch on one host: a suspend holds one of them), ranks 2 and 3 are read by a collector on
     * the other host, and the MPI views show the four as one job: one MPI_COMM_WORLD of four, both
     * hosts, each rank's handles.
     */
    @Test
    void aLaunchWithRanksHereAndElsewhereDebugsTheLocalOnesAndShowsAllInOneJob() throws Exception {
        Path cli = SimulatedHosts.assumeCollectorsCanRun();
        Path control = Files.createDirectories(ROOT.resolve("plugin.tests/target/simhosts-mixed-" + ProcessHandle.current().pid()));
        System.setProperty("mpilens.remote", "java -jar " + cli);
        String here = HostName.local();
        try (SimulatedHosts one = SimulatedHosts.up("mlsum", 1)) {
            String h1 = one.names().get(0);
            debugPerspective();
            ILaunchConfiguration config = MpiViewsInWorkbenchTest.configuration("mpi-mixed-hosts", "openmpi",
                    "io.mpilens.examples.openmpi.HangAfterFailure", "-Dmpilens.control=" + control,
                    new MpiLaunchSettings(Binding.OPENMPI, 4, "--mca plm_rsh_agent " + one.rshAgent()
                            + " --mca plm_rsh_no_tree_spawn 1 --host " + here + ":2," + h1 + ":2", ""));
            ILaunch launch = inBackground("the launch delegate starts the job here and on " + h1,
                    () -> config.launch(ILaunchManager.DEBUG_MODE, new NullProgressMonitor()));
            MpiJobProcess process = (MpiJobProcess) launch.getProcesses()[0];
            try {
                List<String> targets = new ArrayList<>();
                for (IDebugTarget t : launch.getDebugTargets()) {
                    assertTrue(t instanceof IJavaDebugTarget, t + " is a JDT Java debug target");
                    targets.add(t.getName().replaceAll(":\\d+\\)", ")"));
                }
                assertEquals(List.of("rank 0 (127.0.0.1)", "rank 1 (127.0.0.1)"), targets,
                        "the ranks on this host are debugged, those on " + h1 + " are not");
                MpiJob mpiJob = MpiJob.of(launch);
                assertTrue(launch instanceof MpiLaunch && mpiJob == launch.getAdapter(MpiJob.class), "the MPI launch holds its job");
                assertEquals(List.of(h1), mpiJob.elsewhere().hosts(), "a collector reads the other host");
                String console = process.getStreamsProxy().getOutputStreamMonitor().getContents();
                assertTrue(console.contains("[mpilens] ranks on other hosts (" + h1 + ", from mpirun's --host), job "
                        + mpiJob.elsewhere().jobId() + ": no debugger is attached to them"), console);
                assertTrue(console.contains("; ranks 0 1 on this host are debugged, one debug target each"), console);

                IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
                window.getShell().setBounds(0, 0, 1280, 1000);
                IWorkbenchPage page = window.getActivePage();
                IDebugView debug = (IDebugView) page.showView(IDebugUIConstants.ID_DEBUG_VIEW);
                IDebugTarget rank0 = launch.getDebugTargets()[0];
                waitUntil("the Debug view selects rank 0's debug target", () -> {
                    MpiViewsInWorkbenchTest.selectInDebugView(debug, rank0);
                    return DebugUITools.getDebugContext() == rank0;
                });
                HandlesView handles = (HandlesView) page.showView(HandlesView.ID);
                CommunicatorsView comms = (CommunicatorsView) page.showView(CommunicatorsView.ID);
                HostsView hosts = (HostsView) page.showView(HostsView.ID);
                for (JobViewPart v : List.of(handles, comms, hosts)) {
                    assertSame(mpiJob, v.job(), v.getTitle() + " follows the job of the selected debug target, by its adapter");
                }
                JobView job4 = refreshUntil(hosts, j -> allOk(j, 4), "the 4 ranks, here and on " + h1 + ", read OK", null);
                assertTrue(job4.name().endsWith(" on this host and " + h1), job4.name());
                for (RankView r : job4.ranks()) {
                    assertEquals(r.rank() < 2 ? here : h1, r.host(), "rank " + r.rank() + "'s host");
                    assertTrue(r.rank() < 2 ? r.target().startsWith("rank " + r.rank() + " (127.0.0.1:")
                            : r.target().contains("on " + h1), "rank " + r.rank() + " read by " + r.target());
                    HandleInfo world = r.process().handles().stream().filter(h -> "MPI_COMM_WORLD".equals(h.name())).findFirst()
                            .orElseThrow(() -> new AssertionError("MPI_COMM_WORLD of rank " + r.rank()));
                    assertEquals(4, world.size());
                }
                Map<String, Box> hostBoxes = byTitle(HostBoxes.of(job4));
                assertEquals(Set.of(here, h1), hostBoxes.keySet());
                assertTrue(hostBoxes.get(h1).subtitle().matches("2 processes; orted pid \\d+"), hostBoxes.get(h1).subtitle());
                assertTrue(hostBoxes.get(here).subtitle().startsWith("2 processes"), hostBoxes.get(here).subtitle());
                waitUntil("MPI Communicators shows the 4 ranks", () -> allOk(comms.shownJob(), 4));
                Box world = byTitle(CommunicatorBoxes.of(comms.shownJob())).get("MPI_COMM_WORLD");
                assertEquals("OK", world.state());
                assertEquals(List.of("r0", "r1", "r2", "r3"), world.cells().stream().map(Box.Cell::label).collect(Collectors.toList()));

                // rank 0 is debugged as on one host: suspended, the views say so, rank 2 runs on elsewhere
                inBackground("rank 0 suspends", () -> {
                    rank0.suspend();
                    return null;
                });
                waitUntil("rank 0 suspended", rank0::isSuspended);
                JobView suspended = refreshUntil(handles, j -> allOk(j, 4) && j.rank(0).orElseThrow().suspended(),
                        "the views show rank 0 suspended", null);
                assertTrue(!suspended.rank(1).orElseThrow().suspended() && !suspended.rank(2).orElseThrow().suspended(),
                        "only rank 0 is suspended");
                page.bringToTop(hosts);
                page.bringToTop(handles);
                page.activate(debug);
                spin(1000);
                screenshot(window.getShell(), "MPI launch with ranks here and on " + h1, "mixed-hosts-workbench.png");
                screenshotMaximized(page, hosts, "mixed-hosts-hosts.png");
                inBackground("rank 0 resumes", () -> {
                    rank0.resume();
                    return null;
                });

                Files.createFile(control.resolve("ready.go"));
                waitUntil("the job ends by itself", START.toMillis(), process::isTerminated);
                assertEquals(0, process.getExitValue(), process.getStreamsProxy().getOutputStreamMonitor().getContents());
                waitUntil("the launch terminates with the job", launch::isTerminated);
            } finally {
                if (!process.isTerminated()) process.terminate();
                DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
            }
        } finally {
            System.clearProperty("mpilens.remote");
        }
    }

    /** Terminates and removes the launches of jobs only shown (read across hosts): their collectors end. */
    private static void endShownJobs() throws Exception {
        for (ILaunch l : DebugPlugin.getDefault().getLaunchManager().getLaunches()) {
            if (l instanceof MpiLaunch m && m.getProcesses().length == 0 && m.getDebugTargets().length == 0) {
                if (m.canTerminate()) m.terminate();
                DebugPlugin.getDefault().getLaunchManager().removeLaunch(m);
            }
        }
    }

    /**
     * Runs "Show MPI Job Across Hosts..." as a user does: the command opens its dialog (modal: this
     * thread waits in it, so the dialog is driven from timer runnables its event loop runs), the
     * job id and collector command are typed and OK pressed with {@code badHost} in the hosts field,
     * then, with the message the dialog showed for it kept in {@code problems}, again with the
     * field empty. A dialog still open after a minute is closed (the test then fails on what it saw).
     */
    private static void runDialog(IWorkbenchWindow window, String jobId, String badHost, String remote, List<String> problems)
            throws Exception {
        Display d = window.getShell().getDisplay();
        Throwable[] failed = new Throwable[1];
        int[] step = {0};
        Runnable[] driver = new Runnable[1];
        driver[0] = () -> {
            Shell dialog = dialog(d);
            if (dialog == null) {
                if (step[0] < 2) d.timerExec(100, driver[0]);
                return;
            }
            try {
                if (step[0] == 0) {
                    ((Text) field(dialog, "job")).setText(jobId);
                    ((Text) field(dialog, "hosts")).setText(badHost);
                    assertEquals("ssh", ((Combo) field(dialog, "via")).getText(), "the default way");
                    ((Text) field(dialog, "remote")).setText(remote);
                    press(dialog, "OK");
                    step[0] = 1;
                    d.timerExec(300, driver[0]);
                } else if (step[0] == 1) {
                    problems.add(((Label) field(dialog, "problem")).getText());
                    screenshot(dialog, dialog.getText(), "across-hosts-dialog.png");
                    ((Text) field(dialog, "hosts")).setText("");
                    step[0] = 2;
                    press(dialog, "OK");
                }
            } catch (Throwable t) {
                failed[0] = t;
                step[0] = 2;
                dialog.close();
            }
        };
        d.timerExec(200, driver[0]);
        d.timerExec(60_000, () -> {
            Shell left = dialog(d);
            if (left != null) left.close();
        });
        window.getService(IHandlerService.class).executeCommand("io.mpilens.commands.jobAcrossHosts", null);
        if (failed[0] instanceof Exception e) throw e;
        if (failed[0] instanceof Error e) throw e;
    }

    private static Shell dialog(Display d) {
        for (Shell sh : d.getShells()) if (!sh.isDisposed() && ShowJobAcrossHostsHandler.TITLE.equals(sh.getText())) return sh;
        return null;
    }

    /** The dialog's widget named {@code name} ({@link ShowJobAcrossHostsHandler#FIELD}), null if none below {@code c}. */
    private static Control find(Composite c, String name) {
        for (Control k : c.getChildren()) {
            if (name.equals(k.getData(ShowJobAcrossHostsHandler.FIELD))) return k;
            Control found = k instanceof Composite inner ? find(inner, name) : null;
            if (found != null) return found;
        }
        return null;
    }

    private static Control field(Shell dialog, String name) {
        Control c = find(dialog, name);
        if (c == null) throw new AssertionError("no field '" + name + "' in " + dialog.getText());
        return c;
    }

    /** Presses the button labelled {@code label} below {@code c}, as a click does. */
    private static boolean press(Composite c, String label) {
        for (Control k : c.getChildren()) {
            if (k instanceof Button b && label.equals(b.getText())) {
                b.notifyListeners(SWT.Selection, new Event());
                return true;
            }
            if (k instanceof Composite inner && press(inner, label)) return true;
        }
        return false;
    }

    /** Refresh (the views' toolbar action) until {@code done} holds for what {@code view} shows; the job shown then. */
    private static JobView refreshUntil(JobViewPart view, Predicate<JobView> done, String what, IStatus first) {
        long deadline = System.currentTimeMillis() + START.toMillis();
        List<String> seen = new ArrayList<>();
        if (first != null) seen.add("first round: " + first.getMessage());
        while (true) {
            JobView j = view.shownJob();
            if (j != null && done.test(j)) return j;
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting until " + what + "; " + seen + "; shown: "
                        + (j == null ? "nothing" : j.summary()));
            }
            MpiJob job = view.job();
            JobView before = job.current();
            job.refresh();
            waitUntil("a round over both hosts", START.toMillis(), () -> job.current() != before);
            spin(200);
            seen.add(job.current().summary());
            if (seen.size() > 6) seen.remove(first == null ? 0 : 1);
        }
    }

    private static boolean hasItem(TreeItem[] items, String name) {
        for (TreeItem i : items) {
            if (name.equals(i.getText(0)) || i.getExpanded() && hasItem(i.getItems(), name)) return true;
        }
        return false;
    }

    private static boolean allOk(JobView j, int ranks) {
        return j != null && j.ranks().size() == ranks
                && j.ranks().stream().allMatch(r -> r.process() != null && r.state() == ProcessState.OK);
    }

    private static Map<String, Box> byTitle(List<Box> boxes) {
        return boxes.stream().collect(Collectors.toMap(Box::title, b -> b, (a, b) -> a));
    }


}
