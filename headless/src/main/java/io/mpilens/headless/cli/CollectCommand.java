package io.mpilens.headless.cli;

import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.json.CollectorJson;
import io.mpilens.headless.observe.Collector;
import io.mpilens.headless.observe.CollectorRounds;
import io.mpilens.headless.observe.CollectorReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code mpilens collect}: the collector on one host, which a front end on another host starts
 * (with ssh; {@code --hosts} of {@code jobs}, {@code hostinfo}, …) and reads: this host's job
 * records and, for one job, its ranks here as read over loopback JDWP, as JSON lines on stdout.
 */
@Command(name = "collect", mixinStandardHelpOptions = true,
        description = {"Report this host's job records and a job's ranks here to a front end on another host.",
            "Prints the records and, with --job, that job's ranks here (state by the deadline rule, and the"
                + " snapshot of each that answered: its handles), their launcher daemons and, with --frames, their"
                + " threads' MPI calls, as JSON lines (schema " + CollectorReport.SCHEMA + ").",
            "Started on each host by 'mpilens jobs|hostinfo|cominfo|calls|watch --hosts H1,H2'; it reads only"
                + " this user's private records and never listens on any port."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:reported (also when the job has no record on this host)", "1:the job directory could not be read"})
final class CollectCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @Option(names = "--job", paramLabel = "ID", description = "Also read this job's ranks on this host.")
    String job;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Per rank, at most, as for cominfo (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Option(names = "--frames", description = "Also the MPI call each thread of the job's ranks here is inside (for 'calls').")
    boolean frames;

    @Option(names = "--rounds", description = {"Keep running: read one request per line on standard input"
            + " ('round N [--job ID] [--frames]'), answer each with its report and an end line; end at the end of"
            + " the input. What 'watch --hosts' starts, one per host for the whole watch."})
    boolean rounds;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (rounds) return rounds(out);
        try {
            CollectorReport r = Collector.collect(JobDirectory.forCurrentUser(parent.env), job,
                    HandleOutput.timeout(timeoutSeconds, spec), frames);
            for (String line : CollectorJson.lines(r)) out.println(line);
            out.flush();
            return MpiLensCli.EXIT_OK;
        } catch (IOException e) {
            spec.commandLine().getErr().println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_INTERNAL;
        }
    }

    /** {@code --rounds}: one report per request line, each followed by its end line, until the input ends. */
    private int rounds(PrintWriter out) {
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                java.nio.charset.StandardCharsets.UTF_8));
        java.time.Duration timeout = HandleOutput.timeout(timeoutSeconds, spec);
        try {
            String line;
            while ((line = in.readLine()) != null) {
                CollectorRounds.Request r = CollectorRounds.Request.parse(line);
                if (r == null) {
                    spec.commandLine().getErr().println("mpilens: not a round request: " + line);
                    spec.commandLine().getErr().flush();
                    continue;
                }
                try {
                    CollectorReport report = Collector.collect(JobDirectory.forCurrentUser(parent.env), r.jobId(), timeout, r.frames());
                    for (String l : CollectorJson.lines(report)) out.println(l);
                } catch (IOException e) {
                    // this round's answer is the reason (an empty report would say "no rank here")
                    spec.commandLine().getErr().println("mpilens: " + e.getMessage());
                    spec.commandLine().getErr().flush();
                }
                out.println(CollectorRounds.end(r.round()));
                out.flush();
            }
            return MpiLensCli.EXIT_OK;
        } catch (IOException e) {
            return MpiLensCli.EXIT_OK; // the front end went away
        }
    }
}
