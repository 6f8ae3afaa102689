package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobEnd;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.json.FaultJson;
import io.mpilens.headless.observe.HeapDumpJob;
import io.mpilens.headless.observe.HostCollectors;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.observe.LocalProcesses;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.HandleTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** What {@code cominfo}, {@code hostinfo} and {@code calls} share: observe the job once, print part of the model. */
abstract class FaultCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    /** --job or --attach; absent when heap dumps are given instead ({@link #dumps()}). */
    @ArgGroup(exclusive = true, multiplicity = "0..1")
    JobTarget.Choice target;

    @Option(names = "--json", description = "Print JSON (schema " + FaultJson.SCHEMA + ").")
    boolean json;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Per rank, at most; ranks that answer later than the others' skew + 20%% (at least 1 s)"
                    + " are UNAVAILABLE (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Option(names = "--no-color", description = "No ANSI colour (also: NO_COLOR in the environment).")
    boolean noColor;

    @picocli.CommandLine.Mixin
    HostsOption hostsOption;

    /** The model printed, null until one was ({@code status} exits with its word). */
    JobModel printed;

    /** The observer of this run, for subclasses that read more than the model ({@code calls}). */
    JobObserver observer;

    /** Subclasses that need more from each rank than the snapshot ask for it here. */
    JobObserver configure(JobObserver o) {
        return o;
    }

    /**
     * After the first look at a live job: a command that compares two looks takes the second here
     * ({@code calls --confirm}) and returns the model to print.
     */
    JobModel lookAgain(JobModel first) throws IOException {
        return first;
    }

    /** Heap dumps to build the model from instead of a live job (commands that take them). */
    List<Path> dumps() {
        return List.of();
    }

    abstract List<String> text(FaultBoxes boxes, JobModel m);

    abstract String json(JobModel m);

    /** Where {@code --svg} draws the picture; null when not asked (or the command draws none). */
    Path svgFile() {
        return null;
    }

    /** What {@code --svg} draws; null for commands that draw no picture. */
    java.util.function.Function<JobModel, String> picture() {
        return null;
    }

    /** Checks the shared options and sets up {@link #observer} for the job or addresses given. */
    void openObserver() {
        Duration timeout = HandleOutput.timeout(timeoutSeconds, spec);
        checkPicture();
        JobTarget.requireOneSource(spec, target, false);
        observer = configure(target.job != null
                ? JobObserver.forJob(JobDirectory.forCurrentUser(parent.env), target.job, timeout)
                : JobObserver.forAddresses(target.addresses, timeout));
        HostCollectors collectors = collectors();
        if (collectors != null && target.job != null) observer.withHosts(collectors);
    }

    private void checkPicture() {
        Path svg = svgFile();
        if (svg == null) return;
        if (picture() == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), spec.name() + " draws no picture: --svg is for"
                    + " cominfo, hostinfo and calls");
        }
        // checked before the job is read, so that a typo costs no round
        Path dir = svg.toAbsolutePath().getParent();
        String problem = Files.isDirectory(svg) ? svg + " is a directory: give a file name, e.g. "
                + svg.resolve(spec.name() + ".svg")
                : dir == null || !Files.isDirectory(dir) ? "cannot write " + svg + ": the directory " + dir
                        + " does not exist"
                : !Files.isWritable(dir) || (Files.exists(svg) && !Files.isWritable(svg))
                        ? "cannot write " + svg + ": permission denied; choose a writable file" : null;
        if (problem != null) throw new CommandLine.ParameterException(spec.commandLine(), "--svg: " + problem);
    }

    /** The collectors of {@code --hosts} / {@code $MPILENS_HOSTS}, null for this host only. */
    HostCollectors collectors() {
        // only a job has ranks elsewhere (--attach names JVMs): no hosts looked for, no collector started
        return hostsOption == null || target == null || target.job == null ? null : hostsOption.collectors(parent.env);
    }

    boolean color() {
        return HandleTable.colorWanted(noColor, parent.env);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Path> dumps = dumps() == null ? List.of() : dumps();
        JobTarget.requireOneSource(spec, target, !dumps.isEmpty());
        if (!dumps.isEmpty()) {
            HandleOutput.timeout(timeoutSeconds, spec);
            checkPicture();
            if (!HandleOutput.dumpFilesExist(dumps, err)) return MpiLensCli.EXIT_USAGE;
            HeapDumpJob.Reading r = HeapDumpJob.read(dumps, null);
            for (String p : r.problems()) err.println("mpilens: " + p);
            if (r.model().processes().isEmpty() && !r.problems().isEmpty()) return MpiLensCli.EXIT_UNREADABLE;
            int printed = print(r.model(), out, err);
            return printed != MpiLensCli.EXIT_OK ? printed
                    : r.problems().isEmpty() ? MpiLensCli.EXIT_OK : MpiLensCli.EXIT_UNREADABLE;
        }
        openObserver();
        if (!jobExists(err)) return MpiLensCli.EXIT_USAGE;
        JobModel m;
        try {
            m = observer.observe();
            for (String r : observer.refused()) err.println("mpilens: " + r);
            if (m.processes().isEmpty() && collectors() != null && target.job != null) {
                err.println("mpilens: no job '" + target.job + "' here nor on " + String.join(", ", collectors().hosts())
                        + " ('mpilens jobs --hosts " + String.join(",", collectors().hosts()) + "' lists them)");
                return MpiLensCli.EXIT_USAGE;
            }
            m = lookAgain(m);
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_INTERNAL;
        }
        int printed = print(m, out, err);
        return printed != MpiLensCli.EXIT_OK ? printed : reportUnanswered(m, err);
    }

    /** With {@code --job}: whether that job is registered; if not, says so on {@code err}. */
    boolean jobExists(PrintWriter err) {
        if (target == null || target.job == null) return true;
        if (collectors() != null) return true; // its ranks may all be elsewhere: the collectors say (call)
        try {
            JobDirectory.forCurrentUser(parent.env).job(target.job);
            return true;
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return false;
        }
    }

    /**
     * One line on stderr per rank that did not answer (the picture shows it UNAVAILABLE);
     * {@link MpiLensCli#EXIT_UNREADABLE} if there was one, as {@code handles} does.
     */
    static int reportUnanswered(JobModel m, PrintWriter err) {
        int code = MpiLensCli.EXIT_OK;
        for (RankStatus r : m.processes()) {
            if (r.state() != ProcessState.UNAVAILABLE) continue;
            String who = r.rank() >= 0 ? "rank " + r.rank() : r.address();
            err.println("mpilens: " + (r.evidence() == null || r.evidence().isEmpty()
                    ? who + " did not answer in time: try a longer --timeout"
                    : (r.rank() >= 0 ? who + ": " : "") + r.evidence()));
            code = MpiLensCli.EXIT_UNREADABLE;
        }
        err.flush();
        return code;
    }

    /**
     * With {@code --job}, a job whose every rank has ended and which did not finish: how it
     * aborted, from its records ({@link JobEnd}); null otherwise.
     */
    String abortLine() {
        if (target == null || target.job == null) return null;
        try {
            JobEnd end = JobEnd.of(JobDirectory.forCurrentUser(parent.env).job(target.job).records(), LocalProcesses::processRunning);
            return end.state() == JobEnd.State.ABORTED ? end.summary(ZoneId.systemDefault()) : null;
        } catch (IOException | RuntimeException e) {
            return null; // the records went: nothing to say about how it ended
        }
    }

    /** Prints the model, draws the picture if asked; the exit code. */
    private int print(JobModel m, PrintWriter out, PrintWriter err) {
        printed = m;
        if (json) out.println(json(m));
        else for (String l : text(new FaultBoxes(color()), m)) out.println(l);
        String aborted = json ? null : abortLine();
        if (aborted != null) out.println(aborted);
        out.flush();
        Path svgFile = svgFile();
        if (svgFile != null) {
            try {
                Files.writeString(svgFile, picture().apply(m), StandardCharsets.UTF_8);
                err.println("mpilens: wrote " + svgFile);
            } catch (IOException e) {
                err.println("mpilens: cannot write the picture to " + svgFile + " (" + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "): choose a writable file");
                return MpiLensCli.EXIT_INTERNAL;
            }
        }
        return MpiLensCli.EXIT_OK;
    }
}
