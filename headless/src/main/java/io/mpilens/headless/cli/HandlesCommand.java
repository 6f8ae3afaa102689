package io.mpilens.headless.cli;

import io.mpilens.headless.JobSnapshot;
import io.mpilens.headless.JobSnapshotter;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.json.SnapshotJson;
import io.mpilens.headless.text.HandleTable;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code mpilens handles}: the MPI handles of every rank, read over JDWP. */
@Command(name = "handles", mixinStandardHelpOptions = true,
        description = {"Show the MPI handles of running ranks, orphans included.",
            "Each rank must run with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=HOST:PORT"
                + " and the mpilens agent (-javaagent:mpilens-agent.jar)."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every rank was read", "1:internal failure", "2:usage error",
            "3:some ranks could not be read (one line each on stderr)"},
        footer = {"", "With --job ID the addresses come from the records the ranks' agents wrote (see 'mpilens jobs')."})
final class HandlesCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @picocli.CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
    JobTarget.Choice target;

    @Option(names = "--json", description = "Print JSON (schema " + SnapshotJson.SCHEMA + ") instead of a table.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Per rank: time to connect, and again to read (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Option(names = "--suspend", description = "Suspend each JVM while reading it, then resume it."
            + " Without it the ranks keep running and rows changed mid-read are skipped.")
    boolean suspend;

    @Option(names = "--all", description = "Also list predefined handles nothing refers to (MPI_INT, MPI_SUM, ...).")
    boolean all;

    @Option(names = "--no-color", description = "No ANSI colour (also: NO_COLOR in the environment).")
    boolean noColor;

    @Override
    public Integer call() {
        if (!(timeoutSeconds > 0) || timeoutSeconds > 3600) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--timeout must be between 0 and 3600 seconds, not " + timeoutSeconds);
        }
        Duration timeout = Duration.ofMillis(Math.max(1, Math.round(timeoutSeconds * 1000)));
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> problems = new java.util.ArrayList<>();
        List<JdwpAddress> addresses;
        try {
            addresses = JobTarget.addresses(target, parent.env, problems);
        } catch (java.io.IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_USAGE;
        }
        for (String p : problems) err.println("mpilens: " + p);
        JobSnapshot job = new JobSnapshotter(timeout, suspend).snapshot(addresses);

        if (json) {
            out.println(SnapshotJson.write(job));
        } else {
            HandleTable table = new HandleTable(HandleTable.colorWanted(noColor, parent.env)).showPredefined(all);
            for (String line : table.lines(job)) out.println(line);
        }
        out.flush();
        for (JobSnapshot.Failure f : job.failures()) err.println("mpilens: " + f.message());
        err.flush();
        return job.complete() ? MpiLensCli.EXIT_OK : MpiLensCli.EXIT_UNREADABLE;
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
