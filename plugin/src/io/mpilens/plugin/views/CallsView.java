package io.mpilens.plugin.views;

import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Text;

/**
 * MPI Calls: the MPI call each thread of each suspended rank is inside, flagged when it can never
 * complete, and below them the ranks that cannot progress (the wait-for analysis of
 * {@code mpilens calls}). One suspension is one look; the next suspension of the same launch
 * after a resume is a second one, compared with it as {@code calls --confirm} does (the agents'
 * counts of blocking calls and the calls themselves), so a deadlock can be confirmed here too.
 */
public final class CallsView extends JobViewPart {
    public static final String ID = "io.mpilens.views.calls";
    static final String SUSPEND = "Suspend the job (select its launch in the Debug view, Suspend) to see the MPI call"
            + " each thread of each rank is inside.";
    static final String SHARED = "No thread's MPI call could be placed in a rank: ranks that share one JVM (MPJ"
            + " Express multicore) are told apart by the agent's ids, which a JVM the agent came to late has not.";
    static final String CONFIRM = "(one look at a suspended job: resume it for a moment and suspend it again,\n"
            + " and this view compares the two; or run  mpilens calls --job ID --confirm 5  on the running job)";
    private Text text;
    /** A suspension's look: the job read (launch name, resume count) and its analysis. */
    private record Look(JobView job, WaitFor.Analysis analysis) {
    }

    /** The look at the suspension before this one, and at this one (null until seen). */
    private Look previous;
    private Look current;

    @Override
    protected Control createContent(Composite parent) {
        text = new Text(parent, SWT.MULTI | SWT.READ_ONLY | SWT.V_SCROLL | SWT.H_SCROLL | SWT.BORDER);
        text.setFont(JFaceResources.getTextFont());
        return text;
    }

    @Override
    protected void show(JobView job) {
        if (job.frames().isEmpty()) {
            boolean suspended = !job.ranks().isEmpty() && job.ranks().stream().allMatch(RankView::suspended);
            text.setText(suspended ? SHARED : SUSPEND);
            return;
        }
        List<InFlightCall> calls = job.calls();
        WaitFor.Analysis a = WaitFor.of(job.model(), calls, job.frames().keySet());
        if (current != null && !current.job().name().equals(job.name())) previous = null; // another launch
        else if (current != null && current.job().resumes() != job.resumes()) previous = current; // a new suspension
        current = new Look(job, a);
        // a second look only across a resume: two reads of one suspension always look the same
        WaitFor.Looks looks = previous != null && previous.job().resumes() < job.resumes() && previous.analysis().any()
                ? WaitFor.compare(previous.analysis(), a, Double.NaN) : WaitFor.Looks.ONE;
        text.setText(String.join("\n", lines(job, calls, a, looks)));
    }

    /** What the view shows: the calls and the wait-for analysis, without colour. */
    static List<String> lines(JobView job, List<InFlightCall> calls, WaitFor.Analysis a, WaitFor.Looks looks) {
        FaultBoxes boxes = new FaultBoxes(false);
        List<String> out = new ArrayList<>(boxes.calls(job.model(), calls));
        out.remove(0); // the job line: the view's header says it
        out.addAll(boxes.waitFor(a, looks, CONFIRM));
        return out;
    }

    /** The text on screen (tests read it). */
    public String shownText() {
        return text.getText();
    }

    @Override
    public void setFocus() {
        text.setFocus();
    }
}
