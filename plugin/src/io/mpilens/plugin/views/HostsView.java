package io.mpilens.plugin.views;

import io.mpilens.plugin.model.HostBoxes;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.TimelineLines;
import java.util.List;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.SashForm;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Text;

/**
 * MPI Hosts (FT-MPI Hostinfo): the job's status word, then one box per host, its launcher daemons, a coloured cell per MPI
 * process on it; below, the job's timeline (every state change seen since the launch was followed).
 */
public final class HostsView extends JobViewPart {
    public static final String ID = "io.mpilens.views.hosts";
    private static final int TIMELINE_LINES = 200;
    private BoxCanvas boxes;
    private Text timeline;
    private StatusWordLabel status;

    @Override
    protected Control createContent(Composite parent) {
        Composite content = StatusWordLabel.column(parent);
        status = new StatusWordLabel(content);
        SashForm sash = new SashForm(content, SWT.VERTICAL);
        sash.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        boxes = new BoxCanvas(sash);
        timeline = new Text(sash, SWT.MULTI | SWT.READ_ONLY | SWT.V_SCROLL | SWT.H_SCROLL | SWT.BORDER);
        timeline.setToolTipText("Timeline: state changes of ranks, communicators and hosts, oldest first");
        sash.setWeights(3, 1);
        return content;
    }

    /** The status word line on screen (tests read it). */
    public String statusText() {
        return status.text();
    }

    @Override
    protected void show(JobView job) {
        status.show(job.model().status());
        boxes.show(HostBoxes.legend(), HostBoxes.of(job),
                "Select a Java debug target of an MPI job in the Debug view.");
        List<String> lines = TimelineLines.of(job.model(), TIMELINE_LINES);
        timeline.setText(lines.isEmpty() ? "Timeline: no state changes yet." : "Timeline:\n" + String.join("\n", lines));
        timeline.setTopIndex(timeline.getLineCount());
    }

    /** The timeline text on screen (tests read it). */
    public String timelineText() {
        return timeline.getText();
    }

    @Override
    public void setFocus() {
        boxes.canvas().setFocus();
    }
}
