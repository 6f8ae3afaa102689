package io.mpilens.plugin.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.plugin.debug.MpiJob;
import io.mpilens.plugin.dumps.HeapDumpViews;
import io.mpilens.plugin.launch.MpiJobProcess;
import io.mpilens.plugin.launch.MpiLaunchSettings;
import io.mpilens.plugin.model.Box;
import io.mpilens.plugin.model.CommunicatorBoxes;
import io.mpilens.plugin.model.HandleColumn;
import io.mpilens.plugin.model.HandleFilter;
import io.mpilens.plugin.model.HandleFilter.LifecycleChoice;
import io.mpilens.plugin.model.HandleTree;
import io.mpilens.plugin.model.HostBoxes;
import io.mpilens.plugin.model.JobView;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.plugin.model.RankView;
import io.mpilens.plugin.model.Rgb;
import io.mpilens.plugin.model.StatePalette;
import io.mpilens.plugin.views.CommunicatorsView;
import io.mpilens.plugin.views.HandlesView;
import io.mpilens.plugin.views.HostsView;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.plugin.views.JobViewPart;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.eclipse.core.filesystem.EFS;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationType;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.ILogicalStructureType;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IDebugElement;
import org.eclipse.debug.core.model.IValue;
import org.eclipse.debug.core.model.IVariable;
import org.eclipse.debug.internal.ui.viewers.model.provisional.ITreeModelViewer;
import org.eclipse.debug.internal.ui.views.variables.VariablesView;
import org.eclipse.debug.core.model.ISuspendResume;
import org.eclipse.debug.core.model.IThread;
import org.eclipse.debug.core.model.IStackFrame;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.debug.ui.IDebugView;
import org.eclipse.jdt.core.IClasspathEntry;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.debug.core.IJavaDebugTarget;
import org.eclipse.jdt.debug.core.IJavaLineBreakpoint;
import org.eclipse.jdt.debug.core.IJavaStackFrame;
import org.eclipse.jdt.debug.core.IJavaVariable;
import org.eclipse.jdt.debug.core.JDIDebugModel;
import org.eclipse.jdt.launching.IJavaLaunchConfigurationConstants;
import org.eclipse.jdt.launching.JavaRuntime;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.jface.viewers.TreeSelection;
import org.eclipse.jface.viewers.TreePath;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.TreeViewer;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.graphics.ImageData;
import org.eclipse.swt.graphics.ImageLoader;
import org.eclipse.swt.graphics.Point;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.TreeItem;
import org.eclipse.jface.text.ITextSelection;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.ide.IDE;
import org.eclipse.ui.texteditor.ITextEditor;
import org.junit.jupiter.api.Test;

/**
 * A real IDE workbench (under Xvfb), a real 4-rank Open MPI HandleTour with the agent and JDWP,
 * one JDT Java debug target per rank under one launch: the three MPI views show it, follow the
 * Debug view's selection, and mark a rank killed with SIGKILL as failed.
 */
class MpiViewsInWorkbenchTest {
    private static final Path ROOT = Paths.get(System.getProperty("mpilens.root", "..")).toAbsolutePath().normalize();
    private static final Path SHOTS = Paths.get(System.getProperty("mpilens.screenshots", "target/screenshots"));
    static final Duration START = Duration.ofSeconds(90);
    private static final long UI_WAIT_MILLIS = 60_000;
    private static final String TOUR = "io.mpilens.examples.openmpi.HandleTour";
    /** {@code world.barrier()} right after the "orphans" pause, found in the tour's source. */
    private static final int BREAK_LINE = lineAfterPause(ROOT.resolve("examples/openmpi/src/main/java/io/mpilens/examples/openmpi/HandleTour.java"),
            "orphans", "world.barrier();");

    /**
     * The line of the first {@code call} after the tour's {@code p = "point";}: a breakpoint
     * that follows the example when lines are added to it.
     */
    static int lineAfterPause(Path source, String point, String call) {
        try {
            List<String> lines = java.nio.file.Files.readAllLines(source);
            boolean inPoint = false;
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i).trim();
                if (l.equals("p = \"" + point + "\";")) inPoint = true;
                else if (inPoint && l.equals(call)) return i + 1;
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new IllegalStateException("no " + call + " after the \"" + point + "\" pause in " + source);
    }

    @Test
    void anMpiJavaApplicationLaunchShowsItsRanksInTheMpiViewsAndAKilledRankFails() throws Exception {
        Path control = Files.createTempDirectory("mpilens-ui-test-");
        debugPerspective();
        ILaunchConfiguration config = tourConfiguration(control);
        ILaunch launch = inBackground("the launch delegate starts the job and attaches",
                () -> config.launch(ILaunchManager.DEBUG_MODE, new NullProgressMonitor()));
        assertEquals(1, launch.getProcesses().length, "the job is the launch's one process");
        Job job = ((MpiJobProcess) launch.getProcesses()[0]).job();
        Path dump = control.resolve("rank0.hprof");
        List<Long> pids = new ArrayList<>(List.of(job.pid()));
        try {
            List<String> names = new ArrayList<>();
            for (IDebugTarget t : launch.getDebugTargets()) {
                assertTrue(t instanceof IJavaDebugTarget, t + " is a JDT Java debug target");
                names.add(t.getName().replaceAll(":\\d+\\)", ")"));
            }
            assertEquals(List.of("rank 0 (127.0.0.1)", "rank 1 (127.0.0.1)", "rank 2 (127.0.0.1)", "rank 3 (127.0.0.1)"), names);
            for (String arg : List.of("-javaagent:", JobSpec.JDWP_QUIET_OPTION, "--mca orte_abort_on_non_zero_status 0", "-np 4")) {
                assertTrue(String.join(" ", job.command()).contains(arg), "the launcher's command has " + arg + ": " + job.command());
            }
            awaitPause(job, "created");
            release(control, "created");
            awaitPause(job, "orphans");
            checkViews(launch);
            for (RankView r : MpiJob.of(launch).current().ranks()) pids.add(r.process().pid());
            assertEquals(5, pids.size(), "mpirun and 4 rank JVMs: " + pids);
            long rank0 = pids.get(1);
            inBackground("jcmd dumps rank 0's heap", () -> jcmdHeapDump(rank0, dump));
            breakpointOnEveryRankAndResumeOne(launch, control);
            killRankTwo(launch);
        } finally {
            inBackground("the launch terminates", () -> {
                launch.terminate();
                return null;
            });
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        }
        assertTrue(launch.isTerminated(), "the launch is terminated");
        waitUntil("no process of the job is left (mpirun, rank JVMs " + pids + ")", () -> pids.stream()
                .map(ProcessHandle::of).flatMap(Optional::stream).noneMatch(ProcessHandle::isAlive));
        try {
            openHeapDumps(dump, control.resolve("no-agent.hprof"));
        } finally {
            Files.deleteIfExists(dump);
            Files.deleteIfExists(control.resolve("no-agent.hprof"));
        }
    }

    /**
     * The MPI views open in the active page follow the job of {@code element} (as when the Debug
     * view selects it), which is read again; that job.
     */
    static MpiJob follow(Object element) {
        IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
        MpiJob job = MpiJob.of(element);
        for (org.eclipse.ui.IViewReference r : page.getViewReferences()) {
            if (r.getPart(false) instanceof JobViewPart v) {
                v.follow(element);
                job = v.job();
            }
        }
        assertNotNull(job, element + " adapts to an MPI job");
        job.refresh();
        return job;
    }

    /** In the Debug perspective a suspend does not ask whether to switch to it (a modal dialog). */
    static void debugPerspective() throws Exception {
        IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
        PlatformUI.getWorkbench().showPerspective(IDebugUIConstants.ID_DEBUG_PERSPECTIVE, window);
    }

    /** A Java project holding the example's classes (with their sources) and a launch configuration of it. */
    private static ILaunchConfiguration tourConfiguration(Path control) throws Exception {
        // jcmd (the heap dump below) reaches a JVM whose threads a debugger suspends only through an attach listener started beforehand;
        // survivors keep running when one rank is killed (Open MPI's default aborts the job)
        return configuration("mpi-tour", "openmpi", TOUR, "-Dmpilens.control=" + control + " -XX:+StartAttachListener",
                new MpiLaunchSettings(Binding.OPENMPI, 4, "--mca orte_abort_on_non_zero_status 0", ""));
    }

    /**
     * A Java project holding an example's classes (class folders with their sources, as a user's
     * project would) and a saved MPI Java Application configuration running {@code mainClass} from it.
     *
     * @param example the directory under {@code examples/} with the main class
     */
    static ILaunchConfiguration configuration(String projectName, String example, String mainClass, String vmArgs,
                                              MpiLaunchSettings settings) throws Exception {
        IProject project = ResourcesPlugin.getWorkspace().getRoot().getProject(projectName);
        if (!project.exists()) project.create(null);
        project.open(null);
        IProjectDescription d = project.getDescription();
        d.setNatureIds(new String[] {JavaCore.NATURE_ID});
        project.setDescription(d, null);
        IJavaProject jp = JavaCore.create(project);
        jp.setRawClasspath(new IClasspathEntry[] {
            library("examples/support/target/classes", "examples/support/src/main/java"),
            library("examples/" + example + "/target/classes", "examples/" + example + "/src/main/java"),
            JavaRuntime.getDefaultJREContainerEntry()}, project.getFullPath().append("bin"), null);

        ILaunchConfigurationType type = DebugPlugin.getDefault().getLaunchManager()
                .getLaunchConfigurationType(MpiLaunchSettings.TYPE_ID);
        assertNotNull(type, "the MPI Java Application launch type is registered");
        assertEquals("MPI Java Application", type.getName());
        ILaunchConfigurationWorkingCopy wc = type.newInstance(null, mainClass.substring(mainClass.lastIndexOf('.') + 1)
                + " in " + projectName);
        wc.setAttribute(IJavaLaunchConfigurationConstants.ATTR_PROJECT_NAME, project.getName());
        wc.setAttribute(IJavaLaunchConfigurationConstants.ATTR_MAIN_TYPE_NAME, mainClass);
        wc.setAttribute(IJavaLaunchConfigurationConstants.ATTR_VM_ARGUMENTS, vmArgs);
        settings.attributes().forEach((k, v) -> {
            if (v instanceof Integer i) wc.setAttribute(k, i.intValue());
            else wc.setAttribute(k, (String) v);
        });
        return wc.doSave();
    }

    static IClasspathEntry library(String classes, String sources) {
        return JavaCore.newLibraryEntry(new org.eclipse.core.runtime.Path(ROOT.resolve(classes).toString()),
                new org.eclipse.core.runtime.Path(ROOT.resolve(sources).toString()), null);
    }

    /**
     * A line breakpoint right after the "orphans" pause: every rank stops there, each in its own
     * debug target; one rank resumed alone runs on while the others stay suspended.
     */
    private void breakpointOnEveryRankAndResumeOne(ILaunch launch, Path control) throws Exception {
        // the whole job at once: the launch suspends and resumes every rank's target (Debug view: select the launch)
        assertTrue(launch instanceof ISuspendResume, "the MPI launch suspends and resumes: " + launch.getClass());
        ISuspendResume all = (ISuspendResume) launch;
        assertTrue(all.canSuspend());
        all.suspend();
        for (IDebugTarget t : launch.getDebugTargets()) waitUntil(t.getName() + " suspended with the launch", t::isSuspended);
        assertTrue(all.isSuspended());
        assertTrue(all.canResume());
        all.resume();
        for (IDebugTarget t : launch.getDebugTargets()) waitUntil(t.getName() + " resumed with the launch", () -> !t.isSuspended());

        IJavaLineBreakpoint bp = JDIDebugModel.createLineBreakpoint(ResourcesPlugin.getWorkspace().getRoot(), TOUR,
                BREAK_LINE, -1, -1, 0, true, null);
        try {
            release(control, "orphans");
            IDebugTarget[] targets = launch.getDebugTargets();
            for (IDebugTarget t : targets) {
                waitUntil(t.getName() + " stops at HandleTour.java:" + BREAK_LINE, () -> stoppedAtBreakpoint(t) != null);
                IJavaStackFrame top = (IJavaStackFrame) stoppedAtBreakpoint(t).getTopStackFrame();
                assertEquals(BREAK_LINE, top.getLineNumber());
                assertEquals("main", top.getMethodName());
            }
            IThread rank3 = stoppedAtBreakpoint(targets[3]);
            rank3.resume();
            waitUntil("rank 3 runs on alone", () -> !rank3.isSuspended());
            for (int r = 0; r < 3; r++) assertNotNull(stoppedAtBreakpoint(targets[r]), "rank " + r + " is still suspended");
            targets[3].suspend(); // the whole rank 3 JVM, waiting in the barrier
            waitUntil("rank 3 suspended", targets[3]::isSuspended);
            checkHandleVariable(launch);
        } finally {
            bp.delete();
        }
    }

    static IThread stoppedAtBreakpoint(IDebugTarget t) {
        try {
            for (IThread th : t.getThreads()) {
                if (th.isSuspended() && th.getBreakpoints().length > 0) return th;
            }
            return null;
        } catch (DebugException e) {
            return null;
        }
    }

    private void checkViews(ILaunch launch) throws Exception {
        IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
        PlatformUI.getWorkbench().showPerspective(IDebugUIConstants.ID_DEBUG_PERSPECTIVE, window);
        IWorkbenchPage page = window.getActivePage();
        window.getShell().setBounds(0, 0, 1280, 1000);
        IDebugView debug = (IDebugView) page.showView(IDebugUIConstants.ID_DEBUG_VIEW);
        IDebugTarget rank0 = launch.getDebugTargets()[0];
        waitUntil("the Debug view selects a rank's debug target", () -> {
            selectInDebugView(debug, rank0);
            return DebugUITools.getDebugContext() == rank0;
        });

        HandlesView handles = (HandlesView) page.showView(HandlesView.ID);
        CommunicatorsView comms = (CommunicatorsView) page.showView(CommunicatorsView.ID);
        HostsView hosts = (HostsView) page.showView(HostsView.ID);
        for (JobViewPart v : List.of(handles, comms, hosts)) {
            assertSame(MpiJob.of(launch), v.job(), v.getTitle() + " follows the launch of the Debug view's selection,"
                    + " by its adapter (the MPI launch holds its job)");
            assertSame(MpiJob.of(rank0), v.job(), "a rank's debug target adapts to its launch's job");
            waitUntil(v.getTitle() + " shows 4 ranks read", () -> allRead(v.shownJob(), 4));
        }
        waitUntilSettled(handles);

        // MPI Handles: rank 0 at the "orphans" pause
        JobView job = handles.shownJob();
        for (RankView r : job.ranks()) assertEquals(ProcessState.OK, r.state(), r.label());
        assertEquals(List.of(0, 1, 2, 3), job.ranks().stream().map(RankView::rank).collect(Collectors.toList()));
        page.setPartState(page.getReference(handles), IWorkbenchPage.STATE_MAXIMIZED);
        // a rank still arriving at its breakpoint makes the view read the job again and rebuild
        // its tree (new nodes, collapsed): expand and look again until the row is there
        TreeItem[] found = new TreeItem[1];
        HandleTree[] shown = new HandleTree[1];
        waitUntil(() -> "a row for tour-split-0 in MPI Handles; rank 0 shows "
                + handles.tree().kinds(handles.tree().ranks().get(0)), UI_WAIT_MILLIS, () -> {
            HandleTree t = handles.tree();
            HandleTree.RankNode r = t.ranks().get(0);
            handles.viewer().setExpandedState(r, true);
            for (HandleTree.KindNode k : t.kinds(r)) {
                if (k.kind() == HandleKind.COMMUNICATOR || k.kind() == HandleKind.DATATYPE || k.kind() == HandleKind.GROUP) {
                    handles.viewer().setExpandedState(k, true);
                }
            }
            spin(100);
            shown[0] = t;
            found[0] = t == handles.tree() ? findItem(handles.viewer().getTree().getItems(), "tour-split-0") : null;
            return found[0] != null;
        });
        HandleTree tree = shown[0];
        HandleTree.RankNode r0 = tree.ranks().get(0);
        TreeItem split = found[0];
        assertEquals("FREED (orphan)", split.getText(HandleColumn.STATE.ordinal()));
        // held by its pending receive, a request of the agent's ring: named by its short id
        assertTrue(split.getText(HandleColumn.REFS.ordinal()).matches("1 \u2190 #r\\d+"), split.getText(HandleColumn.REFS.ordinal()));
        assertEquals("0/2", split.getText(HandleColumn.RANK_SIZE.ordinal()));
        assertTrue(split.getText(HandleColumn.C_HANDLE.ordinal()).startsWith("0x"));
        assertTrue(split.getText(HandleColumn.CREATED_AT.ordinal()).contains("HandleTour.java:"));
        Rgb red = StatePalette.foreground(tree.rows(tree.kinds(r0).get(0)).stream()
                .filter(r -> r.handle().isOrphan()).findFirst().orElseThrow().handle());
        assertEquals(red.red(), split.getForeground(HandleColumn.STATE.ordinal()).getRed(), "orphans are drawn red");
        screenshot(handles, "mpi-handles.png");
        checkDetailsHoldersAndFilters(handles, tree, r0);
        page.setPartState(page.getReference(handles), IWorkbenchPage.STATE_RESTORED);

        // MPI Communicators: COMM_WORLD with 4 members, the two splits (orphans) derived from it
        Map<String, Box> boxes = byTitle(CommunicatorBoxes.of(comms.shownJob()));
        Box world = boxes.get("MPI_COMM_WORLD");
        assertEquals("OK", world.state());
        assertEquals(List.of("r0", "r1", "r2", "r3"), world.cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        assertEquals(List.of("r0", "r2"), boxes.get("tour-split-0").cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        assertTrue(boxes.get("tour-split-1").subtitle().contains("from MPI_COMM_WORLD"), boxes.get("tour-split-1").subtitle());
        assertTrue(boxes.get("tour-split-1").subtitle().contains("orphan on all ranks"), boxes.get("tour-split-1").subtitle());
        // the job's status word above the boxes: every rank OK (suspended at breakpoints or running)
        assertEquals("Status OK (0)", comms.statusText());
        screenshotMaximized(page, comms, "mpi-communicators.png");

        // MPI Hosts: one host, four processes
        List<Box> hostBoxes = HostBoxes.of(hosts.shownJob());
        assertEquals(1, hostBoxes.size());
        assertEquals("UP", hostBoxes.get(0).state());
        long launcher = ((MpiJobProcess) launch.getProcesses()[0]).job().pid();
        assertTrue(hostBoxes.get(0).subtitle().matches("4 processes; \\S+ pid " + launcher), "the launcher daemon: "
                + hostBoxes.get(0).subtitle());
        assertEquals(List.of("rank 0", "rank 1", "rank 2", "rank 3"),
                hostBoxes.get(0).cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        assertEquals("Status OK (0)", hosts.statusText());
        screenshotMaximized(page, hosts, "mpi-hosts.png");
    }

    private void killRankTwo(ILaunch launch) throws Exception {
        IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
        CommunicatorsView comms = (CommunicatorsView) page.showView(CommunicatorsView.ID);
        HostsView hosts = (HostsView) page.showView(HostsView.ID);
        JobView job = comms.shownJob();
        // kill rank 2 (kill -9 of its JVM): its debug target terminates, both state views mark it failed
        long pid = job.rank(2).orElseThrow().process().pid();
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        waitUntil("rank 2 FAILED in MPI Communicators", () -> comms.shownJob().stateOf(2) == ProcessState.FAILED);
        waitUntil("rank 2 FAILED in MPI Hosts", () -> hosts.shownJob().stateOf(2) == ProcessState.FAILED);
        JobView after = comms.shownJob();
        assertEquals(ProcessState.OK, after.stateOf(0));
        Map<String, Box> boxes = byTitle(CommunicatorBoxes.of(after));
        assertEquals("DETECTED", boxes.get("MPI_COMM_WORLD").state());
        assertEquals("FAILED", boxes.get("MPI_COMM_WORLD").cells().get(2).detail());
        assertEquals("DETECTED", boxes.get("tour-split-0").state());
        assertEquals("OK", boxes.get("tour-split-1").state());
        assertEquals("PARTIAL", HostBoxes.of(hosts.shownJob()).get(0).state());
        assertTrue(after.rank(2).orElseThrow().handleCount() > 0, "a dead rank keeps showing its last handles");
        String timeline = hosts.timelineText();
        assertTrue(timeline.lines().anyMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d  rank 2: \\w+ \u2192 FAILED  \\(process gone before MPI_Finalize\\)")),
                timeline);
        assertTrue(timeline.contains("comm MPI_COMM_WORLD: OK \u2192 DETECTED  (failed members [2])"), timeline);
        assertTrue(timeline.contains("host " + HostBoxes.of(after).get(0).title() + ": UP \u2192 PARTIAL"), timeline);
        // the status word: an error on another rank, in both views, and its change in the timeline
        waitUntil(() -> "ER_OTH in both views: " + comms.statusText() + " / " + hosts.statusText(), 30_000,
                () -> comms.statusText().startsWith("Status ER_OTH (8): ") && hosts.statusText().startsWith("Status ER_OTH (8): "));
        assertTrue(comms.statusText().contains("rank 2 FAILED"), comms.statusText());
        assertEquals(StatusWord.ER_OTH, after.model().status().bits(), after.model().status().line());
        assertTrue(timeline.lines().anyMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d  status: [A-Z0-9_+]+ \u2192 ER_OTH  \\(.*rank 2 FAILED.*\\)")),
                timeline);
        screenshotMaximized(page, comms, "mpi-communicators-rank2-killed.png");
        screenshotMaximized(page, hosts, "mpi-hosts-rank2-killed.png");
    }

    /**
     * Variables view at rank 0's breakpoint: variables holding MPI handles ({@code dup}, an
     * {@code mpi.Intracomm}; {@code recv}, the pending {@code mpi.Request}) show their registry
     * rows as children; so does {@code split}, freed by the application (the binding nulled its
     * native handle), found by identity in the agent's wrapper index: the orphan.
     */
    private void checkHandleVariable(ILaunch launch) throws Exception {
        IJavaStackFrame frame = (IJavaStackFrame) stoppedAtBreakpoint(launch.getDebugTargets()[0]).getTopStackFrame();
        IJavaVariable dup = frame.findVariable("dup");
        assertEquals("mpi.Intracomm", dup.getValue().getReferenceTypeName());
        ILogicalStructureType type = Arrays.stream(DebugPlugin.getLogicalStructureTypes(dup.getValue()))
                .filter(t -> t.getId().equals("io.mpilens.handleStructure")).findFirst().orElseThrow(
                        () -> new AssertionError("no MPI handle structure offered for mpi.Intracomm"));
        Map<String, String> fields = structure(type, dup);
        long pid = MpiJob.of(launch).current().rank(0).orElseThrow().process().pid();
        assertEquals("rank 0 of 4, pid " + pid, fields.get("Process"), fields.toString());
        assertEquals("COMMUNICATOR", fields.get("Kind"));
        assertEquals("ACTIVE", fields.get("State"));
        assertEquals("dup", fields.get("Creating call"));
        assertEquals("0", fields.get("Reference count"));
        assertEquals("0", fields.get("Rank"));
        assertEquals("4", fields.get("Size"));
        assertEquals("[0, 1, 2, 3]", fields.get("Members"));
        assertEquals("MPI_COMM_WORLD", structure(type, frame.findVariable("world")).get("Name"));

        Map<String, String> recv = structure(type, frame.findVariable("recv"));
        assertEquals("REQUEST", recv.get("Kind"), recv.toString());
        assertEquals("iRecv", recv.get("Creating call"), recv.toString());
        HandleInfo split = MpiJob.of(launch).current().rank(0).orElseThrow().process().handles().stream()
                .filter(h -> "tour-split-0".equals(h.name())).findFirst().orElseThrow();
        long holder = split.heldBy()[0];
        assertTrue(HandleIds.inRing(holder), "the receive is a request of the ring: " + holder);
        assertEquals(HandleIds.label(holder) + "  (ring request; id " + holder + ")", recv.get("Id"),
                "recv is what holds the orphan tour-split-0");
        // split was freed (its handle field nulled by the binding): found by identity, it is the orphan
        Map<String, String> freed = structure(type, frame.findVariable("split"));
        assertEquals("#" + split.id(), freed.get("Id"), freed.toString());
        assertEquals("COMMUNICATOR", freed.get("Kind"), freed.toString());
        assertEquals("FREED", freed.get("Lifecycle"), freed.toString());
        assertEquals("1", freed.get("Reference count"), freed.toString());

        // the same in the Variables view
        IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
        VariablesView variables = (VariablesView) page.showView(IDebugUIConstants.ID_VARIABLE_VIEW);
        variables.setShowLogicalStructure(true);
        selectFrame(page, variables, frame);
        TreeViewer viewer = (TreeViewer) variables.getViewer();
        List<String> rows = new ArrayList<>();
        String[] seen = {"nothing yet"};
        int[] emptyPolls = {0};
        // The Variables view is a virtual, asynchronously filled tree: a debug event from another
        // rank (or the logical-structure switch) refreshes it and may collapse or replace the item
        // after the first expansion, so ask again for as long as it is not expanded.
        waitUntil(() -> "dup's MPI handle fields appear in the Variables view; last seen: " + seen[0], UI_WAIT_MILLIS, () -> {
            rows.clear();
            Object context = DebugUITools.getDebugContext();
            if (!frame.equals(context)) {
                seen[0] = "the debug context was " + describe(context) + ", not rank 0's frame";
                System.out.println("Variables view check: " + seen[0] + "; selecting the frame again");
                selectFrame(page, variables, frame);
                return false;
            }
            TreeItem item = topItem(viewer, "dup");
            if (item == null) {
                List<String> top = new ArrayList<>();
                for (TreeItem i : viewer.getTree().getItems()) top.add(rowText(i));
                seen[0] = "no dup among the view's rows " + top;
                return false;
            }
            if (!item.getExpanded()) {
                seen[0] = "dup listed, collapsed (" + item.getItemCount() + " child items)";
                viewer.expandToLevel(item.getData(), 1);
                return false;
            }
            for (TreeItem child : item.getItems()) rows.add(rowText(child));
            seen[0] = "dup expanded, its rows " + rows;
            if (rows.isEmpty() && ++emptyPolls[0] % 20 == 0) {
                // expanded but its children never came (a refresh replaced them): ask again
                viewer.collapseToLevel(item.getData(), 1);
                viewer.refresh(item.getData());
            }
            return rows.stream().anyMatch(r -> r.startsWith("Members"));
        });
        assertTrue(rows.stream().anyMatch(r -> r.startsWith("State") && r.contains("ACTIVE")), rows.toString());
        assertTrue(rows.stream().anyMatch(r -> r.startsWith("Creating call") && r.contains("dup")), rows.toString());
        assertTrue(rows.stream().anyMatch(r -> r.startsWith("Members") && r.contains("[0, 1, 2, 3]")), rows.toString());
        if (viewer.getTree().getColumnCount() > 0) viewer.getTree().getColumn(0).setWidth(220);
        spin(300);
        screenshot(page.getWorkbenchWindow().getShell(), "the workbench", "variables-mpi-handle.png");
        page.setPartState(page.getReference(variables), IWorkbenchPage.STATE_RESTORED);
        spin(300);
        screenshot(page.getWorkbenchWindow().getShell(), "the workbench", "debug-perspective-mpi-launch.png");
    }

    /**
     * Post-mortem: rank 0's heap dump (written by jcmd at the "orphans" pause) opened like a file
     * in the workbench goes to the MPI views; a dump of a JVM without the agent says so.
     */
    private void openHeapDumps(Path dump, Path noAgent) throws Exception {
        IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
        HandlesView handles = (HandlesView) page.showView(HandlesView.ID);
        IDE.openEditorOnFileStore(page, EFS.getLocalFileSystem().getStore(dump.toUri()));
        waitUntil("the MPI views show rank 0's heap dump", START.toMillis(),
                () -> handles.shownJob().name().equals("Heap dump rank0.hprof (post-mortem)"));
        JobView job = handles.shownJob();
        assertEquals(List.of(0), job.ranks().stream().map(RankView::rank).collect(Collectors.toList()));
        RankView r0 = job.ranks().get(0);
        assertEquals(ProcessState.OK, r0.state());
        HandleInfo split = r0.process().handles().stream().filter(h -> "tour-split-0".equals(h.name())).findFirst().orElseThrow();
        assertTrue(split.isOrphan(), "the dump shows the orphan: " + split);
        assertEquals(1, split.refCount());
        HandleTree tree = handles.tree();
        assertTrue(tree.kinds(tree.ranks().get(0)).stream().flatMap(k -> tree.rows(k).stream())
                .anyMatch(r -> r.handle().equals(split)), "MPI Handles lists it");
        CommunicatorsView comms = (CommunicatorsView) page.showView(CommunicatorsView.ID);
        waitUntil("MPI Communicators shows the dump", () -> comms.shownJob() == job);
        Box world = byTitle(CommunicatorBoxes.of(job)).get("MPI_COMM_WORLD");
        assertEquals(List.of("OK", "UNAVAILABLE", "UNAVAILABLE", "UNAVAILABLE"),
                world.cells().stream().map(Box.Cell::detail).collect(Collectors.toList()), "only rank 0 was dumped");
        page.activate(handles);
        handles.viewer().setExpandedState(tree.ranks().get(0), true);
        spin(300);
        screenshotMaximized(page, handles, "mpi-handles-heap-dump.png");

        // this JVM has no mpilens agent: its dump has no registry
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(noAgent.toString(), true);
        org.eclipse.core.runtime.jobs.Job reading = HeapDumpViews.open(List.of(noAgent));
        waitUntil("the dump without a registry is read", START.toMillis(), () -> reading.getResult() != null);
        assertEquals(IStatus.WARNING, reading.getResult().getSeverity(), reading.getResult().toString());
        assertTrue(reading.getResult().getMessage().startsWith("no-agent.hprof has no mpilens registry: the dumped JVM ran"
                + " without the mpilens agent"), reading.getResult().getMessage());
        waitUntil("the views name the dump without a registry", () -> handles.shownJob().summary()
                .contains("heap dump no-agent.hprof UNAVAILABLE (no mpilens registry in this dump)"));
    }

    private static Path jcmdHeapDump(long pid, Path file) throws Exception {
        String javaCommand = ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElseThrow();
        Process p = new ProcessBuilder(Path.of(javaCommand).resolveSibling("jcmd").toString(), Long.toString(pid), "GC.heap_dump",
                file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0 && Files.isRegularFile(file),
                "jcmd " + pid + " GC.heap_dump: " + out);
        return file;
    }

    /** The children of a variable's MPI handle structure, by name; read off the UI thread. */
    static Map<String, String> structure(ILogicalStructureType type, IJavaVariable v) throws Exception {
        IValue value = v.getValue();
        IValue s = inBackground("the structure of " + v.getName() + " is read", () -> type.getLogicalStructure(value));
        Map<String, String> out = new LinkedHashMap<>();
        for (IVariable c : s.getVariables()) out.put(c.getName(), c.getValue().getValueString());
        return out;
    }

    /**
     * Makes {@code frame} the debug context, with the Variables view maximized afterwards. The
     * Debug view moves its selection on its own when a rank suspends (here to rank 3's frame, its
     * suspension just before): so the frame is selected until it has stayed the context for a
     * second, with the Debug view shown, then the Variables view maximized.
     */
    private static void selectFrame(IWorkbenchPage page, VariablesView variables, IStackFrame frame) {
        page.setPartState(page.getReference(variables), IWorkbenchPage.STATE_RESTORED);
        IDebugView debug = (IDebugView) showView(page, IDebugUIConstants.ID_DEBUG_VIEW);
        long[] since = {0};
        waitUntil(() -> "rank 0's frame stays the debug context; it is " + describe(DebugUITools.getDebugContext()),
                UI_WAIT_MILLIS, () -> {
                    if (!frame.equals(DebugUITools.getDebugContext())) {
                        selectInDebugView(debug, frame);
                        since[0] = 0;
                        return false;
                    }
                    if (since[0] == 0) since[0] = System.currentTimeMillis();
                    return System.currentTimeMillis() - since[0] >= 1000;
                });
        showView(page, IDebugUIConstants.ID_VARIABLE_VIEW);
        page.setPartState(page.getReference(variables), IWorkbenchPage.STATE_MAXIMIZED);
    }

    private static IViewPart showView(IWorkbenchPage page, String id) {
        try {
            return page.showView(id);
        } catch (PartInitException e) {
            throw new AssertionError("view " + id + " did not open", e);
        }
    }

    /**
     * Selects {@code element} in the Debug view, forced: its selection policy keeps a suspended
     * frame of another debug target selected against a plain {@code setSelection} (a frame of one
     * rank is "sticky" against an element of another), so without force a selection of rank 0
     * is silently ignored once a suspension selected rank 3's frame.
     */
    static void selectInDebugView(IDebugView debug, Object element) {
        ((ITreeModelViewer) debug.getViewer()).setSelection(debugViewPath(element), true, true);
    }

    /**
     * A debug element as a path from its launch (launch, target, thread, frame): the Debug view
     * finds an element by itself only once its row exists, which with many launches in the view
     * (the earlier tests') a new launch's target may not have yet.
     */
    private static ISelection debugViewPath(Object element) {
        if (!(element instanceof IDebugElement e)) return new StructuredSelection(element);
        List<Object> path = new ArrayList<>();
        path.add(e.getLaunch());
        if (!(e instanceof IDebugTarget)) path.add(e.getDebugTarget());
        if (e instanceof IStackFrame f) path.add(f.getThread());
        path.add(e);
        return new TreeSelection(new TreePath(path.toArray()));
    }

    /** A debug context for a failure message: a frame by its target, thread and line. */
    private static String describe(Object context) {
        if (!(context instanceof IStackFrame f)) return String.valueOf(context);
        try {
            return "frame " + f.getName() + " of " + f.getThread().getName() + " in " + f.getDebugTarget().getName();
        } catch (DebugException e) {
            return String.valueOf(context);
        }
    }

    private static TreeItem topItem(TreeViewer viewer, String name) {
        for (TreeItem i : viewer.getTree().getItems()) {
            if (rowText(i).startsWith(name)) return i;
        }
        return null;
    }

    /** Every column of a row, separated by a space (the Variables view may or may not show columns). */
    private static String rowText(TreeItem item) {
        int n = Math.max(1, item.getParent().getColumnCount());
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < n; c++) sb.append(c == 0 ? "" : " ").append(item.getText(c));
        return sb.toString().trim();
    }

    /** The details pane of the orphan tour-split-0, its holder, its creation site, and "only orphans". */
    private void checkDetailsHoldersAndFilters(HandlesView handles, HandleTree tree, HandleTree.RankNode r0) throws Exception {
        HandleTree.HandleRow split = tree.kinds(r0).stream().flatMap(k -> tree.rows(k).stream())
                .filter(r -> "tour-split-0".equals(r.handle().name())).findFirst().orElseThrow();
        handles.viewer().setSelection(new StructuredSelection(split), true);
        spin(300);
        String details = handles.detailsText();
        HandleInfo h = split.handle();
        long holder = h.heldBy()[0];
        for (String line : List.of("Name: tour-split-0", "Kind: COMMUNICATOR", "Id: #" + h.id(), "State: FREED (orphan)",
                "Lifecycle: FREED", "Predefined: no", "Leaked: no", "Reference count: 1", "Held by: " + HandleIds.label(holder), "Owner rank: 0",
                "Binding class: mpi.Intracomm", "C handle: 0x" + Long.toHexString(h.cHandle()), "Creating call: split", "Rank: 0",
                "Size: 2", "Members: [0, 2]", "Intercommunicator: no", "Derived from: #" + h.derivedFrom())) {
            assertTrue(details.contains(line + "\n"), "details pane has \"" + line + "\":\n" + details);
        }
        assertTrue(details.contains("Created at: io.mpilens.examples.openmpi.HandleTour.main(HandleTour.java:46)\n"), details);
        screenshot(handles, "mpi-handles-details.png");

        // a derived datatype: its constructor's arguments as HandleTour passed them (createVector(2, 1, 4, contig))
        HandleTree.HandleRow vector = tree.kinds(r0).stream().flatMap(k -> tree.rows(k).stream())
                .filter(r -> "createVector".equals(r.handle().constructor())).findFirst().orElseThrow();
        handles.viewer().setSelection(new StructuredSelection(vector), true);
        spin(300);
        String typeDetails = handles.detailsText();
        assertTrue(typeDetails.contains("Constructor: createVector\nArguments: (2, 1, 4, #" + vector.handle().parents()[0] + ")\n"),
                typeDetails);
        screenshot(handles, "mpi-handles-details-datatype.png");

        // HandleTour's padded struct {int @0, double @8, short @16}: the strip shows its data and holes
        HandleTree.HandleRow padded = tree.kinds(r0).stream().flatMap(k -> tree.rows(k).stream())
                .filter(r -> "createStruct".equals(r.handle().constructor())).findFirst().orElseThrow();
        handles.viewer().setSelection(new StructuredSelection(padded), true);
        spin(300);
        String structDetails = handles.detailsText();
        assertTrue(structDetails.contains("Type map: 3 runs, 14 of 24 bytes data\n"), structDetails);
        assertTrue(structDetails.contains("Holes: 10 bytes: 4..8, 18..24\n"), structDetails);
        assertNotNull(handles.typeMapStrip(), "the strip is shown for a datatype with a known map");
        assertEquals("[0,4) MPI_INT | [4,8) hole 4 | [8,16) MPI_DOUBLE | [16,18) MPI_SHORT | [18,24) hole 6",
                handles.typeMapStrip().describe());
        screenshot(handles, "mpi-handles-type-map.png");
        handles.viewer().setSelection(new StructuredSelection(split), true); // back to the orphan for its holders
        spin(300);
        assertNull(handles.typeMapStrip(), "no strip for a communicator");

        handles.showHolders();
        spin(300);
        List<?> selected = handles.viewer().getStructuredSelection().toList();
        assertEquals(1, selected.size(), "Show holders selects the one holder: " + selected);
        HandleTree.HandleRow held = (HandleTree.HandleRow) selected.get(0);
        assertEquals(holder, held.handle().id());
        assertEquals(HandleKind.REQUEST, held.handle().kind());
        assertEquals("iRecv", held.handle().creatingCall());
        assertEquals("1 handle holds tour-split-0", handles.statusMessage());
        screenshot(handles, "mpi-handles-holders.png");

        // the launched project has HandleTour (class folder with its sources): "Open creation site" opens line 46
        handles.viewer().setSelection(new StructuredSelection(split), true);
        spin(100);
        IWorkbenchPage page = handles.getSite().getPage();
        handles.openCreationSite();
        waitUntil("an editor opens HandleTour at the line that created tour-split-0", () -> {
            IEditorPart e = page.getActiveEditor();
            return e instanceof ITextEditor t && e.getTitle().startsWith("HandleTour")
                    && t.getSelectionProvider().getSelection() instanceof ITextSelection sel && sel.getStartLine() == 45;
        });
        ITextEditor editor = (ITextEditor) page.getActiveEditor();
        ITextSelection line = (ITextSelection) editor.getSelectionProvider().getSelection();
        assertTrue(line.getText().contains("world.split(rank % 2, rank)"), line.getText());
        page.closeEditor(editor, false);
        page.activate(handles);
        spin(200);

        // only orphans: exactly the FREED handles of every rank's snapshot
        Set<String> orphans = new TreeSet<>();
        for (RankView r : tree.job().ranks()) {
            for (HandleInfo x : r.process().handles()) if (x.isOrphan()) orphans.add("rank " + r.rank() + " #" + x.id() + " " + HandleColumn.displayName(x));
        }
        assertTrue(orphans.size() >= 8, "HandleTour frees a split and a datatype on each rank: " + orphans);
        handles.setFilter(new HandleFilter(null, LifecycleChoice.ORPHANS, ""));
        spin(500);
        HandleTree filtered = handles.tree();
        Set<String> shown = new TreeSet<>();
        for (HandleTree.RankNode r : filtered.ranks()) {
            for (HandleTree.KindNode k : filtered.kinds(r)) {
                for (HandleTree.HandleRow x : filtered.rows(k)) shown.add("rank " + r.rank() + " #" + x.handle().id() + " " + HandleColumn.displayName(x.handle()));
            }
        }
        assertEquals(orphans, shown, "only orphans shows exactly the orphans");
        List<String> rowsOnScreen = new ArrayList<>();
        collectLeaves(handles.viewer().getTree().getItems(), rowsOnScreen);
        assertEquals(orphans.size(), rowsOnScreen.size(), "every orphan is a row on screen: " + rowsOnScreen);
        assertTrue(rowsOnScreen.stream().allMatch("FREED (orphan)"::equals), rowsOnScreen.toString());
        screenshot(handles, "mpi-handles-only-orphans.png");
        handles.setFilter(HandleFilter.ALL);
        spin(200);
    }

    /** The state column of the expanded handle rows (depth 4: job, rank, kind, handle). */
    private static void collectLeaves(TreeItem[] items, List<String> out) {
        for (TreeItem i : items) {
            String state = i.getText(HandleColumn.STATE.ordinal()); // a virtual item gets its data when read
            if (i.getData() instanceof HandleTree.HandleRow) out.add(state);
            else if (i.getExpanded()) collectLeaves(i.getItems(), out);
        }
    }

    /** Waits (running the event loop) until the 4 ranks print that they pause at {@code point}. */
    static void awaitPause(Job job, String point) {
        waitUntil("4 ranks pause at " + point, START.toMillis(), () -> job.output().stream()
                .filter(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=" + point)).count() >= 4);
    }

    static void release(Path control, String point) throws Exception {
        Files.createFile(control.resolve(point + ".go"));
    }

    /** Runs {@code work} off the UI thread (it talks JDWP) while the event loop runs. */
    static <T> T inBackground(String what, Callable<T> work) throws Exception {
        FutureTask<T> task = new FutureTask<>(work);
        Thread t = new Thread(task, "test: " + what);
        t.start();
        waitUntil(what, START.toMillis(), task::isDone);
        try {
            return task.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
    }

    private static boolean allRead(JobView job, int ranks) {
        return job != null && job.ranks().size() == ranks && job.ranks().stream().allMatch(r -> r.process() != null);
    }

    private static Map<String, Box> byTitle(List<Box> boxes) {
        return boxes.stream().collect(Collectors.toMap(Box::title, b -> b, (a, b) -> a));
    }

    private static TreeItem findItem(TreeItem[] items, String name) {
        for (TreeItem i : items) {
            if (name.equals(i.getText(0))) return i;
            if (i.getExpanded()) {
                TreeItem found = findItem(i.getItems(), name);
                if (found != null) return found;
            }
        }
        return null;
    }

    /**
     * Until the view has shown the same job for a second: ranks still arriving at their
     * breakpoints make it read the job again, and each read rebuilds its tree.
     */
    static void waitUntilSettled(JobViewPart view) {
        Object[] last = {view.shownJob()};
        long[] since = {System.currentTimeMillis()};
        waitUntil(view.getTitle() + " stops changing", () -> {
            Object now = view.shownJob();
            if (now != last[0]) {
                last[0] = now;
                since[0] = System.currentTimeMillis();
            }
            return System.currentTimeMillis() - since[0] >= 1000;
        });
    }

    static void waitUntil(String what, BooleanSupplier condition) {
        waitUntil(what, UI_WAIT_MILLIS, condition);
    }

    static void waitUntil(String what, long millis, BooleanSupplier condition) {
        waitUntil(() -> what, millis, condition);
    }

    /** Like the others; {@code what} is asked for only on time-out, so it can tell what was seen last. */
    static void waitUntil(Supplier<String> what, long millis, BooleanSupplier condition) {
        long deadline = System.currentTimeMillis() + millis;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("timed out waiting until " + what.get());
            spin(50);
        }
    }

    /** Runs the UI event loop for a while (the test runs on the UI thread). */
    static void spin(long millis) {
        Display d = Display.getCurrent();
        long end = System.currentTimeMillis() + millis;
        while (System.currentTimeMillis() < end) {
            while (d.readAndDispatch()) {
                // drain
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** A screenshot of {@code view} (an MPI view) maximized, then restored. */
    static void screenshotMaximized(IWorkbenchPage page, IViewPart view, String file) throws Exception {
        page.activate(view);
        Control c = ((JobViewPart) view).partControl();
        Point restored = c.getSize();
        org.eclipse.ui.IWorkbenchPartReference ref = page.getReference(view);
        // the Debug UI can show a suspended thread's source meanwhile, which brings the editor area
        // back beside the maximized view: hidden again until it stays hidden, then painted
        boolean editors = page.isEditorAreaVisible();
        long deadline = System.currentTimeMillis() + 5_000;
        do {
            if (page.isEditorAreaVisible()) page.setEditorAreaVisible(false);
            if (page.getPartState(ref) != IWorkbenchPage.STATE_MAXIMIZED) page.setPartState(ref, IWorkbenchPage.STATE_MAXIMIZED);
            spin(300);
        } while ((page.isEditorAreaVisible() || c.getSize().equals(restored)) && System.currentTimeMillis() < deadline);
        screenshot((JobViewPart) view, file);
        page.setPartState(ref, IWorkbenchPage.STATE_RESTORED);
        page.setEditorAreaVisible(editors);
        spin(200);
    }

    private static void screenshot(JobViewPart view, String file) throws Exception {
        screenshot(view.partControl(), view.getTitle(), file);
    }

    static void screenshot(Control c, String title, String file) throws Exception {
        c.update();
        Point size = c.getSize();
        assertTrue(size.x > 200 && size.y > 150, title + " is too small to read: " + size);
        Image image = new Image(c.getDisplay(), size.x, size.y);
        GC gc = new GC(c);
        try {
            gc.copyArea(image, 0, 0);
            ImageLoader loader = new ImageLoader();
            loader.data = new ImageData[] {image.getImageData()};
            Files.createDirectories(SHOTS);
            loader.save(SHOTS.resolve(file).toString(), SWT.IMAGE_PNG);
        } finally {
            gc.dispose();
            image.dispose();
        }
    }
}
