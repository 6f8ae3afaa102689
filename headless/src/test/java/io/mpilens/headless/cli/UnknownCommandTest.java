package io.mpilens.headless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A command that does not exist is a usage error, with or without --help, and names the commands there are. */
class UnknownCommandTest {
    @Test
    void anUnknownCommandWithHelpIsAUsageErrorNotTheTopLevelHelp() {
        String[] outErr = new String[2];
        int code = run(outErr, "nosuch", "--help");
        assertEquals(MpiLensCli.EXIT_USAGE, code, outErr[1]);
        assertEquals("", outErr[0], "nothing on standard output");
        assertTrue(outErr[1].startsWith("mpilens: unknown command 'nosuch'; the commands: "), outErr[1]);
        assertTrue(outErr[1].contains("handles") && outErr[1].contains("cominfo"), outErr[1]);
    }

    @Test
    void anUnknownCommandAloneIsTheSameUsageError() {
        String[] outErr = new String[2];
        assertEquals(MpiLensCli.EXIT_USAGE, run(outErr, "nosuch"));
        assertTrue(outErr[1].startsWith("mpilens: unknown command 'nosuch'"), outErr[1]);
    }

    @Test
    void aKnownCommandsHelpStillWorks() {
        String[] outErr = new String[2];
        assertEquals(MpiLensCli.EXIT_OK, run(outErr, "handles", "--help"), outErr[1]);
        assertTrue(outErr[0].contains("Usage: mpilens handles"), outErr[0]);
    }

    private static int run(String[] outErr, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MpiLensCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        outErr[0] = out.toString(StandardCharsets.UTF_8);
        outErr[1] = err.toString(StandardCharsets.UTF_8);
        return code;
    }
}
