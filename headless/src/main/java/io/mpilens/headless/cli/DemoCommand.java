package io.mpilens.headless.cli;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.observe.JobSnapshotter;
import io.mpilens.headless.text.HandleTable;
import io.mpilens.headless.text.Words;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * Starts the 4-rank HandleTour example with the agent and JDWP on every rank, lets it reach the
 * pause where it has orphans and a leaked handle, prints the handles of every rank, then lets
 * it finish. Everything it starts is stopped when it ends, also on Ctrl-C.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run a 4-rank example job with the agent and show the MPI handles of every rank.",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the demo ran to its end", "1:a job of the demo failed (its last output is printed)",
            "2:usage error, or the agent or example classes are not built"})
final class DemoCommand implements Callable<Integer> {
    private static final Duration START = Duration.ofSeconds(120);
    private static final Duration READ = Duration.ofSeconds(20);
    private static final String[] POINTS = {"created", "orphans", "released", "finalized"};

    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--binding", defaultValue = "openmpi", paramLabel = "BINDING",
            description = "openmpi, mpj-multicore or mpj-niodev (default: ${DEFAULT-VALUE}).")
    String binding;

    @Option(names = "--at", defaultValue = "orphans", paramLabel = "POINT",
            description = "Pause to show: created, orphans or released (default: ${DEFAULT-VALUE}).")
    String point;

    @Option(names = "--no-recovery", description = "Skip the recovery story (Open MPI only): a rank is killed,"
            + " the survivors detect it and rebuild a communicator without it; cominfo before, during and after.")
    boolean noRecovery;

    @Option(names = "--recovery", defaultValue = "shrink", paramLabel = "KIND",
            description = "The recovery story to tell (Open MPI): shrink (the survivors build a communicator of"
                    + " themselves) or rebuild (they also spawn a replacement for the killed rank and merge with it;"
                    + " cominfo while they are inside spawn too). Default: ${DEFAULT-VALUE}.")
    String recovery;

    @Mixin
    HandleOutput output;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Binding b;
        try {
            b = Binding.parse(binding);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!List.of("created", "orphans", "released").contains(point)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--at must be created, orphans or released, not " + point);
        }
        if (!List.of("shrink", "rebuild").contains(recovery)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--recovery must be shrink or rebuild, not " + recovery);
        }
        Path home = Paths.get(System.getProperty("mpilens.home", ".")).toAbsolutePath();
        Path agent = MpiLensCli.agentJar();
        if (!Files.isRegularFile(agent)) {
            err.println("mpilens: the agent jar is missing at " + agent + ": build first (./mvnw install -DskipTests)");
            return MpiLensCli.EXIT_USAGE;
        }
        String example = b == Binding.OPENMPI ? "openmpi" : "mpj";
        for (String module : List.of("support", example)) {
            Path classes = home.resolve("examples/" + module + "/target/classes");
            if (!Files.isDirectory(classes.resolve("io/mpilens/examples"))) {
                err.println("mpilens: the example classes are missing at " + classes + ": build them first (./mvnw"
                        + " install -DskipTests -pl examples/" + module + " -am)");
                return MpiLensCli.EXIT_USAGE;
            }
        }
        Path control = Files.createTempDirectory("mpilens-demo-");
        JobSpec jobSpec = JobSpec.builder(b, 4, "io.mpilens.examples." + example + ".HandleTour")
                .classPath(home.resolve("examples/support/target/classes"),
                        home.resolve("examples/" + example + "/target/classes"))
                .agentJar(agent).agentOptions("requestStacks=true").jdwp(true).controlDir(control)
                // the demo's job records go away with it
                .env("MPILENS_JOBS", control.resolve("jobs").toString()).build();
        say(err, "starting 4 ranks of HandleTour (" + b.id() + ") with the agent and JDWP");
        try (Job job = Job.launch(jobSpec)) {
            List<JdwpAddress> addresses = new ArrayList<>();
            for (String a : job.awaitJdwpAddresses(START)) addresses.add(JdwpAddress.parse(a));
            say(err, "ranks listen for debuggers at " + addresses);
            // one connection per rank JVM for the whole demo: a JVM listening on port 0 moves
            // to a new port when a debugger detaches
            List<JdiTargetReader> readers = new ArrayList<>();
            try {
                for (JdwpAddress a : addresses) readers.add(JdiTargetReader.attach(a, READ));
                for (String p : POINTS) {
                    job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=" + p), 4, START);
                    if (p.equals(point)) show(readers, out, err);
                    job.release(p);
                }
            } catch (TargetReadException e) {
                // a rank that died right after it started listening: its own output says why
                err.println("mpilens: " + e.getMessage());
                err.println("mpilens demo: the job's last output:");
                err.println(job.tail());
                return MpiLensCli.EXIT_INTERNAL;
            } finally {
                for (JdiTargetReader r : readers) r.close();
            }
            int exit = job.waitFor(START);
            say(err, "the job finished (exit code " + exit + ")");
            if (exit != 0) return MpiLensCli.EXIT_INTERNAL;
        } catch (IOException e) {
            err.println("mpilens: " + e.getMessage());
            return MpiLensCli.EXIT_INTERNAL;
        } finally {
            deleteQuietly(control);
        }
        if (noRecovery) return MpiLensCli.EXIT_OK;
        if (b != Binding.OPENMPI) {
            say(err, "the recovery story needs Open MPI (MPJ Express cannot go on without a rank:"
                    + " multicore ends the JVM, niodev closes every channel); try --binding openmpi");
            return MpiLensCli.EXIT_OK;
        }
        return new RecoveryStory(home, agent, out, err, output.json,
                HandleTable.colorWanted(output.noColor, parent.env), "rebuild".equals(recovery)).run();
    }

    private void show(List<JdiTargetReader> readers, PrintWriter out, PrintWriter err) {
        List<JobSnapshot.Rank> ranks = new ArrayList<>();
        for (JdiTargetReader r : readers) {
            for (ProcessSnapshot p : JobSnapshotter.decode(r)) ranks.add(new JobSnapshot.Rank(r.describe(), p));
        }
        if (!output.json) {
            say(err, "every rank paused at '" + point + "'"
                    + ("orphans".equals(point) ? ": a communicator freed with a receive still pending on it,"
                    + " a datatype freed while a vector built from it lives, a group leaked" : ""));
        }
        output.print(new JobSnapshot(ranks, List.of()), out, parent.env);
    }

    /** {@code mpilens demo: TEXT} on {@code err}, wrapped at spaces to 80 columns, continued indented. */
    static void say(PrintWriter err, String text) {
        for (String line : Words.wrap("mpilens demo:", "  ", text.split(" "), HandleTable.WIDTH)) err.println(line);
        err.flush();
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
