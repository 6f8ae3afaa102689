package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobEnd;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.text.HandleTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.ZoneId;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code mpilens jobs}: the jobs whose ranks registered in this user's job directory. */
@Command(name = "jobs", mixinStandardHelpOptions = true,
        description = {"List the jobs whose ranks registered (agent loaded, MPI initialised).",
            "Records live in ${XDG_RUNTIME_DIR:-/tmp}/mpilens-<uid>/jobs (or $MPILENS_JOBS)."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:listed (or no jobs)", "1:the job directory could not be read",
            "3:some records were refused: another user's, or readable by others (one line each on stderr)"})
final class JobsCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    /** When the job's first rank started, to the minute, in UTC. */
    private static final java.time.format.DateTimeFormatter STARTED =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm'Z'").withZone(java.time.ZoneOffset.UTC);

    @Option(names = "--json", description = "Print JSON (schema " + FaultJson.SCHEMA + ") instead of a table.")
    boolean json;

    @Option(names = "--prune", description = "Remove the records of jobs whose ranks all ran on this host and have"
            + " ended, and what a rank killed while registering left (a job with a live or remote rank is kept;"
            + " other users' files are never touched).")
    boolean prune;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JobDirectory dir = JobDirectory.forCurrentUser(parent.env);
        List<JobDirectory.JobEntry> jobs;
        try {
            if (prune) {
                for (JobDirectory.Pruned p : dir.prune(JobObserver::ended)) {
                    if (p.recordsRemoved() > 0 || p.directoryRemoved()) {
                        (json ? err : out).println("pruned job " + p.id() + ": " + p.recordsRemoved() + " record"
                                + (p.recordsRemoved() == 1 ? "" : "s") + " removed"
                                + (p.keptBecause() != null ? "; directory kept: " + p.keptBecause() : ""));
                    }
                }
            }
            jobs = dir.jobs();
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_INTERNAL;
        }
        if (json) {
            out.println(FaultJson.jobs(jobs, JobObserver::processRunning));
        } else if (jobs.isEmpty()) {
            out.println("no jobs in " + dir.root());
            out.println("(ranks register when MPI_Init returns with the mpilens agent loaded)");
        } else {
            out.println(row("JOB", "RANKS", "ALIVE", "BINDING", "STARTED", List.of("HOSTS")));
            for (JobDirectory.JobEntry j : jobs) {
                long alive = j.records().stream().filter(r -> Boolean.TRUE.equals(JobObserver.processRunning(r))).count();
                boolean unknown = j.records().stream().anyMatch(r -> JobObserver.processRunning(r) == null);
                TreeSet<String> hosts = new TreeSet<>();
                TreeSet<String> bindings = new TreeSet<>();
                for (JobRecord r : j.records()) {
                    hosts.add(r.host());
                    bindings.add(r.binding());
                }
                String started = j.records().stream().map(JobRecord::startTime).min(java.util.Comparator.naturalOrder())
                        .map(STARTED::format).orElse("-");
                long spawned = j.records().stream().filter(JobRecord::spawned).count();
                out.println(row(j.id(), (j.records().size() - spawned) + "/" + j.size() + (spawned > 0 ? "+" + spawned : ""),
                        alive + (unknown ? "?" : ""),
                        String.join(",", bindings), started, List.copyOf(hosts)));
                JobEnd end = JobEnd.of(j.records(), JobObserver::processRunning);
                if (end.state() == JobEnd.State.ABORTED) out.println("  " + end.summary(ZoneId.systemDefault()));
            }
        }
        out.flush();
        boolean refused = false;
        for (JobDirectory.JobEntry j : jobs) {
            for (String r : j.refused()) {
                err.println("mpilens: " + r);
                refused = true;
            }
        }
        err.flush();
        return refused ? MpiLensCli.EXIT_UNREADABLE : MpiLensCli.EXIT_OK;
    }

    /**
     * One line of the table; the hosts come last and are shortened to {@code first,second +N}
     * so that the line fits {@link HandleTable#WIDTH} columns (a job id of up to 24 characters).
     */
    static String row(String job, String ranks, String alive, String binding, String started, List<String> hosts) {
        String head = String.format("%-24s %-5s %-5s %-13s %-17s ", job, ranks, alive, binding, started);
        int room = HandleTable.WIDTH - head.length();
        String all = String.join(",", hosts);
        if (all.length() <= room) return head + all;
        for (int shown = hosts.size() - 1; shown >= 1; shown--) {
            String s = String.join(",", hosts.subList(0, shown)) + " +" + (hosts.size() - shown);
            if (s.length() <= room) return head + s;
        }
        return head + hosts.size() + " hosts";
    }
}
