package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobEnd;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.text.HandleTable;
import io.mpilens.headless.text.RankRanges;
import io.mpilens.headless.text.Words;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.ZoneId;
import io.mpilens.headless.observe.CollectorReport;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.LocalProcesses;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
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
            "3:some records were refused (another user's, or readable by others), or a host of --hosts did not answer (one line each on stderr)"})
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

    @picocli.CommandLine.Mixin
    HostsOption hostsOption;

    /**
     * The jobs, each record of a process found gone that did not say it finalized read again: a
     * rank that finalized and exited after the directory was read is FINALIZED, not FAILED
     * ({@link JobDirectory#reread}).
     */
    private static List<JobDirectory.JobEntry> settled(List<JobDirectory.JobEntry> jobs, JobDirectory dir) {
        List<JobDirectory.JobEntry> out = new ArrayList<>(jobs.size());
        for (JobDirectory.JobEntry j : jobs) {
            List<JobRecord> records = new ArrayList<>(j.records().size());
            for (JobRecord r : j.records()) records.add(!r.finalized() && LocalProcesses.ended(r) ? dir.reread(r) : r);
            out.add(JobDirectory.entry(j.id(), j.dir(), records, j.refused()));
        }
        return out;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JobDirectory dir = JobDirectory.forCurrentUser(parent.env);
        List<JobDirectory.JobEntry> jobs;
        try {
            if (prune) {
                for (JobDirectory.Pruned p : dir.prune(LocalProcesses::ended)) {
                    if (p.recordsRemoved() > 0 || p.directoryRemoved()) {
                        (json ? err : out).println("pruned job " + p.id() + ": " + p.recordsRemoved() + " record"
                                + (p.recordsRemoved() == 1 ? "" : "s") + " removed"
                                + (p.keptBecause() != null ? "; directory kept: " + p.keptBecause() : ""));
                    }
                }
            }
            jobs = settled(dir.jobs(), dir);
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_INTERNAL;
        }
        // records on other hosts, as their collectors report them; whether their processes run, too
        Map<JobRecord, Boolean> remoteRunning = new IdentityHashMap<>();
        List<String> hostProblems = new ArrayList<>();
        HostCollectors collectors = hostsOption.collectors(parent.env);
        if (collectors != null) jobs = withHosts(jobs, collectors.collect(null, COLLECT_TIMEOUT), remoteRunning, hostProblems);
        Function<JobRecord, Boolean> running = r -> remoteRunning.containsKey(r) ? remoteRunning.get(r) : LocalProcesses.processRunning(r);
        if (json) {
            out.println(FaultJson.jobs(jobs, running));
        } else if (jobs.isEmpty()) {
            out.println("no jobs in " + dir.root());
            out.println("(ranks register when MPI_Init returns with the mpilens agent loaded)");
        } else {
            out.println(row("JOB", "RANKS", "ALIVE", "STATUS", "BINDING", "STARTED", List.of("HOSTS")));
            for (JobDirectory.JobEntry j : jobs) {
                long alive = j.records().stream().filter(r -> Boolean.TRUE.equals(running.apply(r))).count();
                boolean unknown = j.records().stream().anyMatch(r -> running.apply(r) == null);
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
                        alive + (unknown ? "?" : ""), statusColumn(StatusWord.ofRecords(j.records(), running)),
                        String.join(",", bindings), started, List.copyOf(hosts)));
                JobEnd end = JobEnd.of(j.records(), running);
                if (end.state() == JobEnd.State.ABORTED) out.println("  " + end.summary(ZoneId.systemDefault()));
                for (String l : shareLines(j.records())) out.println(l);
            }
        }
        out.flush();
        boolean refused = !hostProblems.isEmpty();
        for (String p : hostProblems) err.println("mpilens: " + p);
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
     * The ports a running share ({@code mpilens share}) serves the job's ranks at, for a debugger to
     * attach to: {@code share: rank 0 127.0.0.1:40001, rank 1 …} (MPJ Express multicore's ranks of
     * one JVM: {@code ranks 0-3 …}), wrapped at {@link HandleTable#WIDTH}; none when no share runs.
     */
    static List<String> shareLines(List<JobRecord> records) {
        Map<String, List<Integer>> ranksAt = new LinkedHashMap<>();
        records.stream().filter(r -> r.share() != null).sorted(Comparator.comparing(JobRecord::spawned).thenComparing(JobRecord::rank))
                .forEach(r -> ranksAt.computeIfAbsent(r.share(), k -> new ArrayList<>()).add(r.rank()));
        if (ranksAt.isEmpty()) return List.of();
        List<String> items = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : ranksAt.entrySet()) {
            items.add((e.getValue().size() == 1 ? "rank " : "ranks ") + RankRanges.format(e.getValue(), ",") + " " + e.getKey()
                    + (items.size() + 1 < ranksAt.size() ? "," : ""));
        }
        return Words.wrap("  share:", "    ", items.toArray(String[]::new), HandleTable.WIDTH);
    }

    /**
     * The STATUS column: the job's word from its records ({@link StatusWord#ofRecords}) by name when
     * it fits (one bit), else its number ({@code 12} = ER_PR0+ER_OTH).
     */
    static String statusColumn(StatusWord w) {
        return w.name().length() <= 6 ? w.name() : Integer.toString(w.bits());
    }

    /** How long a collector may take to list its host's records (it reads no rank). */
    private static final Duration COLLECT_TIMEOUT = Duration.ofSeconds(5);

    /**
     * {@code jobs} with the records the collectors reported added (a job known only elsewhere
     * becomes an entry of its own), newest first; {@code running} gets each remote record's process
     * state as its host told it, {@code problems} one line per host that did not answer or refused a file.
     */
    static List<JobDirectory.JobEntry> withHosts(List<JobDirectory.JobEntry> jobs, HostCollectors.Round round,
                                                 Map<JobRecord, Boolean> running, List<String> problems) {
        Map<String, List<JobRecord>> records = new LinkedHashMap<>();
        Map<String, List<String>> refused = new LinkedHashMap<>();
        Map<String, Path> dirs = new LinkedHashMap<>();
        for (JobDirectory.JobEntry j : jobs) {
            records.put(j.id(), new ArrayList<>(j.records()));
            refused.put(j.id(), new ArrayList<>(j.refused()));
            dirs.put(j.id(), j.dir());
        }
        for (CollectorReport r : round.reports()) {
            if (LocalProcesses.isLocal(r.host())) continue; // read here already
            for (CollectorReport.Record x : r.records()) {
                String id = x.record().job();
                records.computeIfAbsent(id, k -> new ArrayList<>()).add(x.record());
                refused.computeIfAbsent(id, k -> new ArrayList<>());
                dirs.putIfAbsent(id, x.record().file().getParent());
                running.put(x.record(), x.running());
            }
            for (String why : r.refused()) problems.add("on " + r.host() + ": " + why);
        }
        for (Map.Entry<String, String> e : round.unanswered().entrySet()) problems.add("host " + e.getKey() + ": " + e.getValue());
        List<JobDirectory.JobEntry> out = new ArrayList<>();
        for (String id : records.keySet()) out.add(JobDirectory.entry(id, dirs.get(id), records.get(id), refused.get(id)));
        JobDirectory.sortNewestFirst(out);
        return out;
    }

    /**
     * One line of the table; the hosts come last and are shortened to {@code first,second +N}
     * so that the line fits {@link HandleTable#WIDTH} columns (a job id of up to 24 characters).
     */
    static String row(String job, String ranks, String alive, String status, String binding, String started,
                      List<String> hosts) {
        String head = String.format("%-24s %-5s %-5s %-6s %-7s %-17s ", job, ranks, alive, status, binding, started);
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
