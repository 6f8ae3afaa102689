package io.mpilens.plugin.debug;

import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.observe.HostChoice;
import io.mpilens.headless.observe.HostCollectors;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.jface.dialogs.Dialog;
import org.eclipse.jface.dialogs.IDialogConstants;
import org.eclipse.jface.window.Window;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.handlers.HandlerUtil;

/**
 * "Show MPI Job Across Hosts…": a running job whose ranks are on other hosts, in the MPI views,
 * read through a collector on each host ({@link JobAcrossHosts}); no debugger port is opened to
 * the network. Asks for the job id, the hosts (default: as {@code mpilens cominfo --job ID} finds
 * them) and how the collectors are started, then reads in a background job whose result the
 * workbench shows (a host that did not answer, no rank found).
 */
public final class ShowJobAcrossHostsHandler extends AbstractHandler {
    @Override
    public Object execute(ExecutionEvent event) {
        Map<String, String> env = System.getenv();
        Settings d = new Settings(HandlerUtil.getActiveShell(event), newestLocalJob(env),
                env.getOrDefault(HostCollectors.HOSTS_ENV, ""), env.getOrDefault(HostCollectors.VIA_ENV, "ssh"),
                env.getOrDefault(HostCollectors.REMOTE_ENV, JobAcrossHosts.defaultRemote()));
        if (d.open() != Window.OK) return null;
        JobAcrossHosts job = d.result;
        // a launch of its own: the Debug view lists it, the MPI views follow it, Terminate stops the collectors
        MpiLaunch launch = MpiLaunch.across(job);
        DebugPlugin.getDefault().getLaunchManager().addLaunch(launch);
        Job reading = Job.create("Reading MPI job " + job.jobId() + " across hosts",
                (org.eclipse.core.runtime.jobs.IJobFunction) monitor -> launch.job().readNow());
        reading.setUser(true);
        reading.schedule();
        return null;
    }

    /** The newest job registered on this host, as a default; empty when there is none. */
    private static String newestLocalJob(Map<String, String> env) {
        try {
            List<JobDirectory.JobEntry> jobs = new java.util.ArrayList<>(JobDirectory.forCurrentUser(env).jobs());
            JobDirectory.sortNewestFirst(jobs);
            return jobs.isEmpty() ? "" : jobs.get(0).id();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** The dialog's title. */
    public static final String TITLE = "Show MPI Job Across Hosts";
    /** Widget data key naming the dialog's fields: job, hosts, via, remote, problem (tests find them by it). */
    public static final String FIELD = "io.mpilens.field";

    /** The four settings, checked before the dialog closes ({@link JobAcrossHosts#open}'s own checks). */
    private static final class Settings extends Dialog {
        private final String jobDefault;
        private final String hostsDefault;
        private final String viaDefault;
        private final String remoteDefault;
        private Text job;
        private Text hosts;
        private Combo via;
        private Text remote;
        private Label problem;
        JobAcrossHosts result;

        Settings(Shell parent, String job, String hosts, String via, String remote) {
            super(parent);
            this.jobDefault = job;
            this.hostsDefault = hosts;
            this.viaDefault = via.strip().equalsIgnoreCase("mpirun") ? "mpirun" : "ssh";
            this.remoteDefault = remote;
        }

        @Override
        protected void configureShell(Shell shell) {
            super.configureShell(shell);
            shell.setText(TITLE);
        }

        @Override
        protected Control createDialogArea(Composite parent) {
            Composite c = (Composite) super.createDialogArea(parent);
            c.setLayout(new GridLayout(2, false));
            Label intro = new Label(c, SWT.WRAP);
            intro.setText("The job's ranks on other hosts are read by 'mpilens collect' started on each host; only"
                    + " their snapshots come back (no debugger port is opened to the network). Ranks elsewhere are"
                    + " shown, not debugged.");
            GridData wide = new GridData(SWT.FILL, SWT.TOP, true, false, 2, 1);
            wide.widthHint = 520;
            intro.setLayoutData(wide);
            job = field(c, "Job id:", jobDefault, "As 'mpilens jobs --hosts H1,H2' lists it");
            job.setData(FIELD, "job");
            hosts = field(c, "Hosts:", hostsDefault,
                    "Comma-separated; empty: $MPILENS_HOSTS, else the other hosts of your mpirun on this host");
            hosts.setData(FIELD, "hosts");
            new Label(c, SWT.NONE).setText("Start collectors with:");
            via = new Combo(c, SWT.READ_ONLY);
            via.setData(FIELD, "via");
            via.setItems("ssh", "mpirun");
            via.setText(viaDefault);
            via.setToolTipText("ssh ($MPILENS_SSH), or one 'mpirun -np 1 --host HOST' per host ($MPILENS_MPIRUN):"
                    + " inside an allocation that allows no ssh to its nodes");
            remote = field(c, "Command on the hosts:", remoteDefault, "How 'mpilens' is run there ($MPILENS_REMOTE, -Dmpilens.remote)");
            remote.setData(FIELD, "remote");
            problem = new Label(c, SWT.WRAP);
            problem.setData(FIELD, "problem");
            problem.setForeground(c.getDisplay().getSystemColor(SWT.COLOR_DARK_RED));
            problem.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false, 2, 1));
            return c;
        }

        private static Text field(Composite c, String label, String value, String hint) {
            new Label(c, SWT.NONE).setText(label);
            Text t = new Text(c, SWT.BORDER | SWT.SINGLE);
            t.setText(value);
            t.setMessage(hint);
            t.setToolTipText(hint);
            t.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
            return t;
        }

        @Override
        protected void buttonPressed(int id) {
            if (id == IDialogConstants.OK_ID) {
                try {
                    result = JobAcrossHosts.open(job.getText(), HostChoice.split(hosts.getText()), via.getText(),
                            remote.getText(), System.getenv(), JobAcrossHosts.TIMEOUT);
                } catch (IllegalArgumentException e) {
                    problem.setText(e.getMessage());
                    problem.getParent().layout(true);
                    getShell().pack();
                    return;
                }
            }
            super.buttonPressed(id);
        }
    }
}
