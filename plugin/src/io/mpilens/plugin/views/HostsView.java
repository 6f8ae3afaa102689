package io.mpilens.plugin.views;

import io.mpilens.plugin.model.HostBoxes;
import io.mpilens.plugin.model.JobView;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;

/** MPI Hosts (FT-MPI Hostinfo): one box per host, a coloured cell per MPI process on it. */
public final class HostsView extends JobViewPart {
    public static final String ID = "io.mpilens.views.hosts";
    private BoxCanvas boxes;

    @Override
    protected Control createContent(Composite parent) {
        boxes = new BoxCanvas(parent);
        return boxes.control();
    }

    @Override
    protected void show(JobView job) {
        boxes.show(HostBoxes.legend(), HostBoxes.of(job),
                "Select a Java debug target of an MPI job in the Debug view.");
    }

    @Override
    public void setFocus() {
        boxes.canvas().setFocus();
    }
}
