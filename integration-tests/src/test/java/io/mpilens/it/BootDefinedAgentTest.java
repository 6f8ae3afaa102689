package io.mpilens.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.Job;
import io.mpilens.headless.launch.JobSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's classes are defined in the boot loader from its pack (BootPack), in a real Open
 * MPI rank: with a warm woven-class cache none of them goes through the system class loader but
 * the entry point's, the JVM says nothing about it (no boot class path was appended), and the
 * agent works from there.
 */
class BootDefinedAgentTest {
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theAgentRunsFromTheBootLoaderAndTheRankRunsAsWithout(@TempDir Path tmp) throws Exception {
        run(tmp, tmp.resolve("cold.log")); // weaves: the weaver's classes load through the system class loader
        Path log = tmp.resolve("warm.log");
        run(tmp, log);
        List<String> ours = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains(" io.mpilens.")).collect(Collectors.toList());
        List<String> fromTheJar = ours.stream().filter(l -> l.contains("mpilens-agent.jar"))
                .map(l -> l.replaceAll(".* (io\\.mpilens\\.\\S+) .*", "$1")).collect(Collectors.toList());
        List<String> defined = ours.stream().filter(l -> l.contains("__JVM_DefineClass__")).collect(Collectors.toList());
        assertTrue(!fromTheJar.isEmpty() && fromTheJar.stream().allMatch(c -> c.startsWith("io.mpilens.agent.boot.")),
                "with a warm woven-class cache only the entry point comes through the system class loader: " + fromTheJar);
        assertTrue(defined.stream().anyMatch(l -> l.contains(" io.mpilens.agent.MpiLensAgent "))
                        && defined.stream().anyMatch(l -> l.contains(" io.mpilens.agent.intercept.Interceptor "))
                        && defined.stream().anyMatch(l -> l.contains(" io.mpilens.agent.registry.HandleRegistry ")),
                "the agent's classes are defined from the pack: " + defined.size() + " of " + ours.size());
    }

    /** One rank with the agent and the JVM's class-loading log in {@code log}; it must run to the end. */
    private static void run(Path tmp, Path log) throws Exception {
        JobSpec spec = JobSpec.builder(Binding.OPENMPI, 1, "io.mpilens.examples.openmpi.MessageRate")
                .classPath(Tours.classPath(Binding.OPENMPI)).appArgs("self", "1000", "1").agentJar(Tours.AGENT)
                .agentOptions("verbose=true,wovenCacheDir=" + tmp.resolve("woven"))
                .jvmOptions("-Xlog:class+load=info:file=" + log).build();
        try (Job job = Job.launch(spec)) {
            job.awaitLine(l -> l.contains("RATE mode="), Duration.ofMinutes(2));
            assertEquals(0, job.waitFor(Duration.ofMinutes(1)), job.tail());
            String tail = job.tail();
            assertTrue(job.output().stream().anyMatch(l -> l.contains("mpilens: agent ") && l.contains(" watching ")),
                    "the agent is active: " + tail);
            assertTrue(job.output().stream().noneMatch(l -> l.contains("VM warning") || l.contains("Sharing is only supported")),
                    "no JVM warning: " + tail);
        }
    }
}
