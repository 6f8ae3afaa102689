package io.mpilens.headless.cli;

import io.mpilens.api.model.MpiState;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.JobObserver;
import io.mpilens.headless.observe.LocalProcesses;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.share.JobShare;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code mpilens run}: launches a job through the one job launcher with the agent and JDWP on
 * every rank, under a job id of its own ({@code MPILENS_JOB}), prints the id and the job's
 * output, and waits. Ctrl-C ends the job and everything it started.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Launch a Java MPI job with the mpilens agent and JDWP on every rank, registered as a job.",
            "Example: mpilens run --binding openmpi -np 4 -- -cp app.jar com.example.Main arg1"},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the job ended with exit code 0", "1:the job ended with another exit code (printed), or"
                + " could not be started", "2:usage error", "130:stopped with Ctrl-C (the job and every rank with it)",
                "With --status-exit: 0-31 the job's status word instead (see 'mpilens status --help'), 64 usage error,"
                + " 70 the job could not be started"})
final class RunCommand implements Callable<Integer> {
    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @Option(names = "--binding", defaultValue = "openmpi", paramLabel = "BINDING",
            description = "openmpi, mpj-multicore or mpj-niodev (default: ${DEFAULT-VALUE}).")
    String binding;

    @Option(names = "-np", required = true, paramLabel = "N", description = "Number of ranks.")
    int np;

    @Option(names = "--mca-continue", description = "Open MPI: keep the other ranks running when one dies"
            + " (--mca orte_abort_on_non_zero_status 0).")
    boolean mcaContinue;

    @Option(names = "--mpirun-args", paramLabel = "WORDS",
            description = {"Open MPI: more arguments for mpirun, split at spaces, e.g. \"--host n1:4,n2:4\" or"
                    + " \"--hostfile hosts.txt\" for ranks on other hosts (the agent jar, the application and java"
                    + " at the same paths there); 'mpilens cominfo --job ID' here then finds those hosts from this"
                    + " mpirun and reads their ranks through a collector on each."})
    String mpirunArgs;

    @Option(names = "--agent-options", paramLabel = "OPTS", description = "Options for the agent, e.g. requestStacks=true.")
    String agentOptions;

    @Option(names = "--job-id", paramLabel = "ID", description = "The job id (default: run-<date>-<time>-<random>).")
    String jobId;

    @Option(names = "--share", description = {"Share each rank's JDWP connection as 'mpilens share --job ID' does: a"
            + " port per rank on 127.0.0.1 for any debugger, printed on stderr as the ranks register (Open MPI and MPJ"
            + " Express on this host)."})
    boolean share;

    @Option(names = "--share-base-port", paramLabel = "PORT", defaultValue = "0",
            description = "With --share: rank r listens on PORT+r (default: free ports).")
    int shareBasePort;

    static final String STATUS_EXIT = "--status-exit";

    @Option(names = STATUS_EXIT, description = {"Exit with the job's status word (as 'mpilens status': 0 OK, 1-31"
            + " its bits) when it ends, printed with its reasons on stderr: ranks that ended before MPI_Finalize,"
            + " the MPI errors each rank showed while it ran (read every second, as watch does), orphans or leaked"
            + " handles that grew between a rank's first and last look, the launcher's exit code. Then 64 is a usage error, 70 a job that could not be started."})
    boolean statusExit;

    @Parameters(paramLabel = "JAVA-ARGS", arity = "1..*",
            description = "After --: JVM options, -cp CLASSPATH, the main class and its arguments.")
    List<String> javaArgs;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = spec.commandLine().getOut();
        Binding b;
        try {
            b = Binding.parse(binding);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (np < 1) throw new CommandLine.ParameterException(spec.commandLine(), "-np must be at least 1");
        if (mcaContinue && b != Binding.OPENMPI) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--mca-continue is for --binding openmpi");
        }
        if (mpirunArgs != null && b != Binding.OPENMPI) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--mpirun-args is for --binding openmpi"
                    + " (MPJ Express niodev reads its hosts from the machines file of its starter)");
        }
        Path agent = MpiLensCli.agentJar();
        if (!Files.isRegularFile(agent)) {
            err.println("mpilens: the agent jar is missing at " + agent + ": build first (./mvnw install -DskipTests)");
            return statusExit ? StatusCommand.EXIT_NO_WORD_USAGE : MpiLensCli.EXIT_USAGE;
        }
        String id = jobId != null ? jobId : "run-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        if (!id.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--job-id may hold letters, digits, . _ - only");
        }
        JobSpec.Builder jb;
        try {
            jb = parseJavaArgs(b, javaArgs).np(np);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        jb.agentJar(agent).agentOptions(agentOptions).jdwp(true)
                .env("MPILENS_JOB", id).jvmOptions("-Dmpilens.job=" + id)
                .workingDirectory(Paths.get("").toAbsolutePath());
        if (parent.env.get("MPILENS_JOBS") != null) jb.env("MPILENS_JOBS", parent.env.get("MPILENS_JOBS")); // where this command reads them
        if (shareBasePort < 0 || shareBasePort > 65_535 || shareBasePort > 0 && !share) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--share-base-port takes a port (1..65535), with --share");
        }
        if (mcaContinue) jb.mpirunArgs("--mca orte_abort_on_non_zero_status 0");
        if (mpirunArgs != null) jb.mpirunArgs(mpirunArgs);
        try (Job job = Job.launch(jb.build())) {
            // at most 80 columns each with a default job id (24 characters)
            err.println("mpilens: job " + id + " started (" + b.id() + ", " + np + " ranks)");
            err.println("mpilens: launcher pid " + job.pid() + "; Ctrl-C stops the job and every rank");
            err.println("mpilens: in another shell: mpilens cominfo --job " + id);
            if (mpirunArgs != null) err.println("mpilens: ranks elsewhere are read by a collector on each of mpirun's hosts");
            err.flush();
            JobShare shared = share ? share(id, err) : null;
            StatusFollower follower = statusExit ? new StatusFollower(JobDirectory.forCurrentUser(parent.env), id) : null;
            job.followOutput(l -> {
                (l.stderr() ? err : out).println(l);
                (l.stderr() ? err : out).flush();
            });
            int exit;
            try {
                exit = job.waitFor(Duration.ofDays(365));
            } finally {
                if (shared != null) shared.close();
                if (follower != null) follower.stop();
            }
            err.println("mpilens: job " + id + " ended, exit code " + exit);
            if (follower != null) {
                StatusWord w = follower.word(exit);
                err.println("mpilens: job " + id + " status " + w.line());
                for (StatusWord.Reason r : w.reasons()) err.println("mpilens:   " + StatusWord.name(r.bit()) + "  " + r.full());
                err.flush();
                return w.bits();
            }
            return exit == 0 ? MpiLensCli.EXIT_OK : MpiLensCli.EXIT_INTERNAL;
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return statusExit ? StatusCommand.EXIT_NO_WORD_INTERNAL : MpiLensCli.EXIT_INTERNAL;
        }
    }

    /**
     * {@code --status-exit}: observes the job every second while it runs (as {@code watch} does), so
     * that each rank's last snapshot (its MPI errors, its agent's health) is known when it has ended.
     */
    static final class StatusFollower {
        private final JobDirectory directory;
        private final String id;
        private final JobObserver observer;
        private final Thread thread;
        private volatile boolean stopped;
        /** Each rank's orphans and leaked handles at its first and its last look: growth over the run. */
        private final Map<Integer, StatusWord.Held> firstHeld = new ConcurrentHashMap<>();
        private final Map<Integer, StatusWord.Held> lastHeld = new ConcurrentHashMap<>();

        StatusFollower(JobDirectory directory, String id) {
            this.directory = directory;
            this.id = id;
            this.observer = JobObserver.forJob(directory, id, Duration.ofSeconds(5));
            this.thread = new Thread(this::follow, "mpilens-status-" + id);
            thread.setDaemon(true);
            thread.start();
        }

        private void follow() {
            while (!stopped) {
                try {
                    JobModel m = observer.observe();
                    for (RankStatus r : m.processes()) {
                        // counted while MPI runs in the rank: MPI_Finalize may let go of what it held
                        if (r.epoch() != 0 || r.snapshot() == null
                                || r.snapshot().mpiState() != MpiState.INITIALIZED) continue;
                        StatusWord.Held h = StatusWord.Held.of(r, m.at());
                        firstHeld.putIfAbsent(r.rank(), h);
                        lastHeld.put(r.rank(), h);
                    }
                } catch (IOException | RuntimeException e) {
                    // not registered yet (before MPI_Init), or ended meanwhile: the next round or the records tell
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.interrupt();
            thread.join(15_000); // a round is bounded by the deadline rule
        }

        /**
         * The word of the ended job: its records, the ranks' last snapshots, the launcher's exit code, and
         * the orphans or leaks that grew from a rank's first look to its last.
         */
        StatusWord word(int launcherExit) {
            List<JobRecord> records;
            try {
                records = directory.job(id).records();
            } catch (IOException e) {
                records = List.of(); // no rank registered: the launcher's exit code alone
            }
            return StatusWord.ofRecords(records, LocalProcesses::processRunning, observer.lastSnapshots(), launcherExit)
                    .with(StatusWord.grown(firstHeld.values(), lastHeld.values()));
        }
    }

    /** The job's share, served on a daemon thread while the job runs; its table goes to {@code err}. */
    private JobShare share(String id, PrintWriter err) {
        JobShare s = new JobShare(JobDirectory.forCurrentUser(parent.env), id, shareBasePort, Duration.ofSeconds(5), line -> {
            synchronized (err) {
                err.println("mpilens: " + line);
                err.flush();
            }
        });
        Thread t = new Thread(() -> {
            try {
                s.serve(() -> {
                    synchronized (err) {
                        err.println(ShareCommand.table(s.served()));
                        err.flush();
                    }
                });
            } catch (IOException e) {
                synchronized (err) {
                    err.println("mpilens: the share stopped: " + e.getMessage());
                    err.flush();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "mpilens-share-" + id);
        t.setDaemon(true);
        t.start();
        return s;
    }

    /** {@code [JVM options] [-cp|-classpath|--class-path CP] MainClass [args]}. */
    static JobSpec.Builder parseJavaArgs(Binding b, List<String> args) {
        List<String> jvm = new ArrayList<>();
        List<Path> cp = new ArrayList<>();
        int i = 0;
        for (; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path")) {
                if (i + 1 == args.size()) throw new IllegalArgumentException(a + " needs a value");
                for (String e : args.get(++i).split(java.io.File.pathSeparator)) if (!e.isEmpty()) cp.add(Paths.get(e));
            } else if (a.startsWith("-")) {
                jvm.add(a);
            } else {
                break;
            }
        }
        if (i == args.size()) throw new IllegalArgumentException("no main class after the JVM options: " + args);
        return JobSpec.builder(b, 1, args.get(i)).classPath(cp).jvmOptions(jvm).appArgs(args.subList(i + 1, args.size()));
    }
}
