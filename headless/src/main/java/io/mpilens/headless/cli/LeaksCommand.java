package io.mpilens.headless.cli;

import io.mpilens.headless.leaks.LeakReport;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.observe.JobSnapshotter;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code mpilens leaks}: handles lost track of, live or from heap dumps, grouped by creation site. */
@Command(name = "leaks", mixinStandardHelpOptions = true,
        description = {"Report MPI handles a program lost track of, grouped by where they were created.",
            "Most first: wrappers garbage-collected without free(); and for ranks that ended (MPI finalized, or a heap dump"
                + " taken at death) requests never completed and handles still active."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank was read (leaks or not)", "1:internal failure",
            "2:usage error (also: no such job, a FILE that does not exist, or a directory)",
            "3:some ranks or dumps could not be read (one line each on stderr)"})
final class LeaksCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    /** --job or --attach; absent when heap dumps are given instead. */
    @ArgGroup(exclusive = true, multiplicity = "0..1")
    JobTarget.Choice target;

    @Parameters(arity = "0..*", paramLabel = "FILE", description = "Heap dumps (.hprof, .hprof.gz), one per rank JVM.")
    List<Path> files;

    @Option(names = "--json", description = "Print JSON (schema " + LeakReport.SCHEMA + ") instead of a table.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Per rank with --job/--attach: time to connect, and again to read (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @picocli.CommandLine.Mixin
    HostsOption hostsOption;

    @Override
    public Integer call() {
        boolean live = target != null;
        boolean dumps = files != null && !files.isEmpty();
        JobTarget.requireOneSource(spec, target, dumps);
        Duration timeout = HandleOutput.timeout(timeoutSeconds, spec);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (dumps && !HandleOutput.dumpFilesExist(files, err)) return MpiLensCli.EXIT_USAGE;
        boolean problems = false;
        JobSnapshot job;
        if (live) {
            JobTarget.Read read = JobTarget.read(target, parent.env, target.job != null ? hostsOption.collectors(parent.env) : null,
                    null, new JobSnapshotter(timeout, true), timeout, err);
            if (read == null) return MpiLensCli.EXIT_USAGE;
            job = read.job();
            problems = read.problems();
        } else {
            job = DumpCommand.read(files, err);
        }
        LeakReport report = LeakReport.of(job, !live);
        if (json) out.println(report.json(job.failures()));
        else if (!job.ranks().isEmpty() || (job.failures().isEmpty() && !problems)) {
            for (String line : report.lines()) out.println(line); // no empty report when nothing was read
        }
        out.flush();
        int code = HandleOutput.reportFailures(job, err);
        return problems ? MpiLensCli.EXIT_UNREADABLE : code;
    }
}
