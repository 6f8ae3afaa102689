package io.mpilens.headless.cli;

import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.observe.CollectorReport;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.observe.LocalProcesses;
import java.util.concurrent.CompletableFuture;
import io.mpilens.headless.observe.JobSnapshotter;
import io.mpilens.headless.text.RankRanges;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code mpilens handles}: the MPI handles of every rank, read over JDWP. */
@Command(name = "handles", mixinStandardHelpOptions = true,
        description = {"Show the MPI handles of running ranks, orphans included.",
            "Each rank must run with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=HOST:PORT"
                + " and the mpilens agent (-javaagent:mpilens-agent.jar); a rank without the agent is read from"
                + " its MPI binding's own objects instead, marked REDUCED INFORMATION."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank was read (ranks without the agent: from the binding's objects, marked"
                + " REDUCED INFORMATION)", "1:internal failure", "2:usage error (also: no such job)",
            "3:some ranks could not be read (one line each on stderr)"},
        footer = {"", "With --job ID the addresses come from the records the ranks' agents wrote (see 'mpilens jobs')."})
final class HandlesCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @picocli.CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
    JobTarget.Choice target;

    @picocli.CommandLine.Mixin
    HandleOutput output;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Per rank: time to connect, and again to read (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Option(names = "--suspend", description = "Suspend each JVM while reading it, then resume it."
            + " Without it the ranks keep running and rows changed mid-read are skipped.")
    boolean suspend;

    @Option(names = "--agentless", description = "Read the MPI binding's own objects, even where the agent runs"
            + " (reduced information). Ranks without the agent are read so anyway, marked as such.")
    boolean agentless;

    @Option(names = "--ranks", paramLabel = "LIST", description = "Only these COMM_WORLD ranks, e.g. 0,3-5 (with"
            + " --job only their JVMs are read).")
    String ranks;

    @picocli.CommandLine.Mixin
    HostsOption hostsOption;

    @Override
    public Integer call() {
        Duration timeout = HandleOutput.timeout(timeoutSeconds, spec);
        HostCollectors collectors = target.job != null ? hostsOption.collectors(parent.env) : null;
        // the other hosts' collectors read their ranks while this host's are read here
        CompletableFuture<HostCollectors.Round> collecting = collectors == null ? null
                : collectors.collectAsync(target.job, timeout, false);
        java.util.Set<Integer> only = null;
        if (ranks != null) {
            try {
                only = RankRanges.parse(ranks);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--ranks: " + e.getMessage());
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> problems = new java.util.ArrayList<>();
        JobTarget.Addresses addresses;
        boolean localJob = collectors == null
                || java.nio.file.Files.isDirectory(JobDirectory.forCurrentUser(parent.env).root().resolve(target.job));
        try {
            // with other hosts, their ranks are not this host's records: all of this host's are read, then filtered
            addresses = localJob ? JobTarget.addresses(target, parent.env, collectors == null ? only : null, collectors != null, problems)
                    : new JobTarget.Addresses(List.of(), java.util.Map.of());
        } catch (java.io.IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_USAGE;
        }
        for (String p : problems) err.println("mpilens: " + p);
        JobSnapshotter snapshotter = new JobSnapshotter(timeout, suspend).agentless(agentless);
        JobSnapshotter.WithAgentless read = snapshotter.snapshotWithAgentless(addresses.toRead());
        if (localJob) read = JobTarget.retryMoved(target, parent.env, snapshotter, read, addresses.byRank());
        if (!agentless) {
            for (String source : new java.util.LinkedHashSet<>(read.agentless().stream().map(p -> p.source()).toList())) {
                err.println("mpilens: " + source + " runs without the mpilens agent: showing what the MPI binding's"
                        + " own objects hold, REDUCED INFORMATION");
            }
        }
        JobSnapshot job = addresses.placed(read.job());
        if (collecting != null) {
            job = withHosts(job, collecting.join());
            if (!localJob && job.ranks().isEmpty() && job.failures().isEmpty()) {
                err.println("mpilens: no job '" + target.job + "' on this host nor on " + String.join(", ", collectors.hosts()));
                return MpiLensCli.EXIT_USAGE;
            }
        }
        List<io.mpilens.headless.agentless.AgentlessProcess> reduced = read.agentless();
        String notFound = null;
        if (only != null) {
            java.util.Set<Integer> keep = only;
            job = new JobSnapshot(job.ranks().stream().filter(r -> keep.contains(r.process().rank())).toList(), job.failures());
            reduced = reduced.stream().filter(p -> keep.contains(p.rank())).toList();
            if (target.addresses != null && job.complete()) { // with --job, a rank without a record is already named
                java.util.Set<Integer> missing = new java.util.TreeSet<>(only);
                job.ranks().forEach(r -> missing.remove(r.process().rank()));
                reduced.forEach(p -> missing.remove(p.rank()));
                if (!missing.isEmpty()) {
                    notFound = "no rank " + RankRanges.format(new java.util.ArrayList<>(missing), ",") + " in the JVMs at "
                            + target.addresses.size() + " address" + (target.addresses.size() == 1 ? "" : "es");
                }
            }
        }
        output.print(job, reduced, out, parent.env);
        int code = HandleOutput.reportFailures(job, err);
        if (notFound != null) err.println("mpilens: " + notFound);
        return problems.isEmpty() && notFound == null ? code : MpiLensCli.EXIT_UNREADABLE;
    }

    /**
     * {@code job} plus the ranks the collectors on other hosts read there (each with the snapshot it
     * decoded, under {@code HOST/ADDRESS}); a rank of theirs that did not answer and a host whose
     * collector did not answer are failures.
     */
    static JobSnapshot withHosts(JobSnapshot job, HostCollectors.Round round) {
        List<JobSnapshot.Rank> ranks = new java.util.ArrayList<>(job.ranks());
        List<JobSnapshot.Failure> failures = new java.util.ArrayList<>(job.failures());
        for (CollectorReport r : round.reports()) {
            if (LocalProcesses.isLocal(r.host())) continue; // read here
            for (RankStatus x : r.ranks()) {
                String where = r.host() + "/" + x.address();
                if (x.snapshot() != null) ranks.add(new JobSnapshot.Rank(where, x.snapshot()));
                else failures.add(new JobSnapshot.Failure(where, "rank " + x.rank() + " on " + r.host() + ": " + x.state()
                        + (x.evidence() == null ? "" : " (" + x.evidence() + ")")));
            }
        }
        for (java.util.Map.Entry<String, String> e : round.unanswered().entrySet()) {
            failures.add(new JobSnapshot.Failure("host " + e.getKey(), "host " + e.getKey() + ": " + e.getValue()));
        }
        return new JobSnapshot(ranks, failures);
    }

    static final class AddressConverter implements CommandLine.ITypeConverter<JdwpAddress> {
        @Override
        public JdwpAddress convert(String value) {
            try {
                return JdwpAddress.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
