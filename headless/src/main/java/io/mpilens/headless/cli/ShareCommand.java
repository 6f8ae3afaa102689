package io.mpilens.headless.cli;

import io.mpilens.api.job.HostName;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.ShareRecords;
import io.mpilens.headless.json.JsonWriter;
import io.mpilens.headless.share.JobShare;
import java.io.IOException;
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

/**
 * {@code mpilens share --job ID}: holds the one JDWP connection of every rank JVM of the job on
 * this host and offers each a port on 127.0.0.1 that any debugger attaches to as to the JVM,
 * while mpilens reads through the same ports (they are written beside the job's records).
 */
@Command(name = "share", mixinStandardHelpOptions = true,
        description = {"Share each rank's JDWP connection: a port per rank on 127.0.0.1 for any debugger (jdb, IntelliJ"
                + " IDEA, VS Code, Eclipse, NetBeans), while mpilens reads the job through the same ports.",
            "Example: mpilens share --job run-20261128-093000-a1b2, then jdb -attach 127.0.0.1:PORT"},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the job ended", "1:an internal failure (printed)", "2:usage error, or no such job",
            "130:stopped with Ctrl-C (the debuggers attached through the share are dropped; the job runs on)"})
final class ShareCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @Option(names = "--job", required = true, paramLabel = "ID", description = "A job listed by 'mpilens jobs'.")
    String job;

    @Option(names = "--json", description = "Print the table as one JSON object (schema mpilens-share/1) per change.")
    boolean json;

    @Option(names = "--base-port", paramLabel = "PORT", defaultValue = "0",
            description = "Rank r listens on PORT+r (default: free ports, printed).")
    int basePort;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Per rank: time to connect to its JVM (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Duration timeout = HandleOutput.timeout(timeoutSeconds, spec);
        if (basePort < 0 || basePort > 65_535) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--base-port must be between 1 and 65535, not " + basePort);
        }
        JobDirectory directory = JobDirectory.forCurrentUser(parent.env);
        try {
            directory.job(job);
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_USAGE;
        }
        JobShare share = new JobShare(directory, job, basePort, timeout, line -> {
            err.println("mpilens: " + line);
            err.flush();
        });
        try {
            share.checkNoOtherShare();
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_USAGE;
        }
        Thread onCtrlC = new Thread(share::close, "mpilens-share-close");
        Runtime.getRuntime().addShutdownHook(onCtrlC);
        try {
            err.println("mpilens: sharing job " + job + "; attach a debugger to a rank's port, e.g. jdb -attach 127.0.0.1:PORT;"
                    + " Ctrl-C ends the share");
            err.flush();
            share.serve(() -> print(share, out));
            err.println("mpilens: job " + job + " ended; the share ends with it");
            return MpiLensCli.EXIT_OK;
        } finally {
            share.close();
            try {
                Runtime.getRuntime().removeShutdownHook(onCtrlC);
            } catch (IllegalStateException ignored) {
                // shutting down: the hook runs
            }
        }
    }

    private void print(JobShare share, PrintWriter out) {
        List<JobShare.Served> served = share.served();
        if (json) {
            out.println(json(job, served));
        } else {
            out.println(table(served));
        }
        out.flush();
    }

    /** The table of the ranks served: rank (or spawned process), port, pid, the JVM's own listener. */
    static String table(List<JobShare.Served> served) {
        StringBuilder b = new StringBuilder(String.format("%-18s %-16s %-8s %s%n", "RANK", "PORT", "PID", "JVM (held)"));
        for (JobShare.Served s : served) {
            b.append(String.format("%-18s %-16s %-8d %s%n", s.spawned() ? s.label() : s.rankList(),
                    s.share().address(), s.pid(), s.share().jvm()));
        }
        return b.toString().stripTrailing();
    }

    static String json(String job, List<JobShare.Served> served) {
        JsonWriter w = new JsonWriter().beginObject().field("schema", ShareRecords.SCHEMA)
                .field("job", job).field("host", HostName.local()).name("ranks").beginArray();
        for (JobShare.Served s : served) {
            w.beginObject().field("rank", s.rank()).field("ranks", s.rankList()).field("spawned", s.spawned()).field("pid", s.pid())
                    .field("port", s.share().address().toString()).field("jvm", s.share().jvm().toString()).endObject();
        }
        return w.endArray().endObject().toString();
    }
}
