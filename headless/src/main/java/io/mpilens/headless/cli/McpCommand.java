package io.mpilens.headless.cli;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code mpilens mcp}: the read commands as a Model Context Protocol server on stdin/stdout. The
 * server lives in the {@code mcp} module (the MCP SDK, Jackson 3 and Reactor stay out of this
 * bundle, which the Eclipse plugin loads), found here by name when its jar is on the class path.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = {"Answer other tools' questions: a Model Context Protocol server on standard input and output.",
            "Tools: jobs, handles, cominfo, hostinfo, calls, leaks, dump; each returns what the command's --json"
                + " prints, plus a short summary. Read-only. Register it with a client as the command"
                + " 'mpilens mcp' (docs/cli.md, 'Other tools: mpilens mcp')."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the client closed standard input", "1:internal failure",
            "2:usage error, or this jar has no MCP server (run it through the mpilens script)"})
final class McpCommand implements Callable<Integer> {
    static final String SERVER = "io.mpilens.mcp.McpServerMain";

    @ParentCommand
    MpiLensCli parent;
    @Spec
    CommandSpec spec;

    @Option(names = "--hold", paramLabel = "SECONDS", defaultValue = "30",
            description = "Keep each rank's JDWP connection this long after a call, for the next one (default:"
                    + " ${DEFAULT-VALUE}); meanwhile no other debugger can attach to that rank. 0: never keep one.")
    double holdSeconds;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (!(holdSeconds >= 0) || holdSeconds > 3600) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--hold must be between 0 and 3600 seconds, not " + holdSeconds);
        }
        Class<?> server;
        try {
            server = Class.forName(SERVER);
        } catch (ClassNotFoundException e) {
            err.println("mpilens: this jar holds no MCP server: run 'mpilens mcp' through the mpilens script, or"
                    + " java -jar mcp/target/mpilens-mcp.jar mcp (build it with ./mvnw install -DskipTests -pl mcp -am)");
            return MpiLensCli.EXIT_USAGE;
        }
        try {
            return (Integer) server.getMethod("serve", java.util.Map.class, Duration.class)
                    .invoke(null, parent.env, Duration.ofMillis(Math.round(holdSeconds * 1000)));
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
    }
}
