package io.mpilens.mcp;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** {@code mpilens mcp} from the packaged jar, driven by the Java SDK's own client over stdio. */
final class McpClientProcess implements AutoCloseable {
    static final Path MCP_JAR = Paths.get(System.getProperty("mpilens.mcpJar", "target/mpilens-mcp.jar")).toAbsolutePath();

    final McpSyncClient client;
    final List<String> serverStderr = Collections.synchronizedList(new ArrayList<>());
    final List<McpSchema.ProgressNotification> progress = Collections.synchronizedList(new ArrayList<>());

    McpClientProcess(Map<String, String> env, String... serverOptions) {
        List<String> args = new ArrayList<>(List.of("-jar", MCP_JAR.toString(), "mcp"));
        args.addAll(List.of(serverOptions));
        ServerParameters params = ServerParameters.builder(java()).args(args).env(env).build();
        StdioClientTransport transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
        transport.setStdErrorHandler(serverStderr::add);
        client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(120)).progressConsumer(progress::add).build();
        client.initialize();
    }

    /** The JVM running the tests (the build JDK): it has jdk.jdi, as the server needs. */
    static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    McpSchema.CallToolResult call(String tool, Map<String, Object> args) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args));
    }

    McpSchema.CallToolResult callWithProgress(String tool, Map<String, Object> args, String token) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args, Map.of("progressToken", token)));
    }

    /** The text of every content block, one after the other. */
    static String text(McpSchema.CallToolResult r) {
        StringBuilder s = new StringBuilder();
        for (McpSchema.Content c : r.content()) if (c instanceof McpSchema.TextContent t) s.append(t.text()).append('\n');
        return s.toString();
    }

    @Override
    public void close() {
        client.closeGracefully();
    }
}
