package io.mpilens.plugin.views;

import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.text.WaitForPicture;
import io.mpilens.plugin.model.CallRows;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import io.mpilens.plugin.model.Rgb;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.SashForm;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Table;
import org.eclipse.swt.widgets.TableColumn;
import org.eclipse.swt.widgets.TableItem;

/**
 * MPI Calls: a table of the MPI call each thread of each suspended rank is inside (call,
 * communicator, peer, tag, since when, verdict), and below it the wait-for picture of
 * {@code mpilens calls --svg} — ranks as boxes, "waits for" arrows labelled with the calls, the
 * cycle and the ranks stuck behind it coloured with the verdict — with the verdicts as
 * {@code calls} words them. One suspension is one look; the next suspension of the same launch
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
    private Table table;
    private WaitForCanvas picture;
    private List<CallRows.Row> rows = List.of();
    private String message = "";

    /** A suspension's look: the job read (launch name, resume count) and its analysis. */
    private record Look(JobView job, WaitFor.Analysis analysis) {
    }

    /** The look at the suspension before this one, and at this one (null until seen). */
    private Look previous;
    private Look current;
    /** When this view first saw each thread in its call ({@link CallRows#stay}), for the launch shown. */
    private final Map<String, Instant> firstSeen = new HashMap<>();

    @Override
    protected Control createContent(Composite parent) {
        SashForm sash = new SashForm(parent, SWT.VERTICAL);
        table = new Table(sash, SWT.BORDER | SWT.FULL_SELECTION | SWT.V_SCROLL | SWT.H_SCROLL);
        table.setHeaderVisible(true);
        table.setLinesVisible(true);
        for (CallRows.Column c : CallRows.Column.values()) {
            TableColumn col = new TableColumn(table, c == CallRows.Column.RANK ? SWT.RIGHT : SWT.LEFT);
            col.setText(c.title());
            col.setWidth(c.width());
        }
        table.getColumn(CallRows.Column.SINCE.ordinal()).setToolTipText("The first read of this view that found the"
                + " thread in this call (when it entered the call is not recorded)");
        picture = new WaitForCanvas(sash);
        sash.setWeights(1, 4);
        return sash;
    }

    @Override
    protected void show(JobView job) {
        if (current != null && !current.job().name().equals(job.name())) {
            previous = null; // another launch
            firstSeen.clear();
        }
        if (job.frames().isEmpty()) {
            boolean suspended = !job.ranks().isEmpty() && job.ranks().stream().allMatch(RankView::suspended);
            message = suspended ? SHARED : SUSPEND;
            fill(List.of());
            picture.show(null, message);
            return;
        }
        message = "";
        List<InFlightCall> calls = job.calls();
        WaitFor.Analysis a = WaitFor.of(job.model(), calls, job.frames().keySet());
        if (current != null && current.job().name().equals(job.name()) && current.job().resumes() != job.resumes()) {
            previous = current; // a new suspension
        }
        current = new Look(job, a);
        // a second look only across a resume: two reads of one suspension always look the same
        WaitFor.Looks looks = previous != null && previous.job().resumes() < job.resumes() && previous.analysis().any()
                ? WaitFor.compare(previous.analysis(), a, Double.NaN) : WaitFor.Looks.ONE;
        CallRows.remember(firstSeen, calls, job.model().at());
        fill(CallRows.of(job.model(), calls, a, looks, firstSeen));
        picture.show(WaitForPicture.of(job.model(), calls, a, looks, CONFIRM), null);
    }

    private void fill(List<CallRows.Row> rows) {
        this.rows = List.copyOf(rows);
        table.setRedraw(false);
        try {
            table.removeAll();
            for (CallRows.Row r : rows) {
                TableItem item = new TableItem(table, SWT.NONE);
                item.setText(r.cells().toArray(new String[0]));
                if (r.colour() != null) {
                    item.setForeground(CallRows.Column.VERDICT.ordinal(),
                            Colors.of(Rgb.hex(Integer.parseInt(r.colour().substring(1), 16))));
                }
            }
        } finally {
            table.setRedraw(true);
        }
    }

    /** The table's rows as shown (tests read them). */
    public List<CallRows.Row> shownRows() {
        return rows;
    }

    /** The picture drawn, null when the view shows a message instead (tests read it). */
    public WaitForPicture shownPicture() {
        return picture.picture();
    }

    /**
     * The text on screen: the message when there is no call to show, else the picture's lines (its
     * title, the verdicts and their explanations), one per line (tests read it).
     */
    public String shownText() {
        if (picture.picture() == null) return message;
        List<String> out = new ArrayList<>();
        for (WaitForPicture.Text t : picture.picture().texts()) out.add(t.text());
        return String.join("\n", out);
    }

    /** The table and the picture, for screenshots of the picture alone. */
    public Control pictureControl() {
        return picture.control();
    }

    @Override
    public void setFocus() {
        table.setFocus();
    }
}
