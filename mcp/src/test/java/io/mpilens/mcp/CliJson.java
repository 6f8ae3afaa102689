package io.mpilens.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.TypeRef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** The CLI itself (headless' mpilens-cli.jar, in a JVM of its own), what the server's answers are compared with. */
final class CliJson {
    static final Path CLI_JAR = Paths.get(System.getProperty("mpilens.cliJar", "../headless/target/mpilens-cli.jar")).toAbsolutePath();

    /** Fields that differ between two reads of the same paused job: times, and the JDWP port a rank listens on after a detach. */
    static final Set<String> MOMENT = Set.of("at", "answerMillis", "address", "jdwp", "updated", "millisApart");

    record Run(int exitCode, String stdout, String stderr) {
        Map<String, Object> json() {
            return parse(stdout);
        }
    }

    static Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(McpClientProcess.java(), "-jar", CLI_JAR.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(cmd);
        b.environment().putAll(env);
        Process p = b.start();
        p.getOutputStream().close();
        var out = p.getInputStream().readAllBytes();
        var err = p.getErrorStream().readAllBytes();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("mpilens " + String.join(" ", args) + " did not end in 300 s");
        }
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    /**
     * The first line a command that does not end by itself prints ({@code watch --json}: the job's model
     * after its first round), then the command is ended as Ctrl-C would.
     */
    static String firstLine(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(McpClientProcess.java(), "-jar", CLI_JAR.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        b.environment().putAll(env);
        Process p = b.start();
        p.getOutputStream().close();
        try {
            java.util.concurrent.CompletableFuture<String> first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                            StandardCharsets.UTF_8)).readLine();
                } catch (IOException e) {
                    return null;
                }
            });
            String line = first.get(300, TimeUnit.SECONDS);
            if (line == null) throw new IOException("mpilens " + String.join(" ", args) + " printed nothing (exit code "
                    + (p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : "none") + ")");
            return line;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("mpilens " + String.join(" ", args) + " printed no line in 300 s", e);
        } finally {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) p.destroyForcibly();
        }
    }

    static Map<String, Object> parse(String json) {
        try {
            return McpJsonDefaults.getMapper().readValue(json.strip(), new TypeRef<Map<String, Object>>() { });
        } catch (IOException e) {
            throw new AssertionError("not a JSON object: " + json, e);
        }
    }

    /** A copy without the {@link #MOMENT} fields, at any depth. */
    @SuppressWarnings("unchecked")
    static Object withoutMoment(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!MOMENT.contains((String) e.getKey())) out.put((String) e.getKey(), withoutMoment(e.getValue()));
            }
            return out;
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (Object e : l) out.add(withoutMoment(e));
            return out;
        }
        return o;
    }
}
