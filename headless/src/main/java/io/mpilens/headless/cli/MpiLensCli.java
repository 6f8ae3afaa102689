package io.mpilens.headless.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code mpilens} command. Exit codes: 0 everything was read, 2 usage error, 3 some ranks
 * could not be read, 1 an internal failure (reported in one line, never a stack trace); the commands
 * that exit with a status word ({@code status}, {@code run --status-exit}) keep 0..31 for the word
 * and use 64 (usage), 66 (nothing to read) and 70 (internal failure) instead.
 */
@Command(name = "mpilens", mixinStandardHelpOptions = true, versionProvider = MpiLensCli.Version.class,
        subcommands = {HandlesCommand.class, CollectCommand.class, DumpCommand.class, LeaksCommand.class, DemoCommand.class, JobsCommand.class, RunCommand.class, ShareCommand.class, CominfoCommand.class, HostinfoCommand.class, CallsCommand.class, StatusCommand.class, WatchCommand.class, McpCommand.class, CommandLine.HelpCommand.class},
        description = "See inside the MPI objects of running Java MPI applications.")
public final class MpiLensCli implements Runnable {
    public static final int EXIT_OK = 0;
    public static final int EXIT_INTERNAL = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_UNREADABLE = 3;

    final Map<String, String> env;
    @Spec
    CommandSpec spec;

    MpiLensCli(Map<String, String> env) {
        this.env = env;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.getenv()));
    }

    /** Runs one command line; output goes to {@code out} and {@code err}, nothing calls System.exit. */
    public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        CommandLine cli = new CommandLine(new MpiLensCli(env));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((e, arguments) -> {
            CommandLine line = e.getCommandLine();
            // picocli starts some messages with "Error: ": the prefix already says so
            line.getErr().println("mpilens: " + String.valueOf(e.getMessage()).replaceFirst("^Error: ", ""));
            line.getErr().println("Try '" + line.getCommandSpec().qualifiedName() + " --help' for the options.");
            return exitsWithWord(line, args) ? StatusCommand.EXIT_NO_WORD_USAGE : EXIT_USAGE;
        });
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            line.getErr().println("mpilens: " + message);
            return exitsWithWord(line, args) ? StatusCommand.EXIT_NO_WORD_INTERNAL : EXIT_INTERNAL;
        });
        if (args.length > 0 && !args[0].startsWith("-") && !cli.getSubcommands().containsKey(args[0])) {
            // picocli takes an unknown command for an argument, and with --help prints the top-level help and exits 0
            cli.getErr().println("mpilens: unknown command '" + args[0] + "'; the commands: "
                    + String.join(", ", new java.util.TreeSet<>(cli.getSubcommands().keySet())));
            cli.getErr().println("Try 'mpilens --help' for what each does.");
            cli.getErr().flush();
            return EXIT_USAGE;
        }
        int code = cli.execute(args);
        cli.getOut().flush();
        cli.getErr().flush();
        return code;
    }

    /**
     * Whether the command exits with a status word ({@code status}, {@code run --status-exit}): its
     * failures then use codes of 64 and more, outside the word's 0..31.
     */
    private static boolean exitsWithWord(CommandLine line, String[] args) {
        String name = line.getCommandSpec().name();
        return StatusCommand.NAME.equals(name) || "run".equals(name) && java.util.Arrays.asList(args).contains(RunCommand.STATUS_EXIT);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command, for example: mpilens handles"
                + " --attach HOST:PORT");
    }

    /**
     * The agent jar the ranks get: {@code -Dmpilens.agentJar} (the {@code mpilens} script passes a
     * copy that a rebuild does not rewrite), else {@code runtime-agent/target/mpilens-agent.jar}
     * under {@code -Dmpilens.home}.
     */
    static java.nio.file.Path agentJar() {
        String given = System.getProperty("mpilens.agentJar");
        return given != null && !given.isEmpty() ? java.nio.file.Paths.get(given).toAbsolutePath()
                : java.nio.file.Paths.get(System.getProperty("mpilens.home", ".")).toAbsolutePath()
                        .resolve("runtime-agent/target/mpilens-agent.jar");
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = MpiLensCli.class.getPackage().getImplementationVersion();
            return new String[] {"mpilens " + (v == null ? "(development build)" : v)};
        }
    }
}
