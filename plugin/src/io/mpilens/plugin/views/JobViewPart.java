package io.mpilens.plugin.views;

import io.mpilens.plugin.debug.MpiJob;
import io.mpilens.plugin.model.JobView;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchesListener2;
import org.eclipse.debug.ui.DebugUITools;
import org.eclipse.debug.ui.contexts.DebugContextEvent;
import org.eclipse.debug.ui.contexts.IDebugContextListener;
import org.eclipse.debug.ui.contexts.IDebugContextService;
import org.eclipse.jface.action.Action;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Label;
import org.eclipse.ui.IViewReference;
import org.eclipse.ui.part.ViewPart;

/**
 * A view of the MPI job of the Debug view's selection: a one-line summary above the content.
 * It follows the debug context of its window: the selected launch, debug target, thread or frame
 * adapts to its {@link MpiJob}, which reads the job in the background and hands each new
 * {@link JobView} to the views that listen. Nothing MPI selected: the job shown stays, else the
 * most recent launch with an MPI job. A newly added MPI launch (a job started, heap dumps opened, a
 * job read across hosts) is followed at once; a removed one is let go.
 */
public abstract class JobViewPart extends ViewPart {
    private static final List<String> VIEWS = List.of(HandlesView.ID, CommunicatorsView.ID, HostsView.ID, CallsView.ID);

    private Composite top;
    private Label header;
    private JobView shown;
    /** The job followed, and how it reaches this view; UI thread only. */
    private MpiJob job;
    private Consumer<JobView> jobListener;
    private IDebugContextService contexts;
    private final IDebugContextListener contextListener = this::contextChanged;
    private final ILaunchesListener2 launches = new ILaunchesListener2() {
        @Override
        public void launchesAdded(ILaunch[] added) {
            inUi(() -> {
                for (int i = added.length - 1; i >= 0; i--) {
                    MpiJob j = MpiJob.of(added[i]);
                    if (j != null) {
                        followJob(j);
                        return;
                    }
                }
            });
        }

        @Override
        public void launchesChanged(ILaunch[] changed) {
            // a launch that was not MPI (no Java debug target yet) may be now, while nothing is shown
            inUi(() -> {
                if (job == null) follow(null);
            });
        }

        @Override
        public void launchesRemoved(ILaunch[] removed) {
            inUi(() -> {
                for (ILaunch l : removed) {
                    if (job != null && job.launch() == l) {
                        followJob(null);
                        follow(null);
                    }
                }
            });
        }

        @Override
        public void launchesTerminated(ILaunch[] terminated) {
            // a terminated job stays shown, with its ranks' last states
        }
    };

    @Override
    public final void createPartControl(Composite parent) {
        top = new Composite(parent, SWT.NONE);
        GridLayout layout = new GridLayout(1, false);
        layout.marginWidth = 0;
        layout.marginHeight = 0;
        layout.verticalSpacing = 2;
        top.setLayout(layout);
        header = new Label(top, SWT.NONE);
        header.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        Control content = createContent(top);
        content.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));

        Action refresh = new Action("Refresh") {
            @Override
            public void run() {
                if (job != null) job.refresh();
            }
        };
        refresh.setToolTipText("Read the MPI handles of every rank again");
        getViewSite().getActionBars().getToolBarManager().add(refresh);

        show0(JobView.NONE);
        contexts = DebugUITools.getDebugContextManager().getContextService(getSite().getWorkbenchWindow());
        contexts.addDebugContextListener(contextListener);
        DebugPlugin.getDefault().getLaunchManager().addLaunchListener(launches);
        follow(first(contexts.getActiveContext()));
    }

    /** Creates the view's content below the summary line. */
    protected abstract Control createContent(Composite parent);

    /** Shows a newly read job; on the UI thread. */
    protected abstract void show(JobView job);

    /** The whole view, summary line included (tests take screenshots of it). */
    public Control partControl() {
        return top;
    }

    /** The job on screen now (tests read it). */
    public JobView shownJob() {
        return shown;
    }

    /** The MPI job this view follows, null for none (tests read it). */
    public MpiJob job() {
        return job;
    }

    /** Shows {@code job} now, on the UI thread: what the followed {@link MpiJob} delivers (measurements call it directly). */
    public void showJob(JobView job) {
        show0(job);
    }

    private void show0(JobView job) {
        shown = job;
        header.setText(job.summary());
        header.setToolTipText(job.summary());
        show(job);
    }

    private void contextChanged(DebugContextEvent e) {
        if ((e.getFlags() & DebugContextEvent.ACTIVATED) != 0) follow(first(e.getContext()));
    }

    /**
     * Follows the MPI job of a debug context element (launch, debug target, thread, frame,
     * process), as when the Debug view selects it; with nothing MPI in it, the job shown stays,
     * else the most recent MPI launch's is shown. UI thread.
     */
    public void follow(Object debugContext) {
        MpiJob j = jobOf(MpiJob.launchOf(debugContext));
        if (j == null) {
            if (job != null) return;
            ILaunch[] all = DebugPlugin.getDefault().getLaunchManager().getLaunches();
            for (int i = all.length - 1; i >= 0 && j == null; i--) j = jobOf(all[i]);
            if (j == null) return;
        }
        followJob(j);
    }

    /**
     * The job of a launch: the one this view or another MPI view of the page follows already (a
     * launch that is not an MPI launch gets a new one at each adaptation), else its adapter.
     */
    private MpiJob jobOf(ILaunch l) {
        if (l == null) return null;
        if (job != null && job.launch() == l) return job;
        for (IViewReference ref : getSite().getPage().getViewReferences()) {
            if (VIEWS.contains(ref.getId()) && ref.getPart(false) instanceof JobViewPart other && other.job != null
                    && other.job.launch() == l) {
                return other.job;
            }
        }
        return MpiJob.of(l);
    }

    private void followJob(MpiJob j) {
        if (j == job) return;
        if (job != null) job.removeListener(jobListener);
        job = j;
        jobListener = null;
        if (j == null) {
            show0(JobView.NONE);
            return;
        }
        Consumer<JobView> l = read -> inUi(() -> {
            if (job == j) show0(read);
        });
        jobListener = l;
        j.addListener(l);
        // shown as it is now, not as at its last read: a running job changes without debug events
        j.refresh();
    }

    private void inUi(Runnable r) {
        if (header == null || header.isDisposed()) return;
        header.getDisplay().asyncExec(() -> {
            if (!header.isDisposed()) r.run();
        });
    }

    private static Object first(ISelection s) {
        return s instanceof IStructuredSelection ss ? ss.getFirstElement() : null;
    }

    @Override
    public void dispose() {
        if (job != null) job.removeListener(jobListener);
        job = null;
        DebugPlugin.getDefault().getLaunchManager().removeLaunchListener(launches);
        if (contexts != null) contexts.removeDebugContextListener(contextListener);
        super.dispose();
    }
}
