package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class HostsOptionTest {
    /** Hosts found by themselves are reached by ssh that never asks for a password on the terminal. */
    @Test
    void sshToHostsNobodyNamedNeverPrompts() {
        assertEquals("ssh -o BatchMode=yes", HostsOption.batch("ssh"));
        assertEquals("/usr/bin/ssh -p 2222 -o BatchMode=yes", HostsOption.batch(" /usr/bin/ssh -p 2222 "));
        assertEquals("/run/mpilens-simhosts/rsh", HostsOption.batch("/run/mpilens-simhosts/rsh"), "another agent is left as it is");
        assertEquals("rsh", HostsOption.batch("rsh"));
    }
}
