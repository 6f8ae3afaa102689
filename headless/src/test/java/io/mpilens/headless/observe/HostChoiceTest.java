package io.mpilens.headless.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which hosts a front end asks and how ({@link HostChoice}): the rule the CLI's --hosts and the Eclipse views share. */
class HostChoiceTest {
    private static final HostCollectors.Parser NO_PARSER = lines -> {
        throw new AssertionError("nothing is collected here");
    };
    private static final List<String> COLLECT = List.of("collect");

    /** Hosts found by themselves are reached by ssh that never asks for a password on the terminal. */
    @Test
    void sshToHostsNobodyNamedNeverPrompts() {
        assertEquals("ssh -o BatchMode=yes", HostChoice.batch("ssh"));
        assertEquals("/usr/bin/ssh -p 2222 -o BatchMode=yes", HostChoice.batch(" /usr/bin/ssh -p 2222 "));
        assertEquals("/run/mpilens-simhosts/rsh", HostChoice.batch("/run/mpilens-simhosts/rsh"), "another agent is left as it is");
        assertEquals("rsh", HostChoice.batch("rsh"));
    }

    @Test
    void namedHostsAreAskedAsNamedAndNoneMeansThisHostOnly() {
        HostChoice named = HostChoice.of(List.of("n1", "n2"), null, Map.of(), "/opt/mpilens/mpilens", NO_PARSER);
        assertEquals(List.of("n1", "n2"), named.collectors().hosts());
        assertNull(named.said(), "named hosts are not announced");
        assertEquals(List.of("ssh", "n1", "/opt/mpilens/mpilens", "collect"), named.collectors().command("n1", COLLECT));

        HostChoice fromEnv = HostChoice.of(null, null, Map.of(HostCollectors.HOSTS_ENV, "a, b c",
                HostCollectors.REMOTE_ENV, "java -jar /x/cli.jar"), "mpilens", NO_PARSER);
        assertEquals(List.of("a", "b", "c"), fromEnv.collectors().hosts());
        assertEquals(List.of("ssh", "b", "java", "-jar", "/x/cli.jar", "collect"), fromEnv.collectors().command("b", COLLECT));

        assertSame(HostChoice.HERE, HostChoice.of(List.of("none"), null, Map.of(), "mpilens", NO_PARSER));
        assertSame(HostChoice.HERE, HostChoice.of(List.of(), "mpirun", Map.of(), "mpilens", NO_PARSER));
        assertThrows(IllegalArgumentException.class, () -> HostChoice.of(List.of("-oProxyCommand=x"), null, Map.of(), "mpilens", NO_PARSER));
        IllegalArgumentException via = assertThrows(IllegalArgumentException.class,
                () -> HostChoice.of(List.of("n1"), "telnet", Map.of(), "mpilens", NO_PARSER));
        assertTrue(via.getMessage().contains("ssh, mpirun or mpj"), via.getMessage());
    }

    @Test
    void hostsOfALauncherHereAreReachedTheWayItReachedThem() {
        Launchers.Found found = Launchers.found(List.of(new Launchers.Launch(4242, "mpirun", List.of("node7", "node8"),
                "/run/rsh-agent", "--host")));
        HostChoice bySsh = HostChoice.discovered(null, Map.of(), "mpilens", NO_PARSER, found);
        assertEquals(List.of("node7", "node8"), bySsh.collectors().hosts());
        assertEquals(List.of("/run/rsh-agent", "node8", "mpilens", "collect"), bySsh.collectors().command("node8", COLLECT));
        assertEquals("also reading the hosts of mpirun pid 4242 (--host): node7,node8 (collectors started with its"
                + " plm_rsh_agent /run/rsh-agent; --hosts none: this host only)", bySsh.said());

        HostChoice byMpirun = HostChoice.discovered("mpirun", Map.of(), "mpilens", NO_PARSER, found);
        assertEquals(List.of("mpirun", "--mca", "plm_rsh_agent", "/run/rsh-agent", "-np", "1", "--host", "node7", "mpilens", "collect"),
                byMpirun.collectors().command("node7", COLLECT));

        // the environment's own ssh wins over the launcher's agent
        HostChoice own = HostChoice.discovered(null, Map.of(HostCollectors.SSH_ENV, "ssh -p 2222"), "mpilens", NO_PARSER, found);
        assertEquals("ssh", own.collectors().command("node7", COLLECT).get(0));
        assertTrue(own.said().contains("collectors started with ssh;"), own.said());

        Launchers.Found plain = Launchers.found(List.of(new Launchers.Launch(7, "mpirun", List.of("node9"), null, "hostfile h")));
        assertEquals(List.of("ssh", "-o", "BatchMode=yes", "node9", "mpilens", "collect"),
                HostChoice.discovered(null, Map.of(), "mpilens", NO_PARSER, plain).collectors().command("node9", COLLECT));

        assertSame(HostChoice.HERE, HostChoice.discovered(null, Map.of(), "mpilens", NO_PARSER, Launchers.found(List.of())));
    }
}
