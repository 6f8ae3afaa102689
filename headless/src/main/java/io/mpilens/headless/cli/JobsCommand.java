package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobObserver;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.json.FaultJson;
import java.io.IOException;
import java.io.PrintWriter;
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
            "Records live in ${XDG_RUNTIME_DIR:-/tmp}/mpilens-<uid>/jobs (or $MPILENS_JOBS)."})
final class JobsCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Option(names = "--prune", description = "Remove the records of jobs whose ranks all ran on this host and have"
            + " ended (a job with a live or remote rank is kept; other users' files are never touched).")
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
            out.println(FaultJson.jobs(jobs));
        } else if (jobs.isEmpty()) {
            out.println("no jobs in " + dir.root() + " (ranks register when MPI_Init returns with the mpilens agent loaded)");
        } else {
            out.println(String.format("%-24s %-7s %-7s %-14s %-16s %s", "JOB", "RANKS", "ALIVE", "BINDING", "HOSTS", "STARTED"));
            for (JobDirectory.JobEntry j : jobs) {
                long alive = j.records().stream().filter(FaultJson::alive).count();
                TreeSet<String> hosts = new TreeSet<>();
                TreeSet<String> bindings = new TreeSet<>();
                for (JobRecord r : j.records()) {
                    hosts.add(r.host());
                    bindings.add(r.binding());
                }
                String started = j.records().stream().map(JobRecord::startTime).min(java.util.Comparator.naturalOrder())
                        .map(Object::toString).orElse("-");
                out.println(String.format("%-24s %-7s %-7s %-14s %-16s %s", j.id(), j.records().size() + "/" + j.size(),
                        alive, String.join(",", bindings), String.join(",", hosts), started));
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
}
