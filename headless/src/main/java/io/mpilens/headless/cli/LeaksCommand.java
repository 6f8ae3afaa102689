package io.mpilens.headless.cli;

import io.mpilens.headless.leaks.LeakReport;

import io.mpilens.headless.JobSnapshot;
import io.mpilens.headless.JobSnapshotter;
import io.mpilens.headless.jdi.JdwpAddress;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code mpilens leaks}: handles lost track of, live or from heap dumps, grouped by creation site. */
@Command(name = "leaks", mixinStandardHelpOptions = true,
        description = {"Report MPI handles a program lost track of, grouped by where they were created, most first:",
            "wrappers garbage-collected without free(); and for ranks that ended (MPI finalized, or a heap dump"
                + " taken at death) requests never completed and handles still active."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank was read (leaks or not)", "1:internal failure", "2:usage error",
            "3:some ranks or dumps could not be read (one line each on stderr)"})
final class LeaksCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @Option(names = "--attach", split = ",", paramLabel = "HOST:PORT",
            converter = HandlesCommand.AddressConverter.class, description = "JDWP addresses of running ranks.")
    List<JdwpAddress> addresses;

    @Parameters(arity = "0..*", paramLabel = "FILE", description = "Heap dumps (.hprof, .hprof.gz), one per rank JVM.")
    List<Path> files;

    @Option(names = "--json", description = "Print JSON (schema " + LeakReport.SCHEMA + ") instead of a table.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Per rank with --attach: time to connect, and again to read (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Override
    public Integer call() {
        boolean live = addresses != null && !addresses.isEmpty();
        boolean dumps = files != null && !files.isEmpty();
        if (live == dumps) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give either --attach HOST:PORT,... or heap dump files, not " + (live ? "both" : "neither"));
        }
        Duration timeout = HandleOutput.timeout(timeoutSeconds, spec);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JobSnapshot job = live
                ? new JobSnapshotter(timeout, true).snapshot(addresses)
                : DumpCommand.read(files, err);
        LeakReport report = LeakReport.of(job, !live);
        if (json) out.println(report.json(job.failures()));
        else for (String line : report.lines()) out.println(line);
        out.flush();
        return HandleOutput.reportFailures(job, err);
    }
}
