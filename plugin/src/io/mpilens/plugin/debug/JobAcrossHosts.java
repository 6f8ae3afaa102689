package io.mpilens.plugin.debug;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.json.CollectorJson;
import io.mpilens.headless.observe.HostChoice;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.observe.Launchers;
import io.mpilens.plugin.model.JobView;
import io.mpilens.plugin.model.RankView;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * A running job whose ranks are on other hosts too, read for the MPI views the way {@code mpilens
 * cominfo --job ID} reads it: the ranks on this host over loopback JDWP, the others by a collector
 * started on each host ({@code mpilens collect}, through ssh or the job's {@code mpirun}; which hosts
 * and how by {@link HostChoice}, the command line's rule), merged into one model. No debugger
 * connection leaves this host, so the ranks elsewhere are shown, not debugged: no debug targets,
 * no suspend. Each {@link #read} is one round (the deadline rule, the job's timeline kept from
 * round to round); the threads' MPI calls are read in every round (each thread suspended only
 * while its frames are read), and two rounds are two looks at a running job for the MPI Calls view.
 * Blocks on the collectors: never call it on the UI thread.
 */
public final class JobAcrossHosts implements AutoCloseable {
    /** Per rank and per collector, at most (as the commands' default). */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]*");

    private final String jobId;
    private final HostChoice choice;
    private final JobObserver observer;
    private int rounds;

    private JobAcrossHosts(String jobId, HostChoice choice, JobObserver observer) {
        this.jobId = jobId;
        this.choice = choice;
        this.observer = observer;
    }

    /**
     * @param hosts  hosts to ask; null or empty: {@code $MPILENS_HOSTS}, else the other hosts of this
     *               user's launchers on this host ({@link HostChoice#said} says which)
     * @param via    {@code ssh} or {@code mpirun}; null: {@code $MPILENS_VIA}, else ssh
     * @param remote the collector command on the hosts; null or blank: {@code $MPILENS_REMOTE}, else {@code mpilens}
     * @throws IllegalArgumentException a job id, host name or way that is not one, named in the message
     */
    public static JobAcrossHosts open(String jobId, List<String> hosts, String via, String remote, Map<String, String> env,
                                      Duration timeout) {
        String id = jobId == null ? "" : jobId.strip();
        if (!JOB_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("'" + id + "' is not a job id: letters, digits, '.', '_' and '-', as"
                    + " 'mpilens jobs' lists them");
        }
        if (via != null && via.strip().equalsIgnoreCase("mpj")) {
            throw new IllegalArgumentException("collectors through MPJ Express's daemons run the command line's own class"
                    + " path, which Eclipse does not have: use ssh here, or 'mpilens cominfo --job " + id + " --via mpj'");
        }
        Map<String, String> e = new HashMap<>(env);
        if (remote != null && !remote.isBlank()) e.put(HostCollectors.REMOTE_ENV, remote.strip());
        HostChoice choice = HostChoice.of(hosts == null || hosts.isEmpty() ? null : hosts,
                via == null || via.isBlank() ? null : via.strip(), e, defaultRemote(), CollectorJson::parse);
        return observe(id, choice, e, timeout);
    }

    /**
     * The ranks on other hosts of the job an MPI Java Application launch started, whose
     * {@code launcher} ({@code mpirun}) put ranks there: those hosts, reached as the launcher reached
     * them. Only the collectors are read: the ranks on this host are the launch's debug targets
     * (their JVM takes one debugger, and that is Eclipse's).
     */
    public static JobAcrossHosts forLaunch(String jobId, Launchers.Launch launcher, Map<String, String> env, Duration timeout) {
        HostChoice choice = HostChoice.ofLauncher(launcher, null, env, defaultRemote(), CollectorJson::parse);
        // an observer whose job directory has no such job reads no rank here, only the collectors' reports
        JobDirectory none = new JobDirectory(JobDirectory.forCurrentUser(env).root().resolve(".collectors-only"));
        JobObserver observer = JobObserver.forJob(none, jobId, timeout).withFrames(false);
        if (choice.collectors() != null) observer.withHosts(choice.collectors());
        return new JobAcrossHosts(jobId, choice, observer);
    }

    /**
     * The collector command on the hosts unless {@code $MPILENS_REMOTE} names one:
     * {@code -Dmpilens.remote} (in eclipse.ini), else {@code mpilens} on the hosts' PATH.
     */
    static String defaultRemote() {
        String p = System.getProperty("mpilens.remote");
        return p != null && !p.isBlank() ? p : "mpilens";
    }

    private static JobAcrossHosts observe(String id, HostChoice choice, Map<String, String> env, Duration timeout) {
        JobObserver observer = JobObserver.forJob(JobDirectory.forCurrentUser(env), id, timeout).withFrames(false);
        if (choice.collectors() != null) observer.withHosts(choice.collectors());
        return new JobAcrossHosts(id, choice, observer);
    }

    /**
     * Rounds until {@code ranks} ranks have answered — those {@code here} names (registered on
     * this host, read by the launch's debug targets) and those the collectors read — or
     * {@code limit} has passed or {@code goOn} says stop (the job ended, the launch was cancelled);
     * ranks register when MPI_Init returns, after their JDWP port is open. The last round's job
     * either way.
     */
    public JobView awaitRanks(int ranks, Supplier<Set<Integer>> here, Duration limit, BooleanSupplier goOn)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            Set<Integer> h = here.get();
            JobView j = read(h);
            long answered = h.size() + j.ranks().stream().filter(r -> r.process() != null).count();
            if (answered >= ranks || System.nanoTime() >= deadline || !goOn.getAsBoolean()) return j;
            Thread.sleep(500);
        }
    }

    public String jobId() {
        return jobId;
    }

    /** The hosts asked besides this one (empty: this host only). */
    public List<String> hosts() {
        return choice.collectors() == null ? List.of() : choice.collectors().hosts();
    }

    /** How the hosts were found when nobody named them, else null. */
    public String said() {
        return choice.said();
    }

    /** The views' name of the job. */
    public String name() {
        return "MPI job " + jobId + (hosts().isEmpty() ? " (this host)" : " on this host and " + String.join(", ", hosts()));
    }

    /** One round over every host: the job as the views show it. */
    public JobView read() throws IOException {
        return read(Set.of());
    }

    /** The same without the COMM_WORLD ranks {@code readHere} (a launch's debug targets read them). */
    public synchronized JobView read(Set<Integer> readHere) throws IOException {
        JobModel m = observer.observe();
        Map<Integer, List<BindingFrame>> frames = observer.frames();
        Map<Integer, ProcessSnapshot> last = observer.lastSnapshots();
        List<RankView> ranks = new ArrayList<>();
        for (RankStatus r : m.processes()) {
            if (readHere.contains(r.rank())) continue;
            String where = r.address() != null && !r.address().isEmpty() ? r.address() : "";
            if (r.host() != null && !r.host().isEmpty()) where += (where.isEmpty() ? "on " : " on ") + r.host();
            // a rank that died or stopped answering keeps showing what it held at its last answer
            ProcessSnapshot p = r.snapshot() != null ? r.snapshot() : last.get(r.rank());
            ranks.add(new RankView("rank " + r.rank() + (where.isEmpty() ? "" : " (" + where + ")"), p, r.state(), false,
                    r.state() == ProcessState.OK ? null : r.evidence(), frames.get(r.rank())));
        }
        // every round reads a running job: two rounds are two looks with running in between
        return new JobView(name(), ranks, m, ++rounds);
    }

    /** Problems with the job's records and the hosts that did not answer, from the last round. */
    public List<String> problems() throws IOException {
        return observer.refused();
    }

    @Override
    public void close() {
        if (choice.collectors() != null) choice.collectors().close();
    }
}
