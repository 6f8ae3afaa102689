package io.mpilens.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.modelcontextprotocol.spec.McpSchema;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real MPJ Express multicore job (4 ranks as threads of one JVM, HandleTour paused at its orphans)
 * through {@code mpilens mcp} and the Java SDK's client: {@code jobs}, {@code handles}, {@code cominfo}
 * and {@code calls} equal the CLI's {@code --json}.
 */
class McpMpjExpressIT {
    static final Path ROOT = Paths.get(System.getProperty("mpilens.deps", "../.deps")).toAbsolutePath().getParent();
    static final Duration START = Duration.ofSeconds(120);

    @Test
    @org.junit.jupiter.api.Timeout(value = 10, unit = TimeUnit.MINUTES)
    void answersEqualTheCliForAnMpjExpressMulticoreJob() throws Exception {
        Path jobs = Paths.get("target/mcp-mpj/jobs").toAbsolutePath();
        if (Files.exists(jobs)) McpRealJobIT.deleteTree(jobs);
        Files.createDirectories(jobs.getParent());
        Files.createDirectories(jobs, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Map<String, String> env = Map.of("MPILENS_JOBS", jobs.toString(), "MPILENS_HOSTS", "none"); // this host only
        // no "cp" in a path on the ranks' command line (the module directory is .../mcp/): control under /tmp
        Path control = Files.createTempDirectory("mpilens-it-control-");
        JobSpec spec = JobSpec.builder(Binding.MPJ_MULTICORE, 4, "io.mpilens.examples.mpj.HandleTour")
                .classPath(List.of(ROOT.resolve("examples/support/target/classes"), ROOT.resolve("examples/mpj/target/classes")))
                .agentJar(Paths.get(System.getProperty("mpilens.agentJar")).toAbsolutePath().normalize())
                .agentOptions("requestStacks=true,requestHistory=true").jdwp(true).controlDir(control)
                .env("MPILENS_JOBS", jobs.toString()).build();
        try (Job job = Job.launch(spec)) {
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=created"), 4, START);
            job.release("created");
            job.awaitLines(l -> l.contains("MPILENS-PAUSE ") && l.endsWith("point=orphans"), 4, START);
            job.awaitJdwpAddresses(START);
            CliJson.Run listed = CliJson.run(env, "jobs", "--json");
            assertEquals(0, listed.exitCode(), listed.stderr());
            List<?> all = (List<?>) listed.json().get("jobs");
            assertEquals(1, all.size(), listed.stdout());
            String id = (String) ((Map<?, ?>) all.get(0)).get("id");
            Map<String, Map<String, Object>> expected = new java.util.LinkedHashMap<>();
            expected.put("jobs", listed.json());
            for (String tool : List.of("handles", "cominfo", "calls")) {
                CliJson.Run r = CliJson.run(env, tool, "--json", "--job", id);
                assertEquals(0, r.exitCode(), tool + ": " + r.stderr());
                expected.put(tool, r.json());
            }
            List<?> processes = (List<?>) expected.get("handles").get("processes");
            assertEquals(4, processes.size(), "4 ranks in one JVM");
            try (McpClientProcess server = new McpClientProcess(env)) {
                for (String tool : expected.keySet()) {
                    McpSchema.CallToolResult r = server.call(tool, tool.equals("jobs") ? Map.of() : Map.of("job", id));
                    assertFalse(Boolean.TRUE.equals(r.isError()), tool + ": " + McpClientProcess.text(r));
                    assertEquals(CliJson.withoutMoment(expected.get(tool)), CliJson.withoutMoment(r.structuredContent()), tool);
                }
            }
        } finally {
            McpRealJobIT.deleteTree(control);
        }
    }
}
