package io.mpilens.plugin.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.plugin.debug.JobAttach;
import io.mpilens.plugin.debug.MpiJobs;
import io.mpilens.plugin.model.Box;
import io.mpilens.plugin.model.CommunicatorBoxes;
import io.mpilens.plugin.model.HandleColumn;
import io.mpilens.plugin.model.HandleFilter;
import io.mpilens.plugin.model.HandleFilter.LifecycleChoice;
import io.mpilens.plugin.model.HandleTree;
import io.mpilens.plugin.model.HostBoxes;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.ProcessState;
import io.mpilens.plugin.model.RankView;
import io.mpilens.plugin.model.Rgb;
import io.mpilens.plugin.model.StatePalette;
import io.mpilens.plugin.views.CommunicatorsView;
import io.mpilens.plugin.views.HandlesView;
import io.mpilens.plugin.views.HostsView;
import io.mpilens.plugin.views.JobViewPart;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.IDebugUIConstants;
import org.eclipse.debug.ui.IDebugView;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.graphics.ImageData;
import org.eclipse.swt.graphics.ImageLoader;
import org.eclipse.swt.graphics.Point;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.TreeItem;
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.Test;

/**
 * A real IDE workbench (under Xvfb), a real 4-rank Open MPI HandleTour with the agent and JDWP,
 * one JDT Java debug target per rank under one launch: the three MPI views show it, follow the
 * Debug view's selection, and mark a rank killed with SIGKILL as failed.
 */
class MpiViewsInWorkbenchTest {
    private static final Path ROOT = Paths.get(System.getProperty("mpilens.root", "..")).toAbsolutePath().normalize();
    private static final Path SHOTS = Paths.get(System.getProperty("mpilens.screenshots", "target/screenshots"));
    private static final Duration START = Duration.ofSeconds(90);
    private static final long UI_WAIT_MILLIS = 30_000;

    @Test
    void theMpiViewsShowARealFourRankJobAndMarkAKilledRankFailed() throws Exception {
        Path control = Files.createTempDirectory("mpilens-ui-test-");
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi.HandleTour")
                .classPath(ROOT.resolve("examples/support/target/classes"), ROOT.resolve("examples/openmpi/target/classes"))
                .agentJar(ROOT.resolve("runtime-agent/target/mpilens-agent.jar")).jdwp(true).controlDir(control)
                // survivors keep running when one rank is killed (Open MPI's default aborts the job)
                .mpirunArgs(List.of("--mca", "orte_abort_on_non_zero_status", "0"))
                .build();
        try (Job job = Job.launch(spec)) {
            List<String> addresses = job.awaitJdwpAddresses(START);
            awaitPause(job, "created");
            job.release("created");
            awaitPause(job, "orphans");
            ILaunch launch = attach(addresses);
            try {
                checkViews(launch);
            } finally {
                for (IDebugTarget t : launch.getDebugTargets()) {
                    if (t.canDisconnect()) t.disconnect();
                }
                DebugPlugin.getDefault().getLaunchManager().removeLaunch(launch);
            }
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
            debug.getViewer().setSelection(new StructuredSelection(rank0), true);
            return DebugUITools.getDebugContext() == rank0;
        });

        HandlesView handles = (HandlesView) page.showView(HandlesView.ID);
        CommunicatorsView comms = (CommunicatorsView) page.showView(CommunicatorsView.ID);
        HostsView hosts = (HostsView) page.showView(HostsView.ID);
        assertSame(launch, MpiJobs.get().launch(), "the views follow the launch of the Debug view's selection");
        for (JobViewPart v : List.of(handles, comms, hosts)) {
            waitUntil(v.getTitle() + " shows 4 ranks read", () -> allRead(v.shownJob(), 4));
        }

        // MPI Handles: rank 0 at the "orphans" pause
        JobView job = handles.shownJob();
        for (RankView r : job.ranks()) assertEquals(ProcessState.OK, r.state(), r.label());
        assertEquals(List.of(0, 1, 2, 3), job.ranks().stream().map(RankView::rank).collect(Collectors.toList()));
        HandleTree tree = handles.tree();
        HandleTree.RankNode r0 = tree.ranks().get(0);
        page.setPartState(page.getReference(handles), IWorkbenchPage.STATE_MAXIMIZED);
        spin(300);
        handles.viewer().setExpandedState(r0, true);
        spin(300);
        for (HandleTree.KindNode k : tree.kinds(r0)) {
            if (k.kind() == HandleKind.COMMUNICATOR || k.kind() == HandleKind.DATATYPE || k.kind() == HandleKind.GROUP) {
                handles.viewer().setExpandedState(k, true);
                spin(200);
            }
        }
        spin(500);
        TreeItem split = findItem(handles.viewer().getTree().getItems(), "tour-split-0");
        assertNotNull(split, "a row for tour-split-0 in MPI Handles");
        assertEquals("FREED (orphan)", split.getText(HandleColumn.STATE.ordinal()));
        assertTrue(split.getText(HandleColumn.REFS.ordinal()).startsWith("1 \u2190 #"), split.getText(HandleColumn.REFS.ordinal()));
        assertEquals("0/2", split.getText(HandleColumn.RANK_SIZE.ordinal()));
        assertTrue(split.getText(HandleColumn.C_HANDLE.ordinal()).startsWith("0x"));
        assertTrue(split.getText(HandleColumn.CREATED_AT.ordinal()).contains("HandleTour.java:"));
        Rgb red = StatePalette.foreground(tree.rows(tree.kinds(r0).get(0)).stream()
                .filter(r -> r.handle().isOrphan()).findFirst().orElseThrow().handle());
        assertEquals(red.red(), split.getForeground(HandleColumn.STATE.ordinal()).getRed(), "orphans are drawn red");
        screenshot(handles, "mpi-handles.png");
        checkDetailsHoldersAndFilters(handles, r0);
        page.setPartState(page.getReference(handles), IWorkbenchPage.STATE_RESTORED);

        // MPI Communicators: COMM_WORLD with 4 members, the two splits (orphans) derived from it
        Map<String, Box> boxes = byTitle(CommunicatorBoxes.of(comms.shownJob()));
        Box world = boxes.get("MPI_COMM_WORLD");
        assertEquals("OK", world.state());
        assertEquals(List.of("r0", "r1", "r2", "r3"), world.cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        assertEquals(List.of("r0", "r2"), boxes.get("tour-split-0").cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        assertTrue(boxes.get("tour-split-1").subtitle().contains("from MPI_COMM_WORLD"), boxes.get("tour-split-1").subtitle());
        assertTrue(boxes.get("tour-split-1").subtitle().contains("orphan on all ranks"), boxes.get("tour-split-1").subtitle());
        screenshotMaximized(page, comms, "mpi-communicators.png");

        // MPI Hosts: one host, four processes
        List<Box> hostBoxes = HostBoxes.of(hosts.shownJob());
        assertEquals(1, hostBoxes.size());
        assertEquals("UP", hostBoxes.get(0).state());
        assertEquals(List.of("rank 0", "rank 1", "rank 2", "rank 3"),
                hostBoxes.get(0).cells().stream().map(Box.Cell::label).collect(Collectors.toList()));
        screenshotMaximized(page, hosts, "mpi-hosts.png");

        // kill rank 2: its debug target terminates, both state views mark it failed
        long pid = job.rank(2).orElseThrow().process().pid();
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        waitUntil("rank 2 FAILED in MPI Communicators", () -> comms.shownJob().stateOf(2) == ProcessState.FAILED);
        waitUntil("rank 2 FAILED in MPI Hosts", () -> hosts.shownJob().stateOf(2) == ProcessState.FAILED);
        JobView after = comms.shownJob();
        assertEquals(ProcessState.OK, after.stateOf(0));
        boxes = byTitle(CommunicatorBoxes.of(after));
        assertEquals("DETECTED", boxes.get("MPI_COMM_WORLD").state());
        assertEquals("FAILED", boxes.get("MPI_COMM_WORLD").cells().get(2).detail());
        assertEquals("DETECTED", boxes.get("tour-split-0").state());
        assertEquals("OK", boxes.get("tour-split-1").state());
        assertEquals("PARTIAL", HostBoxes.of(hosts.shownJob()).get(0).state());
        assertTrue(after.rank(2).orElseThrow().handleCount() > 0, "a dead rank keeps showing its last handles");
        screenshotMaximized(page, comms, "mpi-communicators-rank2-killed.png");
        screenshotMaximized(page, hosts, "mpi-hosts-rank2-killed.png");
    }

    /** The details pane of the orphan tour-split-0, its holder, its creation site, and "only orphans". */
    private void checkDetailsHoldersAndFilters(HandlesView handles, HandleTree.RankNode r0) throws Exception {
        HandleTree tree = handles.tree();
        HandleTree.HandleRow split = tree.kinds(r0).stream().flatMap(k -> tree.rows(k).stream())
                .filter(r -> "tour-split-0".equals(r.handle().name())).findFirst().orElseThrow();
        handles.viewer().setSelection(new StructuredSelection(split), true);
        spin(300);
        String details = handles.detailsText();
        HandleInfo h = split.handle();
        long holder = h.heldBy()[0];
        for (String line : List.of("Name: tour-split-0", "Kind: COMMUNICATOR", "Id: #" + h.id(), "State: FREED (orphan)",
                "Lifecycle: FREED", "Predefined: no", "Leaked: no", "Reference count: 1", "Held by: #" + holder, "Owner rank: 0",
                "Binding class: mpi.Intracomm", "C handle: 0x" + Long.toHexString(h.cHandle()), "Creating call: split", "Rank: 0",
                "Size: 2", "Members: [0, 2]", "Intercommunicator: no", "Derived from: #" + h.derivedFrom())) {
            assertTrue(details.contains(line + "\n"), "details pane has \"" + line + "\":\n" + details);
        }
        assertTrue(details.contains("Created at: io.mpilens.examples.openmpi.HandleTour.main(HandleTour.java:46)\n"), details);
        screenshot(handles, "mpi-handles-details.png");

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

        // the test workspace has no projects: "Open creation site" says so in the status line
        handles.viewer().setSelection(new StructuredSelection(split), true);
        spin(100);
        handles.openCreationSite();
        waitUntil("the status line reports the type is not in the workspace",
                () -> handles.statusMessage() != null && handles.statusMessage().contains("is not in the workspace"));
        assertTrue(handles.statusMessage().startsWith("Cannot open io.mpilens.examples.openmpi.HandleTour.main(HandleTour.java:46): "
                + "type io.mpilens.examples.openmpi.HandleTour is not in the workspace."), handles.statusMessage());

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

    /** One launch, one JDT Java debug target per rank JVM: what "Attach to MPI Job" does. */
    private static ILaunch attach(List<String> addresses) throws Exception {
        List<JdwpAddress> parsed = addresses.stream().map(JdwpAddress::parse).collect(Collectors.toList());
        return JobAttach.attach("HandleTour (Open MPI, 4 ranks)", parsed, Duration.ofSeconds(20));
    }

    private static void awaitPause(Job job, String point) throws Exception {
        job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=" + point), 4, START);
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

    private static void waitUntil(String what, BooleanSupplier condition) {
        long deadline = System.currentTimeMillis() + UI_WAIT_MILLIS;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("timed out waiting until " + what);
            spin(50);
        }
    }

    /** Runs the UI event loop for a while (the test runs on the UI thread). */
    private static void spin(long millis) {
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

    private static void screenshotMaximized(IWorkbenchPage page, IViewPart view, String file) throws Exception {
        page.activate(view);
        page.setPartState(page.getReference(view), IWorkbenchPage.STATE_MAXIMIZED);
        spin(500);
        screenshot((JobViewPart) view, file);
        page.setPartState(page.getReference(view), IWorkbenchPage.STATE_RESTORED);
        spin(200);
    }

    private static void screenshot(JobViewPart view, String file) throws Exception {
        Control c = view.partControl();
        c.update();
        Point size = c.getSize();
        assertTrue(size.x > 200 && size.y > 150, view.getTitle() + " is too small to read: " + size);
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
