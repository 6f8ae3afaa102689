package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The agent on a JVM without any MPI binding: one line saying so, then out of the way. */
class AgentWithoutBindingTest {
    /** The whole program: a plain Java main, nothing MPI on its class path. */
    static final class PlainProgram {
        public static void main(String[] args) {
            System.out.println("plain program says " + String.join(" ", args));
            System.err.println("plain program warns on stderr");
            long agentThreads = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().toLowerCase().contains("lens")).count();
            System.out.println("agent threads: " + agentThreads);
            // returns from main: the JVM exits only if nothing else keeps it alive
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void plainJvmRunsUntouchedAndTheAgentSaysOnceThatItStaysInactive(@TempDir Path dir) throws Exception {
        Path testClasses = Paths.get(PlainProgram.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Process p = new ProcessBuilder("java", "-javaagent:" + Tours.AGENT, "-cp", testClasses.toString(),
                PlainProgram.class.getName(), "hello", "world")
                .redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        try {
            assertTrue(p.waitFor(50, TimeUnit.SECONDS), "the plain program did not exit");
        } finally {
            p.destroyForcibly();
        }

        List<String> stdout = lines(out);
        List<String> stderr = lines(err);
        String shown = "\nstdout:\n" + String.join("\n", stdout) + "\nstderr:\n" + String.join("\n", stderr);
        assertEquals(0, p.exitValue(), "exit code of a program that returned from main" + shown);
        assertEquals(List.of("plain program says hello world", "agent threads: 0"), stdout, "stdout" + shown);
        assertTrue(stderr.contains("plain program warns on stderr"), "the program's own stderr line" + shown);

        List<String> fromMpilens = stderr.stream().filter(l -> l.contains("mpilens")).collect(Collectors.toList());
        assertEquals(1, fromMpilens.size(), "exactly one line from mpilens" + shown);
        assertTrue(fromMpilens.get(0).startsWith("mpilens: no MPI binding"), "the line names the cause" + shown);
        assertEquals(2, stderr.size(), "nothing else on stderr" + shown);
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8);
    }
}
