package io.mpilens.plugin.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.HostState;
import io.mpilens.headless.ft.ProcessState;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatePaletteTest {
    @Test
    void everyStateOfTheFaultModelHasItsOwnColourAndFailedIsRed() {
        Set<Rgb> fills = new HashSet<>();
        for (ProcessState s : ProcessState.values()) fills.add(StatePalette.fill(s));
        assertEquals(ProcessState.values().length, fills.size(), "process fills are distinct");
        Set<Rgb> comms = new HashSet<>();
        for (CommState s : CommState.values()) comms.add(StatePalette.border(s));
        assertEquals(CommState.values().length, comms.size(), "communicator borders are distinct");
        Set<Rgb> hosts = new HashSet<>();
        for (HostState s : HostState.values()) hosts.add(StatePalette.border(s));
        assertEquals(HostState.values().length, hosts.size(), "host borders are distinct");
        Rgb failed = StatePalette.fill(ProcessState.FAILED);
        assertTrue(failed.red() > 200 && failed.green() < 120 && failed.blue() < 120, failed.toString());
        Rgb down = StatePalette.border(HostState.DOWN);
        assertTrue(down.red() > 150 && down.green() < 80, down.toString());
    }
}
