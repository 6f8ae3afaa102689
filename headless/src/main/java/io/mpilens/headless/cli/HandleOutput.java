package io.mpilens.headless.cli;

import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.json.SnapshotJson;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.headless.observe.HandleFilter;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.text.AgentlessTable;
import io.mpilens.headless.text.HandleTable;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * What every command that shows handles shares ({@code handles}, {@code dump}, {@code demo}):
 * the options --json, --all, --no-color, --kind, --state and the way a snapshot and its failures are printed.
 */
final class HandleOutput {
    @Option(names = "--json", description = "Print JSON (schema " + SnapshotJson.SCHEMA + ") instead of a table.")
    boolean json;

    @Option(names = "--all", description = "Also list predefined handles nothing refers to (MPI_INT, MPI_SUM, ...).")
    boolean all;

    @Option(names = "--no-color", description = "No ANSI colour (also: NO_COLOR in the environment).")
    boolean noColor;

    @Option(names = "--kind", split = ",", paramLabel = "KIND", description = "Only handles of these kinds, e.g."
            + " COMMUNICATOR,REQUEST (${COMPLETION-CANDIDATES}).")
    List<HandleKind> kinds;

    @Option(names = "--state", split = ",", paramLabel = "STATE", description = "Only handles in these states:"
            + " ACTIVE, FREED (the orphans: freed but still held), RELEASED (the recent history).")
    List<Lifecycle> states;

    /** The --kind and --state of this command line. */
    HandleFilter filter() {
        return new HandleFilter(kinds == null ? null : java.util.EnumSet.copyOf(kinds),
                states == null ? null : java.util.EnumSet.copyOf(states));
    }

    /** The snapshot as JSON or as a table, on {@code out}. */
    void print(JobSnapshot job, PrintWriter out, Map<String, String> env) {
        print(job, List.of(), out, env);
    }

    /** The snapshot, then what was read without the agent (agentless mode), clearly marked as reduced. */
    void print(JobSnapshot job, List<AgentlessProcess> agentless, PrintWriter out, Map<String, String> env) {
        job = filter().apply(job);
        if (json) {
            out.println(SnapshotJson.write(job, agentless));
        } else {
            boolean color = HandleTable.colorWanted(noColor, env);
            List<String> lines = new ArrayList<>(new HandleTable(color).showPredefined(all).lines(job));
            List<String> reduced = new AgentlessTable(color).lines(agentless);
            if (!lines.isEmpty() && !reduced.isEmpty()) lines.add("");
            lines.addAll(reduced);
            for (String line : lines) out.println(line);
        }
        out.flush();
    }

    /** One line per address that could not be read, on {@code err}; the exit code that goes with it. */
    static int reportFailures(JobSnapshot job, PrintWriter err) {
        for (JobSnapshot.Failure f : job.failures()) err.println("mpilens: " + f.message());
        err.flush();
        return job.complete() ? MpiLensCli.EXIT_OK : MpiLensCli.EXIT_UNREADABLE;
    }

    /**
     * Whether every heap dump named on the command line is a readable file; if not, one line
     * on {@code err} naming the first that is not, and what to give instead.
     */
    static boolean dumpFilesExist(List<Path> files, PrintWriter err) {
        for (Path f : files) {
            String problem = Files.isDirectory(f) ? f + " is a directory: name the heap dump files in it, e.g. "
                    + f.resolve("*.hprof")
                    : !Files.exists(f) ? f + ": no such file (give one heap dump per rank JVM, .hprof or .hprof.gz)"
                    : !Files.isReadable(f) ? f + " is not readable: check its permissions" : null;
            if (problem != null) {
                err.println("mpilens: " + problem);
                err.flush();
                return false;
            }
        }
        return true;
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
