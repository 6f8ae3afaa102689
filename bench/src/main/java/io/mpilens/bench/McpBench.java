package io.mpilens.bench;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The same question asked N times (default 100) of the same paused 4-rank Open MPI job: {@code handles
 * --job ID --json} as N runs of the CLI (a JVM each, as the {@code mpilens} script starts it: C1 only,
 * serial GC), against N {@code handles} calls to one {@code mpilens mcp} server (its start included),
 * which attaches to each rank once and reuses the connections. In one run; the ratio is printed.
 */
public final class McpBench {
    static final String USAGE = String.join("\n",
            "usage: bench/run mcp [--calls N] [--java JAVA]",
            "  --calls   handles questions per side (default 100)",
            "  --java    the java that runs the ranks, the CLI and the server (default: java, the application JDK)");
    private static final Duration START = Duration.ofMinutes(3);

    private McpBench() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, USAGE);
        int calls = Math.max(1, args.integer("--calls", 100));
        String java = args.string("--java", "java");
        args.done();

        Workspace ws = Workspace.detect();
        Path cliJar = ws.root.resolve("headless/target/mpilens-cli.jar");
        Path mcpJar = ws.root.resolve("mcp/target/mpilens-mcp.jar");
        for (Path p : List.of(cliJar, mcpJar)) {
            if (!Files.exists(p)) throw new IllegalStateException(p + " does not exist: build with ./mvnw install -DskipTests -pl bench,mcp -am");
        }
        // no "cp" in any path on the ranks' command line (Open MPI 4's mpirun, docs/cli.md): under /tmp
        Path tmp = Files.createTempDirectory("mpilens-serverbench-");
        Path jobs = tmp.resolve("jobs");
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 4, "io.mpilens.examples.openmpi.HandleTour")
                .classPath(ws.openMpiExampleClassPath()).javaExecutable(java).agentJar(ws.agentJar()).jdwp(true)
                .controlDir(tmp.resolve("control")).env("MPILENS_JOBS", jobs.toString()).startTimeout(START).build();
        // this host only on both sides: no lookup of other hosts of this user's mpirun (another job's)
        Map<String, String> env = Map.of("MPILENS_JOBS", jobs.toString(), "MPILENS_HOSTS", "none");
        String loadBefore = Machine.loadAverage();
        Samples cliRuns = new Samples();
        Samples serverCalls = new Samples();
        double cliTotal;
        double serverTotal;
        double serverStart;
        int handles;
        try (Job job = Job.launch(spec)) {
            System.out.println("starting 4 ranks of HandleTour, pausing them where a freed communicator is held by a pending receive ...");
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=created"), 4, START);
            job.release("created");
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=orphans"), 4, START);
            job.awaitJdwpAddresses(START);
            String id = jobId(java, cliJar, env);
            handles = handlesIn(cli(java, cliJar, env, "handles", "--job", id, "--json")); // warm the page cache

            long t0 = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                long t = System.nanoTime();
                int n = handlesIn(cli(java, cliJar, env, "handles", "--job", id, "--json"));
                cliRuns.add((System.nanoTime() - t) / 1e6);
                if (n != handles) throw new IllegalStateException("CLI run " + i + " saw " + n + " handles, not " + handles);
            }
            cliTotal = (System.nanoTime() - t0) / 1e6;
            System.out.printf(Locale.ROOT, "%d CLI runs: %.0f ms%n", calls, cliTotal);

            t0 = System.nanoTime();
            ServerParameters params = ServerParameters.builder(java).args("-XX:+UseSerialGC", "-jar", mcpJar.toString(), "mcp")
                    .env(env).build();
            McpSyncClient client = McpClient.sync(new StdioClientTransport(params, McpJsonDefaults.getMapper()))
                    .requestTimeout(Duration.ofMinutes(2)).build();
            try {
                client.initialize();
                serverStart = (System.nanoTime() - t0) / 1e6;
                for (int i = 0; i < calls; i++) {
                    long t = System.nanoTime();
                    McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest("handles", Map.of("job", id)));
                    serverCalls.add((System.nanoTime() - t) / 1e6);
                    if (Boolean.TRUE.equals(r.isError())) throw new IllegalStateException("server call " + i + ": " + r.content());
                    int n = handlesIn(((McpSchema.TextContent) r.content().get(1)).text());
                    if (n != handles) throw new IllegalStateException("server call " + i + " saw " + n + " handles, not " + handles);
                }
                serverTotal = (System.nanoTime() - t0) / 1e6;
            } finally {
                client.closeGracefully();
            }
            System.out.printf(Locale.ROOT, "one server, %d calls: %.0f ms (its start and initialize: %.0f ms)%n", calls, serverTotal, serverStart);
        } finally {
            deleteQuietly(tmp);
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "McpBench: Open MPI, 4 ranks of HandleTour paused at 'orphans', %d handles in all;"
                + " 'handles --job ID --json' %d times each way%n", handles, calls);
        System.out.printf("machine: %d CPUs, 1-minute load average %s before, %s after; harness JDK %s; ranks, CLI and server: %s%n%n",
                Machine.cpus(), loadBefore, Machine.loadAverage(), Runtime.version(), java);
        ResultTable t = new ResultTable(1, "way", "questions", "total ms", "median ms", "min ms", "max ms");
        t.row("CLI: one JVM per question", cliRuns.count(), ResultTable.ms(cliTotal), ResultTable.ms(cliRuns.median()),
                ResultTable.ms(cliRuns.min()), ResultTable.ms(cliRuns.max()));
        t.row("mpilens mcp: one server (start incl.)", serverCalls.count(), ResultTable.ms(serverTotal),
                ResultTable.ms(serverCalls.median()), ResultTable.ms(serverCalls.min()), ResultTable.ms(serverCalls.max()));
        System.out.print(t.render());
        System.out.printf(Locale.ROOT, "ratio CLI/server: totals %s, per question (medians) %s%n",
                ResultTable.ratio(cliTotal / serverTotal), ResultTable.ratio(cliRuns.median() / serverCalls.median()));
    }

    private static String jobId(String java, Path cliJar, Map<String, String> env) throws Exception {
        String out = cli(java, cliJar, env, "jobs", "--json");
        Matcher m = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(out);
        if (!m.find()) throw new IllegalStateException("no job listed: " + out);
        return m.group(1);
    }

    /** Handles in a {@code mpilens/1} document: its {@code "kind":} fields, as released rows are few and stable here. */
    private static int handlesIn(String json) {
        int n = 0;
        for (int at = json.indexOf("\"kind\":"); at >= 0; at = json.indexOf("\"kind\":", at + 1)) n++;
        return n;
    }

    /** One CLI run as the mpilens script starts it. */
    private static String cli(String java, Path cliJar, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", cliJar.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        b.environment().putAll(env);
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("mpilens " + String.join(" ", args) + " failed: " + out);
        }
        return out;
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (java.io.IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
