package io.mpilens.api.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProcStatTest {
    /** A command name with spaces and parentheses, as a thread renamed by its program may have. */
    private static final String STAT = "4242 (java (rank) 1) S 17 4242 17 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 30 0 987654 "
            + "4000000000 5000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

    @Test
    void fieldsCountFromTheLastParenthesis() {
        assertEquals(4242, ProcStat.pid(STAT));
        assertEquals(17, ProcStat.field(STAT, ProcStat.PPID));
        assertEquals(987654, ProcStat.field(STAT, ProcStat.START_TICKS));
        assertEquals('S', ProcStat.state(STAT));
    }

    @Test
    void whatIsNotThereOrNotANumberIsMinusOne() {
        assertEquals(-1, ProcStat.field(STAT, 200), "beyond the last field");
        assertEquals(-1, ProcStat.field("1 (x) S 1 -5", 5), "not a number");
        assertEquals(-1, ProcStat.field(STAT, 25), "too long for a long");
        assertEquals(-1, ProcStat.field("no parenthesis here", 4));
        assertEquals(-1, ProcStat.field(null, 4));
        assertEquals(-1, ProcStat.pid("x (y) S"));
        assertEquals(0, ProcStat.state("1 (x)"));
    }

    @Test
    void thisProcessHasAStartInTicks() throws Exception {
        Path self = Path.of("/proc/self/stat");
        assumeTrue(Files.isReadable(self), "no /proc on this system");
        String stat = Files.readString(self);
        assertEquals(ProcessHandle.current().pid(), ProcStat.pid(stat));
        assertEquals(ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L), ProcStat.field(stat, ProcStat.PPID));
        assertTrue(ProcStat.field(stat, ProcStat.START_TICKS) > 0);
    }
}
