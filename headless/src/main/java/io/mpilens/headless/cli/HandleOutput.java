package io.mpilens.headless.cli;

import io.mpilens.headless.JobSnapshot;
import io.mpilens.headless.json.SnapshotJson;
import io.mpilens.headless.text.HandleTable;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * What every command that shows handles shares ({@code handles}, {@code dump}, {@code demo}):
 * the options --json, --all, --no-color and the way a snapshot and its failures are printed.
 */
final class HandleOutput {
    @Option(names = "--json", description = "Print JSON (schema " + SnapshotJson.SCHEMA + ") instead of a table.")
    boolean json;

    @Option(names = "--all", description = "Also list predefined handles nothing refers to (MPI_INT, MPI_SUM, ...).")
    boolean all;

    @Option(names = "--no-color", description = "No ANSI colour (also: NO_COLOR in the environment).")
    boolean noColor;

    /** The snapshot as JSON or as a table, on {@code out}. */
    void print(JobSnapshot job, PrintWriter out, Map<String, String> env) {
        if (json) {
            out.println(SnapshotJson.write(job));
        } else {
            HandleTable table = new HandleTable(HandleTable.colorWanted(noColor, env)).showPredefined(all);
            for (String line : table.lines(job)) out.println(line);
        }
        out.flush();
    }

    /** One line per address that could not be read, on {@code err}; the exit code that goes with it. */
    static int reportFailures(JobSnapshot job, PrintWriter err) {
        for (JobSnapshot.Failure f : job.failures()) err.println("mpilens: " + f.message());
        err.flush();
        return job.complete() ? MpiLensCli.EXIT_OK : MpiLensCli.EXIT_UNREADABLE;
    }

    /** A --timeout value in seconds, checked: more than 0, at most an hour. */
    static Duration timeout(double seconds, CommandSpec spec) {
        if (!(seconds > 0) || seconds > 3600) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--timeout must be between 0 and 3600 seconds, not " + seconds);
        }
        return Duration.ofMillis(Math.max(1, Math.round(seconds * 1000)));
    }
}
