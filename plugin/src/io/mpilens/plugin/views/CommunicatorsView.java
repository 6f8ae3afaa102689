package io.mpilens.plugin.views;

import io.mpilens.plugin.model.CommunicatorBoxes;
import io.mpilens.plugin.model.JobView;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;

/** MPI Communicators (FT-MPI Cominfo): the job's status word, then one box per communicator, a coloured cell per member. */
public final class CommunicatorsView extends JobViewPart {
    public static final String ID = "io.mpilens.views.communicators";
    private BoxCanvas boxes;
    private StatusWordLabel status;

    @Override
    protected Control createContent(Composite parent) {
        Composite content = StatusWordLabel.column(parent);
        status = new StatusWordLabel(content);
        boxes = new BoxCanvas(content);
        boxes.control().setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        return content;
    }

    /** The status word line on screen (tests read it). */
    public String statusText() {
        return status.text();
    }

    @Override
    protected void show(JobView job) {
        status.show(job.model().status());
        boxes.show(CommunicatorBoxes.legend(), CommunicatorBoxes.of(job),
                job.ranks().isEmpty() ? "Select a Java debug target of an MPI job in the Debug view."
                        : "No communicators read yet.");
    }

    @Override
    public void setFocus() {
        boxes.canvas().setFocus();
    }
}
