package io.mpilens.plugin.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.launch.Binding;
import io.mpilens.headless.launch.JobSpec;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MpiLaunchSettingsTest {
    private static final Path AGENT = Path.of("/opt/mpilens/agent/mpilens-agent.jar");
    private static final List<Path> CP = List.of(Path.of("/ws/tour/bin"), Path.of("/ws/lib/support.jar"));

    @Test
    void aNewConfigurationIsFourOpenMpiRanks() {
        MpiLaunchSettings s = MpiLaunchSettings.from(Map.of());
        assertEquals(Binding.OPENMPI, s.binding());
        assertEquals(4, s.ranks());
        assertEquals("", s.mpirunArgs());
        assertEquals(s, MpiLaunchSettings.defaults());
    }

    @Test
    void attributesRoundTrip() {
        MpiLaunchSettings s = new MpiLaunchSettings(Binding.MPJ_NIODEV, 3, "", "requestStacks=true");
        assertEquals(s, MpiLaunchSettings.from(s.attributes()));
        assertEquals("mpj-niodev", s.attributes().get(MpiLaunchSettings.ATTR_BINDING));
    }

    @Test
    void badAttributesNameTheProblem() {
        Map<String, Object> a = new HashMap<>();
        a.put(MpiLaunchSettings.ATTR_RANKS, 0);
        assertEquals("number of ranks must be between 1 and 256, got 0", MpiLaunchSettings.problem(a));
        a.put(MpiLaunchSettings.ATTR_RANKS, "four");
        assertEquals("number of ranks is not a number: 'four'", MpiLaunchSettings.problem(a));
        a.put(MpiLaunchSettings.ATTR_RANKS, "2");
        assertNull(MpiLaunchSettings.problem(a));
        a.put(MpiLaunchSettings.ATTR_BINDING, "lam");
        assertTrue(MpiLaunchSettings.problem(a).startsWith("unknown binding 'lam': use one of openmpi, mpj-multicore, mpj-niodev"),
                MpiLaunchSettings.problem(a));
        a.put(MpiLaunchSettings.ATTR_BINDING, "mpj-multicore");
        a.put(MpiLaunchSettings.ATTR_MPIRUN_ARGS, "--mca x y");
        assertEquals("mpirun arguments apply to Open MPI only, not mpj-multicore: clear them or choose Open MPI",
                MpiLaunchSettings.problem(a));
    }

    @Test
    void theSpecPutsTheAgentAndJdwpOnEveryRankAfterTheUsersOptions() {
        MpiLaunchSettings s = new MpiLaunchSettings(Binding.OPENMPI, 4, " --mca orte_abort_on_non_zero_status 0 ", "");
        JobSpec spec = s.spec("demo.Main", CP, List.of("-Xmx256m", "-Dmpilens.control=/tmp/c"), List.of("a", "b c"), AGENT,
                null, "/usr/lib/jvm/java-17/bin/java");
        assertEquals(Binding.OPENMPI, spec.binding());
        assertEquals(4, spec.np());
        assertEquals("demo.Main", spec.mainClass());
        assertEquals(CP, spec.classPath());
        assertEquals(List.of("a", "b c"), spec.appArgs());
        assertEquals(List.of("--mca", "orte_abort_on_non_zero_status", "0"), spec.mpirunArgs());
        assertEquals("/usr/lib/jvm/java-17/bin/java", spec.javaExecutable());
        // JDWP quiet and before the agent, which announces the port once (jdwpLine)
        assertEquals(List.of("-Xmx256m", "-Dmpilens.control=/tmp/c", JobSpec.JDWP_QUIET_OPTION, "-javaagent:" + AGENT + "=jdwpLine=true"),
                spec.rankJvmOptions());
        assertNull(spec.workingDirectory());
    }

    @Test
    void agentOptionsAndWorkingDirectoryReachTheSpec() {
        MpiLaunchSettings s = new MpiLaunchSettings(Binding.MPJ_MULTICORE, 2, "", "requestStacks=true");
        JobSpec spec = s.spec("demo.Main", CP, List.of(), List.of(), AGENT, Path.of("/ws/tour"), "java");
        assertEquals(List.of(JobSpec.JDWP_QUIET_OPTION, "-javaagent:" + AGENT + "=requestStacks=true,jdwpLine=true"), spec.rankJvmOptions());
        assertEquals(Path.of("/ws/tour"), spec.workingDirectory());
    }

    @Test
    void aUserJdwpOptionIsRefusedBecauseEveryRankGetsItsOwn() {
        MpiLaunchSettings s = MpiLaunchSettings.defaults();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.spec("demo.Main", CP,
                List.of("-agentlib:jdwp=transport=dt_socket,server=y,address=5005"), List.of(), AGENT, null, "java"));
        assertTrue(e.getMessage().startsWith("remove '-agentlib:jdwp=transport=dt_socket,server=y,address=5005'"), e.getMessage());
    }

    @Test
    void noMainClassOrNoClassPathIsRefused() {
        MpiLaunchSettings s = MpiLaunchSettings.defaults();
        assertEquals("no main class: choose the class whose main() every rank runs",
                assertThrows(IllegalArgumentException.class, () -> s.spec(" ", CP, List.of(), List.of(), AGENT, null, "java"))
                        .getMessage());
        assertEquals("the class path is empty: choose the project that holds demo.Main",
                assertThrows(IllegalArgumentException.class,
                        () -> s.spec("demo.Main", List.of(), List.of(), List.of(), AGENT, null, "java")).getMessage());
    }

    @Test
    void debugTargetsAreNamedByRankWhereTheOrderIsKnown() {
        List<JdwpAddress> two = List.of(new JdwpAddress("127.0.0.1", 4001), new JdwpAddress("127.0.0.1", 4002));
        assertEquals(List.of("rank 0 (127.0.0.1:4001)", "rank 1 (127.0.0.1:4002)"),
                new MpiLaunchSettings(Binding.OPENMPI, 2, "", "").targetLabels(two));
        assertEquals(List.of("rank JVM 1 of 2 (127.0.0.1:4001)", "rank JVM 2 of 2 (127.0.0.1:4002)"),
                new MpiLaunchSettings(Binding.MPJ_NIODEV, 2, "", "").targetLabels(two));
        assertEquals(List.of("ranks 0-3 (127.0.0.1:4001)"),
                new MpiLaunchSettings(Binding.MPJ_MULTICORE, 4, "", "").targetLabels(two.subList(0, 1)));
    }
}
