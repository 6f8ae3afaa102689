package io.mpilens.headless.cli;

import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.observe.JobSnapshotter;
import io.mpilens.headless.text.RankRanges;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
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
        java.util.Set<Integer> only = null;
        if (ranks != null) {
            try {
                only = RankRanges.parse(ranks);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--ranks: " + e.getMessage());
            }
        }
        HostCollectors collectors = target.job != null ? hostsOption.collectors(parent.env) : null;
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JobSnapshotter snapshotter = new JobSnapshotter(timeout, suspend).agentless(agentless);
        JobTarget.Read read = JobTarget.read(target, parent.env, collectors, only, snapshotter, timeout, err);
        if (read == null) return MpiLensCli.EXIT_USAGE;
        if (!agentless) {
            for (String source : new java.util.LinkedHashSet<>(read.agentless().stream().map(p -> p.source()).toList())) {
                err.println("mpilens: " + source + " runs without the mpilens agent: showing what the MPI binding's"
                        + " own objects hold, REDUCED INFORMATION");
            }
        }
        JobSnapshot job = read.job();
        List<AgentlessProcess> reduced = read.agentless();
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
        return !read.problems() && notFound == null ? code : MpiLensCli.EXIT_UNREADABLE;
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
