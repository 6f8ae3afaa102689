package io.mpilens.plugin.tests;

import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.START;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.awaitPause;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.debugPerspective;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.inBackground;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.lineAfterPause;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.release;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.screenshot;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.screenshotMaximized;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.selectInDebugView;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.spin;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.stoppedAtBreakpoint;
import static io.mpilens.plugin.tests.MpiViewsInWorkbenchTest.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.plugin.launch.MpiJobProcess;
import io.mpilens.plugin.launch.MpiLaunchSettings;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.share.JobShare;
import io.mpilens.plugin.model.Box;
import io.mpilens.plugin.model.CommunicatorBoxes;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import io.mpilens.plugin.views.CommunicatorsView;
import io.mpilens.plugin.views.HandlesView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchConfigurationType;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.core.model.IThread;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.debug.ui.IDebugView;
import org.eclipse.jdt.core.IClasspathEntry;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.debug.core.IJavaDebugTarget;
import org.eclipse.jdt.debug.core.IJavaLineBreakpoint;
import org.eclipse.jdt.debug.core.IJavaStackFrame;
import org.eclipse.jdt.debug.core.JDIDebugModel;
import org.eclipse.jdt.launching.IJavaLaunchConfigurationConstants;
import org.eclipse.jdt.launching.JavaRuntime;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;

/**
 * Eclipse's own <i>Remote Java Application</i> launch (JDT's, socket attach, nothing of mpilens)
 * attached to rank 1 of a real 4-rank Open MPI job through the job's share ({@link JobShare}, what
 * {@code mpilens share --job ID} runs, here in the workbench's JVM), while the MPI views show the
 * whole job: rank 1 through the launch's debug target, the other ranks through the share's ports.
 * A line breakpoint stops rank 1's main thread in the debugger; the views still read every rank, and
 * rank 1 stays stopped. Disconnecting the debugger leaves the rank running and the share serving it. And an
 * MPI Java Application launch that is asked to share its job.
 */
class ShareInWorkbenchTest {
    private static final Path ROOT = Paths.get(System.getProperty("mpilens.root", "..")).toAbsolutePath().normalize();
    private static final String TOUR = "io.mpilens.examples.openmpi.HandleTour";
    private static final int BREAK_LINE = lineAfterPause(ROOT.resolve("examples/openmpi/src/main/java/io/mpilens/examples/openmpi/HandleTour.java"),
            "orphans", "world.barrier();");
    private static final int DEBUGGED = 1;

    @Test
    void aRemoteJavaApplicationThroughTheShareDebugsOneRankWhileTheMpiViewsShowTheJob() throws Exception {
        Path control = Files.createTempDirectory("mpilens-share-ui-");
        String jobId = "share-ui-" + ProcessHandle.current().pid();
        JobDirectory jobs = JobDirectory.forCurrentUser(System.getenv());
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, TOUR)
                .classPath(List.of(ROOT.resolve("examples/support/target/classes"), ROOT.resolve("examples/openmpi/target/classes")))
                .agentJar(ROOT.resolve("runtime-agent/target/mpilens-agent.jar")).jdwp(true).controlDir(control)
                .env("MPILENS_JOB", jobId).build();
        List<String> shareLog = new CopyOnWriteArrayList<>();
        try (Job job = Job.launch(spec); JobShare share = new JobShare(jobs, jobId, 0, Duration.ofSeconds(10), shareLog::add)) {
            awaitPause(job, "created");
            // the share as 'mpilens share --job ID' runs it: rounds in a thread of its own until the job ends
            Thread serving = new Thread(() -> {
                try {
                    share.serve(() -> { });
                } catch (Exception e) {
                    shareLog.add("serve ended: " + e);
                }
            }, "test: mpilens share " + jobId);
            serving.setDaemon(true);
            serving.start();
            waitUntil(() -> "the share serves the 4 ranks; its log: " + shareLog, START.toMillis(), () -> share.served().size() == 4);
            JobShare.Served rank1 = share.served().stream().filter(s -> s.rank() == DEBUGGED).findFirst().orElseThrow();
            JdwpAddress port = rank1.share().address();
            assertEquals("127.0.0.1", port.host(), "a share listens on loopback only");

            debugPerspective();
            IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
            window.getShell().setBounds(0, 0, 1280, 1000);
            IWorkbenchPage page = window.getActivePage();
            ILaunch launch = inBackground("a Remote Java Application attaches to rank 1's share port", () -> remoteJavaApplication(port)
                    .launch(ILaunchManager.DEBUG_MODE, new NullProgressMonitor()));
            try {
                assertEquals(1, launch.getDebugTargets().length, "JDT's one debug target");
                IDebugTarget target = launch.getDebugTargets()[0];
                assertTrue(target instanceof IJavaDebugTarget, target + " is JDT's Java debug target");
                assertEquals(4, share.served().size(), "the share still holds every rank");

                IDebugView debug = (IDebugView) page.showView(IDebugUIConstants.ID_DEBUG_VIEW);
                waitUntil("the Debug view selects the Remote Java Application's target", () -> {
                    selectInDebugView(debug, target);
                    return DebugUITools.getDebugContext() == target;
                });
                HandlesView handles = (HandlesView) page.showView(HandlesView.ID);
                CommunicatorsView comms = (CommunicatorsView) page.showView(CommunicatorsView.ID);
                waitUntil("the views follow the Remote Java Application's launch", () -> handles.job() != null
                        && handles.job().launch() == launch && comms.job() == handles.job());
                JobView created = awaitJob(handles, j -> allOk(j), "4 ranks read OK at 'created'");
                assertEquals(List.of(0, 1, 2, 3), created.ranks().stream().map(RankView::rank).collect(Collectors.toList()));
                assertTrue(created.name().startsWith("MPI job " + jobId + " ("), created.name());
                assertEquals(target.getName(), created.rank(DEBUGGED).orElseThrow().target(),
                        "rank 1 is read through the launch's own debug target");
                for (int r : List.of(0, 2, 3)) {
                    String label = created.rank(r).orElseThrow().target();
                    String served = share.served().stream().filter(s -> s.rank() == r).findFirst().orElseThrow().share().address().toString();
                    assertEquals("rank " + r + " (through the share, " + served + ")", label, "rank " + r + " read through its share port");
                }
                for (RankView r : created.ranks()) {
                    HandleInfo world = r.process().handles().stream().filter(h -> "MPI_COMM_WORLD".equals(h.name())).findFirst()
                            .orElseThrow(() -> new AssertionError("MPI_COMM_WORLD of rank " + r.rank()));
                    assertEquals(4, world.size());
                    assertEquals(r.rank(), world.rank());
                }

                // a line breakpoint in the debugger: only rank 1 has a debug target, so only rank 1 stops there
                IJavaLineBreakpoint bp = JDIDebugModel.createLineBreakpoint(ResourcesPlugin.getWorkspace().getRoot(), TOUR,
                        BREAK_LINE, -1, -1, 0, true, null);
                try {
                    release(control, "created");
                    awaitPause(job, "orphans");
                    release(control, "orphans");
                    waitUntil("rank 1 stops at HandleTour.java:" + BREAK_LINE + " in the debugger", START.toMillis(),
                            () -> stoppedAtBreakpoint(target) != null);
                    IThread stopped = stoppedAtBreakpoint(target);
                    IJavaStackFrame top = (IJavaStackFrame) stopped.getTopStackFrame();
                    assertEquals(BREAK_LINE, top.getLineNumber());
                    assertEquals("main", top.getMethodName());
                    assertNotNull(top.findVariable("world"), "the debugger reads rank 1's locals through the share");

                    // the views read again while rank 1's thread is stopped: every rank, the others waiting in the barrier
                    JobView before = handles.shownJob();
                    JobView stoppedJob = awaitJob(handles, j -> j != before && allOk(j),
                            "4 ranks read OK while rank 1 is stopped at its breakpoint");
                    assertEquals(target.getName(), stoppedJob.rank(DEBUGGED).orElseThrow().target());
                    assertNotNull(stoppedAtBreakpoint(target), "the views' reads leave rank 1 stopped at its breakpoint");
                    waitUntil("MPI Communicators shows the 4 ranks", () -> allOk(comms.shownJob()));
                    Box world = CommunicatorBoxes.of(comms.shownJob()).stream().filter(b -> b.title().equals("MPI_COMM_WORLD"))
                            .findFirst().orElseThrow();
                    assertEquals(List.of("r0", "r1", "r2", "r3"), world.cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
                    selectInDebugView(debug, top);
                    spin(1000);
                    screenshot(window.getShell(), "Remote Java Application through the share", "share-remote-java-workbench.png");
                    screenshotMaximized(page, handles, "share-remote-java-handles.png");
                    screenshotMaximized(page, comms, "share-remote-java-communicators.png");

                    // on: rank 1 joins the barrier, all four reach the next pause
                    stopped.resume();
                    awaitPause(job, "released");
                    JobView atRelease = handles.shownJob();
                    awaitJob(handles, j -> j != atRelease && allOk(j), "4 ranks read OK again at 'released'");
                } finally {
                    bp.delete();
                }
            } finally {
                inBackground("the Remote Java Application disconnects", () -> {
                    for (IDebugTarget t : launch.getDebugTargets()) if (t.canDisconnect()) t.disconnect();
                    return null;
                });
                DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
            }
            // the debugger gone: the rank runs on, the share still holds it on the same port
            assertTrue(job.isAlive(), "the job runs on after the debugger disconnected: " + job.output());
            spin(500);
            assertEquals(port, share.served().stream().filter(s -> s.rank() == DEBUGGED).findFirst().orElseThrow().share().address(),
                    "rank 1's share port is kept");
            assertFalse(rank1.share().vm().ended().isDone(), "the share's connection to rank 1 stays");
            waitUntil("no client left on rank 1's share", () -> rank1.share().vm().clients() == 0);
        } finally {
            try (var files = Files.walk(control)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(f);
            }
        }
    }

    /**
     * An MPI Java Application launch with "Share each rank's debugger connection" checked: the
     * launch gives the job an id, shares every rank JVM (its console lists the ports), attaches
     * its own debug targets through the share's ports, and another debugger (a JDI socket attach,
     * as IntelliJ IDEA's Remote JVM Debug makes it) attaches to a rank beside Eclipse; the
     * {@code --job} reads go through the share; terminating the launch ends the share.
     */
    @Test
    void anMpiLaunchAskedToShareAttachesThroughItsShareAndAnotherDebuggerAttachesBeside() throws Exception {
        Path control = Files.createTempDirectory("mpilens-share-launch-");
        debugPerspective();
        ILaunchConfigurationWorkingCopy wc = MpiViewsInWorkbenchTest.configuration("mpi-share-launch", "openmpi", TOUR,
                "-Dmpilens.control=" + control, new MpiLaunchSettings(Binding.OPENMPI, 4, "", "")).getWorkingCopy();
        wc.setAttribute(MpiLaunchSettings.ATTR_SHARE, true);
        org.eclipse.debug.core.ILaunchConfiguration config = wc.doSave();
        ILaunch launch = inBackground("the launch starts the job, shares it and attaches through the share",
                () -> config.launch(ILaunchManager.DEBUG_MODE, new NullProgressMonitor()));
        MpiJobProcess process = (MpiJobProcess) launch.getProcesses()[0];
        JobDirectory jobs = JobDirectory.forCurrentUser(System.getenv());
        String jobId;
        try {
            String console = process.getStreamsProxy().getOutputStreamMonitor().getContents();
            Matcher m = Pattern.compile("\\[mpilens\\] job (eclipse-[0-9a-f-]+) shared: ").matcher(console);
            assertTrue(m.find(), console);
            jobId = m.group(1);
            List<JobRecord> records = jobs.job(jobId).records();
            assertEquals(4, records.size(), records.toString());
            List<String> names = new ArrayList<>();
            for (IDebugTarget t : launch.getDebugTargets()) names.add(t.getName());
            for (JobRecord r : records) {
                assertNotNull(r.share(), "rank " + r.rank() + " is served by the launch's share");
                assertEquals("127.0.0.1", JdwpAddress.parse(r.share()).host());
                assertTrue(console.contains("rank " + r.rank() + " at " + r.share()), console);
                assertEquals("rank " + r.rank() + " (" + r.share() + ")", names.get(r.rank()),
                        "Eclipse's target of rank " + r.rank() + " attached through its share port");
            }

            // another debugger on rank 2's share port while Eclipse's target is attached there too
            JobRecord rank2 = records.stream().filter(r -> r.rank() == 2).findFirst().orElseThrow();
            com.sun.jdi.VirtualMachine other = inBackground("a second debugger attaches to rank 2's share port",
                    () -> socketAttach(JdwpAddress.parse(rank2.share())));
            try {
                assertTrue(other.allThreads().stream().anyMatch(t -> t.name().equals("main")), "the second debugger sees rank 2's threads");
            } finally {
                other.dispose();
            }

            // the MPI views, through the launch's targets; and a --job read, through the share
            awaitPause(process.job(), "created");
            IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
            window.getShell().setBounds(0, 0, 1280, 1000);
            IWorkbenchPage page = window.getActivePage();
            IDebugView debug = (IDebugView) page.showView(IDebugUIConstants.ID_DEBUG_VIEW);
            IDebugTarget rank0 = launch.getDebugTargets()[0];
            waitUntil("the Debug view selects rank 0's target", () -> {
                selectInDebugView(debug, rank0);
                return DebugUITools.getDebugContext() == rank0;
            });
            HandlesView handles = (HandlesView) page.showView(HandlesView.ID);
            JobView shown = awaitJob(handles, j -> allOk(j), "the views show the 4 ranks read through the share");
            assertEquals(List.of(0, 1, 2, 3), shown.ranks().stream().map(RankView::rank).collect(Collectors.toList()));
            io.mpilens.headless.ft.JobModel read = inBackground("a --job read of the shared job",
                    () -> JobObserver.forJob(jobs, jobId, Duration.ofSeconds(20)).observe());
            for (io.mpilens.headless.ft.RankStatus r : read.processes()) {
                assertEquals(ProcessState.OK, r.state(), "rank " + r.rank() + ": " + r.evidence());
                String port = records.stream().filter(x -> x.rank() == r.rank()).findFirst().orElseThrow().share();
                assertEquals(port, r.address(), "rank " + r.rank() + " read through its share port");
            }
            assertEquals(4, read.processes().size());
            org.eclipse.ui.IViewPart consoleView = page.showView("org.eclipse.ui.console.ConsoleView");
            spin(1000);
            screenshot(window.getShell(), "MPI launch with its share", "share-mpi-launch-workbench.png");
            assertNotNull(consoleView);
        } finally {
            inBackground("the launch terminates", () -> {
                launch.terminate();
                return null;
            });
            DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
        }
        Path jobDir = jobs.root().resolve(jobId);
        waitUntil("the share ends with the launch (its ports file removed)", START.toMillis(), () -> {
            try (var files = Files.list(jobDir)) {
                return files.noneMatch(f -> f.getFileName().toString().startsWith("share-"));
            } catch (java.io.IOException e) {
                return true; // the job's directory went with it
            }
        });
    }

    /** A JDI socket attach, as IntelliJ IDEA's "Remote JVM Debug" and VS Code's "attach" make it. */
    private static com.sun.jdi.VirtualMachine socketAttach(JdwpAddress at) throws Exception {
        for (com.sun.jdi.connect.AttachingConnector c : org.eclipse.jdi.Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (!c.name().equals("com.sun.jdi.SocketAttach")) continue;
            Map<String, com.sun.jdi.connect.Connector.Argument> args = c.defaultArguments();
            args.get("hostname").setValue(at.host());
            args.get("port").setValue(Integer.toString(at.port()));
            return c.attach(args);
        }
        throw new AssertionError("no socket attach connector");
    }

    /**
     * A saved Remote Java Application configuration as a user makes it on the Connect tab: standard
     * socket attach to {@code at}, source from a Java project holding the example's classes.
     */
    private static org.eclipse.debug.core.ILaunchConfiguration remoteJavaApplication(JdwpAddress at) throws Exception {
        IProject project = ResourcesPlugin.getWorkspace().getRoot().getProject("mpi-share-remote");
        if (!project.exists()) project.create(null);
        project.open(null);
        IProjectDescription d = project.getDescription();
        d.setNatureIds(new String[] {JavaCore.NATURE_ID});
        project.setDescription(d, null);
        IJavaProject jp = JavaCore.create(project);
        jp.setRawClasspath(new IClasspathEntry[] {
            MpiViewsInWorkbenchTest.library("examples/support/target/classes", "examples/support/src/main/java"),
            MpiViewsInWorkbenchTest.library("examples/openmpi/target/classes", "examples/openmpi/src/main/java"),
            JavaRuntime.getDefaultJREContainerEntry()}, project.getFullPath().append("bin"), null);
        ILaunchConfigurationType type = DebugPlugin.getDefault().getLaunchManager()
                .getLaunchConfigurationType(IJavaLaunchConfigurationConstants.ID_REMOTE_JAVA_APPLICATION);
        assertNotNull(type, "JDT's Remote Java Application launch type");
        ILaunchConfigurationWorkingCopy wc = type.newInstance(null, "rank 1 through the share");
        wc.setAttribute(IJavaLaunchConfigurationConstants.ATTR_PROJECT_NAME, project.getName());
        wc.setAttribute(IJavaLaunchConfigurationConstants.ATTR_VM_CONNECTOR, IJavaLaunchConfigurationConstants.ID_SOCKET_ATTACH_VM_CONNECTOR);
        wc.setAttribute(IJavaLaunchConfigurationConstants.ATTR_CONNECT_MAP, Map.of("hostname", at.host(), "port", Integer.toString(at.port())));
        wc.setAttribute(IJavaLaunchConfigurationConstants.ATTR_ALLOW_TERMINATE, false);
        return wc.doSave();
    }

    /** Refreshes the views until {@code done} holds for what {@code view} shows; the job shown then. */
    private static JobView awaitJob(HandlesView view, java.util.function.Predicate<JobView> done, String what) {
        long deadline = System.currentTimeMillis() + START.toMillis();
        List<String> seen = new ArrayList<>();
        while (true) {
            JobView j = view.shownJob();
            if (j != null && done.test(j)) return j;
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting until " + what + "; last shown: " + seen);
            }
            if (j != null) {
                seen.add(j.summary());
                if (seen.size() > 4) seen.remove(0);
            }
            if (view.job() != null) view.job().refresh();
            spin(1000);
        }
    }

    private static boolean allOk(JobView j) {
        return j != null && j.ranks().size() == 4
                && j.ranks().stream().allMatch(r -> r.process() != null && r.state() == ProcessState.OK);
    }
}
