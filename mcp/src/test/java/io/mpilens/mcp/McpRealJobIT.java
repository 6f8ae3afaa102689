package io.mpilens.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.spec.McpSchema;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A real 4-rank Open MPI job (the examples' HandleTour, paused where a freed communicator is kept
 * alive by a receive still pending on it), asked through {@code mpilens mcp} by the Java SDK's
 * client, the TypeScript SDK's and the MCP Inspector's CLI; every answer equals what the CLI's
 * {@code --json} prints for the same job (read by the CLI first, while no server holds the ranks).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@org.junit.jupiter.api.Timeout(value = 10, unit = TimeUnit.MINUTES)
class McpRealJobIT {
    static final Path ROOT = Paths.get(System.getProperty("mpilens.deps", "../.deps")).toAbsolutePath().getParent();
    static final Path WORK = Paths.get("target/mcp-real-job").toAbsolutePath();
    static final Path JOBS = WORK.resolve("jobs");
    static final Duration START = Duration.ofSeconds(120);
    /**
     * This test's job directory, and this host only: without it the CLI and the server would also read the
     * hosts of any other mpirun of this user that names some (another test's simulated hosts, say).
     */
    static final Map<String, String> ENV = Map.of("MPILENS_JOBS", JOBS.toString(), "MPILENS_HOSTS", "none");

    static Job job;
    static Path control;
    static String id;
    /** What the CLI printed for each question, before any server attached. */
    static final Map<String, Map<String, Object>> expected = new LinkedHashMap<>();

    @BeforeAll
    static void startJobAndAskTheCli() throws Exception {
        Files.createDirectories(WORK);
        if (Files.exists(JOBS)) deleteTree(JOBS);
        Files.createDirectories(JOBS, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        // Open MPI 4's mpirun takes the first argument containing "cp" for the class path (docs/cli.md):
        // no path on the ranks' command line may contain it, and this module's directory is .../mcp/
        control = Files.createTempDirectory("mpilens-it-control-");
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi.HandleTour")
                .classPath(List.of(ROOT.resolve("examples/support/target/classes"), ROOT.resolve("examples/openmpi/target/classes")))
                .agentJar(Paths.get(System.getProperty("mpilens.agentJar")).toAbsolutePath().normalize())
                .agentOptions("requestStacks=true,requestHistory=true").jdwp(true).controlDir(control)
                .env("MPILENS_JOBS", JOBS.toString()).build();
        job = Job.launch(spec);
        job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=created"), 4, START);
        job.release("created");
        job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=orphans"), 4, START);
        job.awaitJdwpAddresses(START);

        CliJson.Run jobs = CliJson.run(ENV, "jobs", "--json");
        assertEquals(0, jobs.exitCode(), jobs.stderr());
        List<?> listed = (List<?>) jobs.json().get("jobs");
        assertEquals(1, listed.size(), "one job registered: " + jobs.stdout());
        id = (String) ((Map<?, ?>) listed.get(0)).get("id");
        expected.put("jobs", jobs.json());
        // a heap dump of rank 0 as jcmd takes one (the rank pauses for it, then goes on), first: its full GC
        // may change what the agent knows of dropped wrappers, and every later read must see the same job
        long pid = rankPid(jobs.json(), 0);
        Path jcmd = Paths.get(ProcessHandle.of(pid).orElseThrow().info().command().orElseThrow()).resolveSibling("jcmd");
        rank0Dump = WORK.resolve("rank0.hprof");
        Files.deleteIfExists(rank0Dump);
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.heap_dump", rank0Dump.toString())
                .redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0 && Files.exists(rank0Dump), "jcmd: " + said);
        expected.put("dump", cli("dump", "--json", rank0Dump.toString()));
        expected.put("handles", cli("handles", "--json", "--job", id));
        expected.put("orphans", cli("handles", "--json", "--job", id, "--state", "FREED"));
        expected.put("cominfo", cli("cominfo", "--json", "--job", id));
        expected.put("calls", cli("calls", "--json", "--job", id));
        expected.put("hostinfo", cli("hostinfo", "--json", "--job", id));
        expected.put("leaks", cli("leaks", "--json", "--job", id));
        // the job's model: what 'watch --json' prints after its first round (it prints one after every round with a transition)
        expected.put("model", CliJson.parse(CliJson.firstLine(ENV, "watch", "--json", "--job", id)));
    }

    static Path rank0Dump;

    private static long rankPid(Map<String, Object> jobs, int rank) {
        return ((Number) maps(maps(jobs, "jobs").get(0), "ranks").stream()
                .filter(r -> ((Number) r.get("rank")).intValue() == rank).findFirst().orElseThrow().get("pid")).longValue();
    }

    private static Map<String, Object> cli(String... args) throws Exception {
        CliJson.Run r = CliJson.run(ENV, args);
        assertEquals(0, r.exitCode(), "mpilens " + String.join(" ", args) + ": " + r.stderr());
        return r.json();
    }

    @AfterAll
    static void endJob() throws java.io.IOException {
        if (job != null) job.close();
        if (control != null) deleteTree(control);
    }

    /** The job as a user sees it, so that the comparisons below compare something. */
    @Test
    @Order(1)
    void theCliSeesFourRanksWithAnOrphanHeldByAPendingReceive() {
        List<Map<String, Object>> processes = maps(expected.get("handles"), "processes");
        assertEquals(List.of(0, 1, 2, 3), processes.stream().map(p -> ((Number) p.get("rank")).intValue()).toList());
        boolean orphanHeldByRequest = false;
        for (Map<String, Object> p : processes) {
            Map<String, Map<String, Object>> byId = new LinkedHashMap<>();
            for (Map<String, Object> h : maps(p, "handles")) byId.put((String) h.get("id"), h);
            for (Map<String, Object> h : byId.values()) {
                if (!"COMMUNICATOR".equals(h.get("kind")) || !"FREED".equals(h.get("state"))) continue;
                for (Object holder : (List<?>) h.get("heldBy")) {
                    Map<String, Object> r = byId.get(holder);
                    if (r != null && "REQUEST".equals(r.get("kind"))) orphanHeldByRequest = true;
                }
            }
        }
        assertTrue(orphanHeldByRequest, "a freed communicator held by a pending request: " + expected.get("handles"));
        List<Map<String, Object>> orphans = new ArrayList<>();
        for (Map<String, Object> p : maps(expected.get("orphans"), "processes")) orphans.addAll(maps(p, "handles"));
        assertFalse(orphans.isEmpty());
        assertTrue(orphans.stream().allMatch(h -> "FREED".equals(h.get("state"))), "--state FREED: orphans only");
    }

    @Test
    @Order(2)
    void theJavaSdkClientGetsTheCliAnswersAndConnectionsAreReused() {
        try (McpClientProcess server = new McpClientProcess(ENV, "--hold", "600")) {
            List<String> names = server.client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
            assertEquals(List.of("jobs", "handles", "cominfo", "hostinfo", "calls", "leaks", "dump"), names);
            for (McpSchema.Tool t : server.client.listTools().tools()) {
                assertEquals("object", t.inputSchema().get("type"), t.name());
                assertEquals("object", t.outputSchema().get("type"), t.name());
            }
            assertSame("jobs", server.call("jobs", Map.of()));
            McpSchema.CallToolResult first = assertSame("handles", server.call("handles", Map.of("job", id)));
            assertSame("orphans", server.call("handles", Map.of("job", id, "orphansOnly", true)));
            McpSchema.CallToolResult cominfo = assertSame("cominfo", server.call("cominfo", Map.of("job", id)));
            String comSummary = ((McpSchema.TextContent) cominfo.content().get(0)).text();
            assertTrue(comSummary.startsWith("job " + id + ": ranks OK 0-3; ") && comSummary.contains("MPI_COMM_WORLD OK"), comSummary);
            assertSame("hostinfo", server.call("hostinfo", Map.of("job", id)));
            assertSame("leaks", server.call("leaks", Map.of("job", id)));
            McpSchema.CallToolResult last = assertSame("calls", server.call("calls", Map.of("job", id)));
            // one JVM per rank: 4 connections opened by the first read, every later read reused them
            Map<?, ?> before = (Map<?, ?>) first.meta().get("io.mpilens/connections");
            Map<?, ?> after = (Map<?, ?>) last.meta().get("io.mpilens/connections");
            assertEquals(4, ((Number) before.get("opened")).intValue(), "after the first handles: " + before);
            assertEquals(4, ((Number) after.get("opened")).intValue(), "no new attach later: " + after);
            assertEquals(20, ((Number) after.get("reused")).intValue(), "5 more reads of 4 ranks: " + after);
            // post-mortem: the same heap dump read by the server and by the CLI
            assertSame("dump", server.call("dump", Map.of("files", List.of(rank0Dump.toString()))));
            // the summary a person reads first
            String summary = ((McpSchema.TextContent) first.content().get(0)).text();
            assertTrue(summary.startsWith("4 processes (ranks 0-3): "), summary);
            // progress notifications for a client that asks for them (a token): at least the command line at the start
            McpSchema.CallToolResult progress = server.callWithProgress("handles", Map.of("job", id, "kinds", List.of("REQUEST")), "p-1");
            assertFalse(progress.isError(), McpClientProcess.text(progress));
            assertTrue(server.progress.stream().anyMatch(n -> "p-1".equals(n.progressToken())
                    && n.message().startsWith("mpilens handles --json --job=" + id)), "progress: " + server.progress);
        }
    }

    @Test
    @Order(3)
    void theTypeScriptSdkClientGetsTheCliAnswers() throws Exception {
        Path clients = NodeClients.install(WORK.resolve("node"));
        Path script = clients.resolve("client.mjs");
        ProcessBuilder b = new ProcessBuilder("node", script.toString(), McpClientProcess.java(),
                McpClientProcess.MCP_JAR.toString(), id).directory(clients.toFile());
        b.environment().putAll(ENV);
        b.redirectError(WORK.resolve("node-client.stderr").toFile());
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the node client ended");
        assertEquals(0, p.exitValue(), "node client: " + out + Files.readString(WORK.resolve("node-client.stderr")));
        Map<String, Object> answers = CliJson.parse(out);
        List<Map<String, Object>> tools = maps(answers, "tools");
        assertEquals(List.of("jobs", "handles", "cominfo", "hostinfo", "calls", "leaks", "dump"),
                tools.stream().map(t -> t.get("name")).toList());
        Map<String, Object> calls = asMap(answers.get("calls"));
        for (String key : List.of("jobs", "handles", "orphans", "cominfo", "calls")) {
            Map<String, Object> r = asMap(calls.get(key));
            assertEquals(null, r.get("thrown"), key + ": the TypeScript SDK refused the answer");
            assertFalse(Boolean.TRUE.equals(r.get("isError")), key + ": " + r);
            assertEquals(CliJson.withoutMoment(expected.get(key)), CliJson.withoutMoment(r.get("structuredContent")), key);
        }
        assertErrorResult(asMap(calls.get("unknownJob")), "no job 'no-such-job-here'");
        assertErrorResult(asMap(calls.get("nobodyListens")), "127.0.0.1:9 did not answer within 1 s");
        assertEquals(expected.get("jobs").get("schema"), asMap(asMap(calls.get("afterErrors")).get("structuredContent")).get("schema"));
        // the job as resources, as this client reads them
        assertEquals(List.of("mpilens://job/" + id), answers.get("resources"));
        assertEquals(List.of("mpilens://job/{id}", "mpilens://job/{id}/handles"),
                ((List<?>) answers.get("templates")).stream().map(String::valueOf).sorted().toList());
        assertEquals(CliJson.withoutMoment(expected.get("model")), CliJson.withoutMoment(resourceText(answers.get("model"))), "model");
        assertEquals(CliJson.withoutMoment(expected.get("handles")), CliJson.withoutMoment(resourceText(answers.get("handlesResource"))),
                "handles resource");
        assertEquals(Map.of("uri", "mpilens://job/" + id), answers.get("updated"), "the notification after the first round");
        assertFalse(Boolean.TRUE.equals(asMap(calls.get("afterResources")).get("isError")), String.valueOf(calls.get("afterResources")));
    }

    /** The one text block of a resource the TypeScript client read, parsed. */
    private static Map<String, Object> resourceText(Object contents) {
        List<?> list = (List<?>) contents;
        assertEquals(1, list.size(), String.valueOf(contents));
        Map<String, Object> c = asMap(list.get(0));
        assertEquals("application/json", c.get("mimeType"));
        return CliJson.parse((String) c.get("text"));
    }

    @Test
    @Order(4)
    void theInspectorCliListsTheToolsAndCallsHandles() throws Exception {
        Path clients = NodeClients.install(WORK.resolve("node"));
        // the inspector's CLI reads its own package.json relative to the working directory: run it from its build/
        Path build = clients.resolve("node_modules/@modelcontextprotocol/inspector-cli/build");
        Map<String, Object> listed = CliJson.parse(inspector(build, "--method", "tools/list"));
        assertEquals(List.of("jobs", "handles", "cominfo", "hostinfo", "calls", "leaks", "dump"),
                maps(listed, "tools").stream().map(t -> t.get("name")).toList());
        Map<String, Object> handles = CliJson.parse(inspector(build, "--method", "tools/call", "--tool-name", "handles",
                // the inspector parses each value as JSON first: quoted, an all-digit Open MPI job id stays a string
                "--tool-arg", "job=\"" + id + "\""));
        assertEquals(CliJson.withoutMoment(expected.get("handles")), CliJson.withoutMoment(handles.get("structuredContent")));
    }

    /**
     * The job as resources: listed, its model equal to what 'watch --json' printed, its handles to 'handles --json';
     * a subscription follows the job (its first round is news: every rank's first state) until unsubscribed.
     */
    @Test
    @Order(5)
    void theJobIsAResourceEqualToTheCliAndASubscriptionFollowsItUntilUnsubscribed() throws Exception {
        try (McpClientProcess server = new McpClientProcess(ENV, "--hold", "600")) {
            String uri = "mpilens://job/" + id;
            assertEquals(List.of(uri), server.client.listResources().resources().stream().map(McpSchema.Resource::uri).toList());
            assertEquals(List.of("mpilens://job/{id}", "mpilens://job/{id}/handles"), server.client.listResourceTemplates()
                    .resourceTemplates().stream().map(McpSchema.ResourceTemplate::uriTemplate).sorted().toList());
            assertEquals(CliJson.withoutMoment(expected.get("model")), CliJson.withoutMoment(resource(server, uri)), "model");
            assertEquals(CliJson.withoutMoment(expected.get("handles")), CliJson.withoutMoment(resource(server, uri + "/handles")),
                    "handles");

            server.client.subscribeResource(new McpSchema.SubscribeRequest(uri, null));
            assertTrue(McpClientProcess.await(() -> !server.updates.isEmpty(), 120),
                    "a notification after the first round of watch; server: " + server.serverStderr);
            McpSchema.TextResourceContents first = (McpSchema.TextResourceContents) server.updates.get(0);
            assertEquals(uri, first.uri());
            assertEquals(CliJson.withoutMoment(expected.get("model")), CliJson.withoutMoment(CliJson.parse(first.text())),
                    "what the client read after the notification");
            assertTrue(server.saidOnStderr(l -> l.contains("following job " + id + " for its subscribers")), "" + server.serverStderr);

            server.client.unsubscribeResource(new McpSchema.UnsubscribeRequest(uri, null));
            assertTrue(McpClientProcess.await(() -> server.saidOnStderr(
                    l -> l.contains("no longer following job " + id + ": no client is subscribed to it")), 30),
                    "the watch stops when nobody is subscribed: " + server.serverStderr);
            assertSame("cominfo", server.call("cominfo", Map.of("job", id)));
        }
    }

    private static Map<String, Object> resource(McpClientProcess server, String uri) {
        McpSchema.ReadResourceResult r = server.client.readResource(new McpSchema.ReadResourceRequest(uri, null));
        assertEquals(1, r.contents().size(), String.valueOf(r));
        McpSchema.TextResourceContents c = (McpSchema.TextResourceContents) r.contents().get(0);
        assertEquals(uri, c.uri());
        assertEquals("application/json", c.mimeType());
        return CliJson.parse(c.text());
    }

    /**
     * A read that would wait 600 s (rank 3 stopped with SIGSTOP, a timeout of 600 s, no other rank to set
     * a deadline) is cancelled by the Java SDK's client: the server stops it, does not send its answer,
     * and answers the next call, which would otherwise wait behind it.
     */
    @Test
    @Order(6)
    void aCancelledCallStopsAndTheServerAnswersTheNextOne() throws Exception {
        long pid = rankPid(expected.get("jobs"), 3);
        java.util.concurrent.ExecutorService caller = java.util.concurrent.Executors.newSingleThreadExecutor();
        stopWhenListening(pid);
        try (McpClientProcess server = new McpClientProcess(ENV, "--hold", "600")) {
            java.util.concurrent.Future<McpSchema.CallToolResult> slow = caller.submit(() -> server.callWithProgress("handles",
                    Map.of("job", id, "ranks", "3", "timeoutSeconds", 600), "slow-1"));
            assertTrue(McpClientProcess.await(() -> server.progress.stream().anyMatch(n -> "slow-1".equals(n.progressToken())), 60),
                    "the call started: " + server.serverStderr);
            Thread.sleep(2000); // inside the read of the stopped rank
            server.cancelLast("tools/call", "the test gives up");
            long start = System.nanoTime();
            McpSchema.CallToolResult next = server.call("jobs", Map.of());
            double seconds = (System.nanoTime() - start) / 1e9;
            assertFalse(next.isError(), McpClientProcess.text(next));
            // one call at a time: without the cancellation the next one would wait for the read's 600 s
            assertTrue(seconds < 120, "the next call was answered after " + seconds + " s");
            assertTrue(McpClientProcess.await(() -> server.saidOnStderr(l -> l.contains("(tools/call handles) cancelled by the"
                    + " client (the test gives up): stopping it")) && server.saidOnStderr(l -> l.contains("its answer is not sent")), 30),
                    "" + server.serverStderr);
            assertFalse(slow.isDone(), "the cancelled call got an answer: " + (slow.isDone() ? slow.get() : null));
            slow.cancel(true);
            System.out.printf("McpRealJobIT: after the cancellation the next call was answered in %.2f s; the server said %s%n",
                    seconds, server.serverStderr.stream().filter(l -> l.contains("cancel")).toList());
            // the rank goes on: the read that was cut completes its attach, and the same server reads the rank again
            signal("CONT", pid);
            McpSchema.CallToolResult again = server.call("handles", Map.of("job", id, "ranks", "3", "timeoutSeconds", 60));
            assertFalse(again.isError(), McpClientProcess.text(again));
        } finally {
            signal("CONT", pid);
            caller.shutdownNow();
        }
    }

    /** The same with the official TypeScript SDK's client: an AbortSignal on callTool sends the cancellation. */
    @Test
    @Order(7)
    void theTypeScriptSdkClientCancelsACall() throws Exception {
        Path clients = NodeClients.install(WORK.resolve("node"));
        long pid = rankPid(expected.get("jobs"), 3);
        stopWhenListening(pid);
        String out;
        try {
            ProcessBuilder b = new ProcessBuilder("node", clients.resolve("cancel.mjs").toString(), McpClientProcess.java(),
                    McpClientProcess.MCP_JAR.toString(), id, "3").directory(clients.toFile());
            b.environment().putAll(ENV);
            b.redirectError(WORK.resolve("node-cancel.stderr").toFile());
            Process p = b.start();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the node client ended");
            assertEquals(0, p.exitValue(), "node client: " + out + Files.readString(WORK.resolve("node-cancel.stderr")));
        } finally {
            signal("CONT", pid);
        }
        Map<String, Object> answers = CliJson.parse(out);
        String serverSaid = Files.readString(WORK.resolve("node-cancel.stderr"));
        System.out.println("McpRealJobIT: the TypeScript client's next call after its cancellation took " + answers.get("nextMillis")
                + " ms; the server said: " + serverSaid.strip().replace('\n', ' '));
        // the SDK rejects the call with the reason it sent in the cancellation
        assertTrue(String.valueOf(answers.get("cancelled")).contains("the TypeScript client gives up"), out);
        assertFalse(Boolean.TRUE.equals(asMap(answers.get("next")).get("isError")), out);
        assertEquals(expected.get("jobs").get("schema"), asMap(asMap(answers.get("next")).get("structuredContent")).get("schema"));
        assertTrue(((Number) answers.get("nextMillis")).doubleValue() < 120_000, "the next call waited: " + out);
        assertTrue(serverSaid.contains("cancelled by the client (the TypeScript client gives up): stopping it")
                && serverSaid.contains("its answer is not sent"), serverSaid);
    }

    /**
     * SIGSTOP for a rank, once its record names where it listens: after the last reader let it go the JVM
     * listens on a new port and its agent writes it into the record within 250 ms, which a stopped rank
     * could not (a read would then be refused at once instead of waiting).
     */
    private static void stopWhenListening(long pid) throws Exception {
        Thread.sleep(3000);
        signal("STOP", pid);
    }

    private static void signal(String signal, long pid) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + signal + " " + pid + ": " + said);
    }

    /**
     * Last, since it ends the job: a rank killed under a server that holds its connection is reported, and the server
     * goes on; a client subscribed to the job hears of it (the model it reads shows the rank FAILED), and once the
     * job has ended the server no longer follows it.
     */
    @Test
    @Order(9)
    void aRankThatWentAwayIsReportedToCallsAndSubscribersAndTheServerStillAnswers() throws Exception {
        try (McpClientProcess server = new McpClientProcess(ENV, "--hold", "600")) {
            assertSame("handles", server.call("handles", Map.of("job", id)));
            String uri = "mpilens://job/" + id;
            server.client.subscribeResource(new McpSchema.SubscribeRequest(uri, null));
            assertTrue(McpClientProcess.await(() -> !server.updates.isEmpty(), 120), "the first round: " + server.serverStderr);
            assertEquals("OK", rankState(server.updates.get(0), 3));
            long pid = rankPid(expected.get("jobs"), 3);
            ProcessHandle rank3 = ProcessHandle.of(pid).orElseThrow();
            rank3.destroyForcibly();
            rank3.onExit().get(60, TimeUnit.SECONDS);
            assertTrue(McpClientProcess.await(() -> {
                synchronized (server.updates) {
                    return server.updates.stream().anyMatch(u -> "FAILED".equals(rankState(u, 3)));
                }
            }, 120), "a notification, then rank 3 FAILED in the model: " + server.updates.size() + " updates; " + server.serverStderr);
            McpSchema.CallToolResult after = server.call("handles", Map.of("job", id));
            String text = McpClientProcess.text(after);
            assertTrue(text.contains("rank 3 of job " + id + " (pid " + pid + ") has ended"), text);
            McpSchema.CallToolResult jobs = server.call("jobs", Map.of());
            assertFalse(jobs.isError(), McpClientProcess.text(jobs));
            // Open MPI's mpirun ends the whole job when a rank is killed; then the watch ends, and the server stops following it
            job.waitFor(Duration.ofSeconds(120));
            assertTrue(McpClientProcess.await(() -> server.saidOnStderr(l -> l.contains("job " + id
                    + " has ended: no longer following it")), 120), "" + server.serverStderr);
        }
    }

    /** A rank's state in a model the client read. */
    private static String rankState(McpSchema.ResourceContents c, int rank) {
        Map<String, Object> model = CliJson.parse(((McpSchema.TextResourceContents) c).text());
        return maps(model, "processes").stream().filter(p -> ((Number) p.get("rank")).intValue() == rank)
                .map(p -> (String) p.get("state")).findFirst().orElse(null);
    }

    private static String inspector(Path build, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", build.resolve("index.js").toString(), McpClientProcess.java(),
                "-jar", McpClientProcess.MCP_JAR.toString(), "mcp"));
        cmd.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(cmd).directory(build.toFile());
        b.environment().putAll(ENV);
        b.redirectError(WORK.resolve("inspector.stderr").toFile());
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the inspector ended");
        assertEquals(0, p.exitValue(), "inspector " + args[1] + ": " + out + Files.readString(WORK.resolve("inspector.stderr")));
        return out;
    }

    private static McpSchema.CallToolResult assertSame(String key, McpSchema.CallToolResult r) {
        assertFalse(Boolean.TRUE.equals(r.isError()), key + ": " + McpClientProcess.text(r));
        assertEquals(CliJson.withoutMoment(expected.get(key)), CliJson.withoutMoment(r.structuredContent()), key);
        // the CLI's JSON is also there as text, as the command printed it
        String text = ((McpSchema.TextContent) r.content().get(1)).text();
        assertEquals(CliJson.withoutMoment(r.structuredContent()), CliJson.withoutMoment(CliJson.parse(text)), key);
        return r;
    }

    private static void assertErrorResult(Map<String, Object> r, String message) {
        assertEquals(Boolean.TRUE, r.get("isError"), String.valueOf(r));
        assertTrue(String.valueOf(r.get("content")).contains(message), String.valueOf(r));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> maps(Map<String, Object> m, String key) {
        return (List<Map<String, Object>>) m.get(key);
    }

    static void deleteTree(Path p) throws java.io.IOException {
        try (var s = Files.walk(p)) {
            for (Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(x);
        }
    }
}
