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
