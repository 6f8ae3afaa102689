package io.mpilens.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.mpilens.headless.jdi.HeldConnections;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code mpilens mcp}: the CLI's read commands as tools of a Model Context Protocol server on
 * stdin/stdout, built on the protocol's Java SDK. A tool call runs the command in this process
 * with {@code --json} ({@link CliRun}); the answer is that JSON, unchanged, plus a short summary.
 * Calls are answered one at a time: each holds the ranks' JDWP connections it reads, and a rank
 * serves one debugger.
 */
public final class McpServerMain {
    private final Map<String, String> env;
    private final McpJsonMapper json = McpJsonDefaults.getMapper();
    private final ReentrantLock oneAtATime = new ReentrantLock(true);
    /** Null when connections are not kept ({@code --hold 0}). */
    private final HeldConnections held;
    private final Cancellation cancellation;
    private final JobResources resources;

    private McpServerMain(Map<String, String> env, HeldConnections held, PrintStream log) {
        this.env = env;
        this.held = held;
        this.cancellation = new Cancellation(log);
        this.resources = new JobResources(env, oneAtATime, cancellation, log);
    }

    /**
     * Serves on this process's stdin/stdout until the client closes stdin. Nothing else may write
     * to stdout meanwhile: {@code System.out} goes to stderr.
     *
     * @param hold how long a rank's JDWP connection is kept after a call ({@link HeldConnections}); zero: never
     */
    public static int serve(Map<String, String> env, Duration hold) throws InterruptedException {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        OutputStream protocol = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        CountDownLatch inputEnded = new CountDownLatch(1);
        HeldConnections held = hold.isZero() ? null : HeldConnections.install(hold);
        McpServerMain tools = new McpServerMain(env, held, System.err);
        Traffic traffic = new Traffic(tools.json, System.err, tools.cancellation, tools.resources);
        InputStream in = new ReadableLines(System.in, tools.json, System.err, inputEnded::countDown, traffic::incoming);
        McpSyncServer server = McpServer.sync(new StdioServerTransportProvider(tools.json, in, traffic.outgoing(protocol)))
                .serverInfo("mpilens", version())
                .instructions("Read-only views of running or crashed Java MPI jobs (Open MPI, MPJ Express): call jobs"
                        + " first, then handles, cominfo, hostinfo, calls or leaks with a job id; dump and the"
                        + " dumps argument read heap dumps. Answers are the mpilens CLI's --json documents. Each job"
                        + " is also a resource, mpilens://job/ID (its model) and mpilens://job/ID/handles; subscribe"
                        + " to one to hear of each transition of the job's ranks, communicators and hosts.")
                // resources: subscriptions, no list_changed (the list is read again at each resources/list)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).resources(true, false).build())
                .tools(tools.specifications())
                .resourceTemplates(tools.resources.templates())
                .build();
        tools.resources.serveOn(server);
        try {
            inputEnded.await();
        } finally {
            tools.resources.close();
            server.closeGracefully();
            if (held != null) held.close();
        }
        return 0;
    }

    private static String version() {
        String v = McpServerMain.class.getPackage().getImplementationVersion();
        return v == null ? "development build" : v;
    }

    List<SyncToolSpecification> specifications() {
        List<SyncToolSpecification> out = new ArrayList<>();
        for (ReadTool t : ReadTool.all()) {
            McpSchema.Tool tool = McpSchema.Tool.builder(t.name(), t.inputSchema()).title(t.title()).description(t.description())
                    .outputSchema(outputSchema(t))
                    .annotations(McpSchema.ToolAnnotations.builder().title(t.title()).readOnlyHint(true)
                            .destructiveHint(false).idempotentHint(false).openWorldHint(false).build())
                    .build();
            out.add(SyncToolSpecification.builder().tool(tool).callHandler((exchange, request) -> call(t, exchange, request)).build());
        }
        return out;
    }

    private Map<String, Object> outputSchema(ReadTool t) {
        try (InputStream s = McpServerMain.class.getResourceAsStream(t.outputSchema())) {
            if (s == null) throw new IllegalStateException("missing resource " + t.outputSchema());
            return json.readValue(s.readAllBytes(), new TypeRef<Map<String, Object>>() { });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private CallToolResult call(ReadTool t, McpSyncServerExchange exchange, CallToolRequest request) {
        // the call is closed last: it clears what a cancellation interrupted
        try (Cancellation.Call call = cancellation.begin(request.meta())) {
            try (Progress progress = Progress.of(exchange, request, t.name())) {
                List<String> args;
                try {
                    args = t.commandLine().apply(new Arguments(t.name(), request.arguments()));
                } catch (Arguments.Invalid e) {
                    return error("mpilens: " + e.getMessage());
                }
                oneAtATime.lockInterruptibly();
                try {
                    progress.said("mpilens " + String.join(" ", args));
                    CliRun run = CliRun.of(args, env, progress::said);
                    // the command may have ended on the interrupt with a partial answer: not one to give
                    return call.cancelled() ? error("mpilens: " + t.name() + " was cancelled") : answer(t, run);
                } finally {
                    oneAtATime.unlock();
                }
            } catch (InterruptedException e) {
                return error("mpilens: " + t.name() + (call.cancelled() ? " was cancelled" : " was interrupted"));
            } catch (RuntimeException | StackOverflowError e) { // never a dead server: one answer per call
                return error("mpilens: " + t.name() + " failed: " + e + " (please report this to the mpilens developers)");
            }
        }
    }

    /**
     * The command's JSON as the structured answer and, unchanged, as text; the summary first. An
     * error when the command failed and read nothing: its stderr lines are the message.
     */
    private CallToolResult answer(ReadTool t, CliRun run) {
        Map<String, Object> doc = parse(run.stdout());
        boolean someRead = doc != null && !Summary.nothingRead(doc);
        boolean error = run.exitCode() != 0 && !(run.exitCode() == 3 && someRead);
        List<String> lines = new ArrayList<>();
        if (doc != null && !error) lines.add(Summary.of(t.name(), doc));
        lines.addAll(run.stderr());
        if (lines.isEmpty()) lines.add(t.name() + " failed with exit code " + run.exitCode() + " and no message");
        CallToolResult.Builder b = CallToolResult.builder().addTextContent(String.join("\n", lines)).isError(error);
        if (held != null) { // so a client (and the tests) can see connections being reused
            HeldConnections.Counts c = held.counts();
            b.meta(Map.of("io.mpilens/connections", Map.of("opened", c.opened(), "reused", c.reused(),
                    "dropped", c.dropped(), "open", c.open())));
        }
        if (doc != null) b.addTextContent(run.stdout().strip()).structuredContent(doc);
        return b.build();
    }

    private Map<String, Object> parse(String stdout) {
        String s = stdout.strip();
        if (!s.startsWith("{")) return null;
        try {
            return json.readValue(s, new TypeRef<Map<String, Object>>() { });
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static CallToolResult error(String message) {
        return CallToolResult.builder().addTextContent(message).isError(true).build();
    }
}
