package io.mpilens.mcp;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/** {@code mpilens mcp} from the packaged jar, driven by the Java SDK's own client over stdio. */
final class McpClientProcess implements AutoCloseable {
    static final Path MCP_JAR = Paths.get(System.getProperty("mpilens.mcpJar", "target/mpilens-mcp.jar")).toAbsolutePath();

    final McpSyncClient client;
    final List<String> serverStderr = Collections.synchronizedList(new ArrayList<>());
    final List<McpSchema.ProgressNotification> progress = Collections.synchronizedList(new ArrayList<>());
    /** What the client read after each {@code notifications/resources/updated} (the SDK's client reads the resource itself). */
    final List<McpSchema.ResourceContents> updates = Collections.synchronizedList(new ArrayList<>());
    private final Sent transport;

    McpClientProcess(Map<String, String> env, String... serverOptions) {
        List<String> args = new ArrayList<>(List.of("-jar", MCP_JAR.toString(), "mcp"));
        args.addAll(List.of(serverOptions));
        ServerParameters params = ServerParameters.builder(java()).args(args).env(env).build();
        StdioClientTransport stdio = new StdioClientTransport(params, McpJsonDefaults.getMapper());
        stdio.setStdErrorHandler(serverStderr::add);
        transport = new Sent(stdio);
        client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(120)).progressConsumer(progress::add)
                .resourcesUpdateConsumer(updates::addAll).build();
        client.initialize();
    }

    /** The JVM running the tests (the build JDK): it has jdk.jdi, as the server needs. */
    static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    McpSchema.CallToolResult call(String tool, Map<String, Object> args) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args, null));
    }

    McpSchema.CallToolResult callWithProgress(String tool, Map<String, Object> args, String token) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args, Map.of("progressToken", token)));
    }

    /**
     * Sends {@code notifications/cancelled} for the last request of {@code method} this client sent, as a
     * client that gives up on it does (the Java SDK's client has no call for it: through its transport).
     */
    void cancelLast(String method, String reason) {
        Object id = transport.lastIds.get(method);
        if (id == null) throw new AssertionError("no " + method + " request was sent");
        transport.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, "notifications/cancelled",
                Map.of("requestId", id, "reason", reason))).block(Duration.ofSeconds(30));
    }

    /** The text of every content block, one after the other. */
    static String text(McpSchema.CallToolResult r) {
        StringBuilder s = new StringBuilder();
        for (McpSchema.Content c : r.content()) if (c instanceof McpSchema.TextContent t) s.append(t.text()).append('\n');
        return s.toString();
    }

    /** Waits up to {@code seconds} for {@code done}; whether it came. */
    static boolean await(Supplier<Boolean> done, int seconds) throws InterruptedException {
        long until = System.nanoTime() + seconds * 1_000_000_000L;
        while (!done.get()) {
            if (System.nanoTime() > until) return false;
            Thread.sleep(100);
        }
        return true;
    }

    /** Whether a line the server printed on stderr matches. */
    boolean saidOnStderr(Predicate<String> line) {
        synchronized (serverStderr) {
            return serverStderr.stream().anyMatch(line);
        }
    }

    @Override
    public void close() {
        client.closeGracefully();
    }

    /** The SDK's stdio transport, noting the id of the last request of each method sent through it. */
    private static final class Sent implements McpClientTransport {
        final McpClientTransport inner;
        final Map<String, Object> lastIds = new ConcurrentHashMap<>();

        Sent(McpClientTransport inner) {
            this.inner = inner;
        }

        @Override
        public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
            return inner.connect(handler);
        }

        @Override
        public void setExceptionHandler(Consumer<Throwable> handler) {
            inner.setExceptionHandler(handler);
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            if (message instanceof McpSchema.JSONRPCRequest r) lastIds.put(r.method(), r.id());
            return inner.sendMessage(message);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return inner.closeGracefully();
        }

        @Override
        public void close() {
            inner.close();
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return inner.unmarshalFrom(data, typeRef);
        }

        @Override
        public List<String> protocolVersions() {
            return inner.protocolVersions();
        }
    }
}
