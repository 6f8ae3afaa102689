package io.mpilens.plugin.views;

import io.mpilens.plugin.model.CommunicatorBoxes;
import io.mpilens.plugin.model.JobView;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;

/** MPI Communicators (FT-MPI Cominfo): one box per communicator, a coloured cell per member. */
public final class CommunicatorsView extends JobViewPart {
    public static final String ID = "io.mpilens.views.communicators";
    private BoxCanvas boxes;

    @Override
    protected Control createContent(Composite parent) {
        boxes = new BoxCanvas(parent);
        return boxes.control();
    }

    @Override
    protected void show(JobView job) {
        boxes.show(CommunicatorBoxes.legend(), CommunicatorBoxes.of(job),
                job.ranks().isEmpty() ? "Select a Java debug target of an MPI job in the Debug view."
                        : "No communicators read yet.");
    }

    @Override
    public void setFocus() {
        boxes.canvas().setFocus();
    }
}
