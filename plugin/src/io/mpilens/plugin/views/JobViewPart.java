package io.mpilens.plugin.views;

import io.mpilens.plugin.debug.MpiJobs;
import io.mpilens.plugin.model.JobView;
import java.util.function.Consumer;
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
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Label;
import org.eclipse.ui.part.ViewPart;

/**
 * A view of the MPI job of the Debug view's selection: a one-line summary above the content.
 * It follows the debug context of its window and redraws when {@link MpiJobs} has read the job.
 */
public abstract class JobViewPart extends ViewPart {
    private Composite top;
    private Label header;
    private JobView shown;
    private IDebugContextService contexts;
    private final IDebugContextListener contextListener = this::contextChanged;
    private final Consumer<JobView> jobListener = job -> {
        Display d = header == null || header.isDisposed() ? null : header.getDisplay();
        if (d != null) d.asyncExec(() -> {
            if (!header.isDisposed()) show0(job);
        });
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
                MpiJobs.get().refresh();
            }
        };
        refresh.setToolTipText("Read the MPI handles of every rank again");
        getViewSite().getActionBars().getToolBarManager().add(refresh);

        contexts = DebugUITools.getDebugContextManager().getContextService(getSite().getWorkbenchWindow());
        contexts.addDebugContextListener(contextListener);
        MpiJobs.get().follow(first(contexts.getActiveContext()));
        MpiJobs.get().addListener(jobListener);
        // a view opened on a launch (or a job across hosts) already followed by another open MPI view
        // shows the job as it is now, not as it was at the last read: a running job changes without events
        if (MpiJobs.get().launch() != null || MpiJobs.get().acrossHosts() != null) MpiJobs.get().refresh();
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

    /** Shows {@code job} now, on the UI thread: what {@link MpiJobs} delivers (measurements call it directly). */
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
        if ((e.getFlags() & DebugContextEvent.ACTIVATED) != 0) MpiJobs.get().follow(first(e.getContext()));
    }

    private static Object first(ISelection s) {
        return s instanceof IStructuredSelection ss ? ss.getFirstElement() : null;
    }

    @Override
    public void dispose() {
        MpiJobs.get().removeListener(jobListener);
        if (contexts != null) contexts.removeDebugContextListener(contextListener);
        super.dispose();
    }
}
