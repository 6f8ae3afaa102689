package io.mpilens.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input through a real client: each is an error result naming its cause (the CLI's own
 * message), and the same server answers the next call. No MPI job needed.
 */
@org.junit.jupiter.api.Timeout(value = 5, unit = TimeUnit.MINUTES) // a hang is a failure, not a stuck build
class McpBadInputIT {
    static final Path WORK = Paths.get("target/mcp-bad-input").toAbsolutePath();
    static McpClientProcess server;

    @BeforeAll
    static void start() throws Exception {
        Files.createDirectories(WORK);
        Path jobs = WORK.resolve("jobs");
        Files.createDirectories(jobs);
        // mpilens refuses a job directory others can read, as the agent would never write one
        Files.setPosixFilePermissions(jobs, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        // this host only: not the hosts of another mpirun of this user (another test's simulated hosts)
        server = new McpClientProcess(Map.of("MPILENS_JOBS", WORK.resolve("jobs").toString(), "MPILENS_HOSTS", "none"));
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    /** The server still answers: jobs lists this test's (empty) job directory. */
    private static void stillAnswers() {
        McpSchema.CallToolResult r = server.call("jobs", Map.of());
        assertFalse(r.isError(), McpClientProcess.text(r));
        assertEquals(Map.of("schema", "mpilens-ft/1", "jobs", List.of()), r.structuredContent());
    }

    private static String error(String tool, Map<String, Object> args) {
        McpSchema.CallToolResult r = server.call(tool, args);
        assertTrue(r.isError(), () -> tool + " " + args + " should be an error: " + McpClientProcess.text(r));
        return McpClientProcess.text(r);
    }

    @Test
    void anUnknownJobIsAnErrorNamingIt() {
        String text = error("handles", Map.of("job", "no-such-job"));
        assertTrue(text.contains("no job 'no-such-job' in " + WORK.resolve("jobs")), text);
        stillAnswers();
    }

    @Test
    void aPortNobodyListensOnIsAnErrorNamingTheAddress() {
        String text = error("handles", Map.of("addresses", List.of("127.0.0.1:9"), "timeoutSeconds", 1));
        assertTrue(text.contains("127.0.0.1:9 did not answer within 1 s (connection refused)"), text);
        stillAnswers();
    }

    @Test
    void aFileThatIsNotAHeapDumpIsAnErrorNamingTheFile() throws Exception {
        Path notADump = WORK.resolve("notes.txt");
        Files.writeString(notADump, "these are notes, not a heap dump\n");
        String text = error("dump", Map.of("files", List.of(notADump.toString())));
        assertTrue(text.contains("notes.txt"), text);
        assertTrue(text.toLowerCase(java.util.Locale.ROOT).contains("not a heap dump")
                || text.toLowerCase(java.util.Locale.ROOT).contains("hprof"), text);
        stillAnswers();
    }

    @Test
    void aMissingFileIsAnErrorNamingIt() {
        String text = error("dump", Map.of("files", List.of(WORK.resolve("gone.hprof").toString())));
        assertTrue(text.contains("gone.hprof: no such file"), text);
        stillAnswers();
    }

    @Test
    void aTruncatedHeapDumpIsAnErrorSayingSo() throws Exception {
        Path whole = WORK.resolve("this-jvm.hprof");
        Files.deleteIfExists(whole);
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(whole.toString(), true);
        Path cut = WORK.resolve("cut.hprof");
        byte[] all = Files.readAllBytes(whole);
        Files.write(cut, java.util.Arrays.copyOf(all, all.length / 3));
        McpSchema.CallToolResult cli = server.call("dump", Map.of("files", List.of(cut.toString())));
        CliJson.Run expected = CliJson.run(Map.of("MPILENS_HOSTS", "none"), "dump", "--json", cut.toString());
        assertTrue(cli.isError(), McpClientProcess.text(cli));
        String text = McpClientProcess.text(cli);
        assertTrue(text.contains("cut.hprof"), text);
        // the same message as the CLI's, line for line
        for (String line : expected.stderr().strip().split("\n")) {
            if (line.startsWith("mpilens: ")) assertTrue(text.contains(line), "missing CLI line " + line + " in " + text);
        }
        assertTrue(text.toLowerCase(java.util.Locale.ROOT).contains("truncated"), text);
        stillAnswers();
    }

    @Test
    void argumentsOfTheWrongTypeAreAnErrorNamingTheArgument() {
        String text = error("handles", Map.of("job", 42));
        assertTrue(text.contains("job"), text);
        text = error("calls", Map.of("job", "x", "confirmSeconds", "soon"));
        assertTrue(text.contains("confirmSeconds"), text);
        stillAnswers();
    }

    @Test
    void anUnknownArgumentIsAnErrorNamingIt() {
        String text = error("cominfo", Map.of("jobb", "x"));
        assertTrue(text.contains("jobb"), text);
        stillAnswers();
    }

    @Test
    void aLiveJobAndDumpsTogetherAreAnError() {
        String text = error("handles", Map.of("job", "x", "dumps", List.of("a.hprof")));
        assertTrue(text.contains("not both"), text);
        stillAnswers();
    }

    @Test
    void anUnknownKindIsAnErrorListingTheKinds() {
        String text = error("handles", Map.of("job", "x", "kinds", List.of("SOCKET")));
        assertTrue(text.contains("/kinds/0") && text.contains("COMMUNICATOR") && text.contains("MESSAGE"), text);
        stillAnswers();
    }

    @Test
    void anUnknownJobsResourceIsAnErrorNamingTheJob() {
        McpError e = assertThrows(McpError.class, () -> server.client.readResource(
                new McpSchema.ReadResourceRequest("mpilens://job/no-such-job", null)));
        assertEquals(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND, e.getJsonRpcError().code(), e.getMessage());
        assertTrue(e.getMessage().contains("no job 'no-such-job' in " + WORK.resolve("jobs")), e.getMessage());
        e = assertThrows(McpError.class, () -> server.client.readResource(
                new McpSchema.ReadResourceRequest("mpilens://job/no-such-job/handles", null)));
        assertTrue(e.getMessage().contains("no job 'no-such-job'"), e.getMessage());
        stillAnswers();
    }

    @Test
    void aResourceThatIsNoJobsIsAnErrorNamingTheResources() {
        McpError e = assertThrows(McpError.class, () -> server.client.readResource(
                new McpSchema.ReadResourceRequest("mpilens://jobs", null)));
        assertEquals(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND, e.getJsonRpcError().code(), e.getMessage());
        stillAnswers();
    }

    @Test
    void aSubscriptionToAnUnknownJobIsReportedAndFollowsNothing() throws Exception {
        server.client.subscribeResource(new McpSchema.SubscribeRequest("mpilens://job/nobody-ran-this", null));
        assertTrue(McpClientProcess.await(() -> server.saidOnStderr(l -> l.contains("cannot follow job nobody-ran-this")
                && l.contains("no job 'nobody-ran-this'")), 60), "" + server.serverStderr);
        server.client.unsubscribeResource(new McpSchema.UnsubscribeRequest("mpilens://job/nobody-ran-this", null));
        stillAnswers();
    }

    /** Below the SDK's client: a line that is not JSON-RPC, then a proper session on the same server process. */
    @Test
    void aMalformedRequestLeavesTheServerAnswering() throws Exception {
        ProcessBuilder b = new ProcessBuilder(McpClientProcess.java(), "-jar", McpClientProcess.MCP_JAR.toString(), "mcp");
        b.environment().put("MPILENS_JOBS", WORK.resolve("jobs").toString());
        b.environment().put("MPILENS_HOSTS", "none");
        b.redirectError(WORK.resolve("malformed.stderr").toFile());
        Process p = b.start();
        try (OutputStream in = p.getOutputStream();
             BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String[] lines = {
                "this is not JSON {",
                "{\"hello\":\"JSON, but not JSON-RPC\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                // cancellations of a request nobody sent, and of none at all: nothing to stop
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99,\"reason\":\"x\"}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"no-such-tool\",\"arguments\":{}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"jobs\",\"arguments\":{}}}"};
            for (String l : lines) in.write((l + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            java.util.concurrent.CompletableFuture<String> third = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) if (line.contains("\"id\":3")) return line;
                    return null;
                } catch (java.io.IOException e) {
                    return null;
                }
            });
            String answer;
            try {
                answer = third.get(120, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                p.destroyForcibly();
                answer = "no answer in 120 s; server stderr: " + Files.readString(WORK.resolve("malformed.stderr"));
            }
            assertTrue(answer != null && answer.contains("\"structuredContent\":{\"schema\":\"mpilens-ft/1\",\"jobs\":[]}"),
                    "the jobs call after a malformed line: " + answer);
        } finally {
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the server ends when its input ends");
        }
        String stderr = Files.readString(WORK.resolve("malformed.stderr"));
        assertTrue(stderr.contains("dropped a line that is not a JSON-RPC message") && stderr.contains("this is not JSON {"), stderr);
        assertTrue(stderr.contains("JSON, but not JSON-RPC"), stderr);
    }
}
