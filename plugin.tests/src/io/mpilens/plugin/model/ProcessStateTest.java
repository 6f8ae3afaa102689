package io.mpilens.plugin.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.mpilens.api.model.MpiState;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProcessStateTest {
    @Test
    void aTerminatedOrDisconnectedTargetIsAFailedProcess() {
        assertEquals(ProcessState.FAILED, ProcessState.of(true, false, null));
        assertEquals(ProcessState.FAILED, ProcessState.of(true, true, MpiState.INITIALIZED));
    }

    @Test
    void aRankThatDidNotAnswerIsUnavailableNotFailed() {
        assertEquals(ProcessState.UNAVAILABLE, ProcessState.of(false, false, null));
    }

    @Test
    void theAgentsMpiStateGivesJoiningOkAndFinalized() {
        assertEquals(ProcessState.JOINING, ProcessState.of(false, true, MpiState.NOT_INITIALIZED));
        assertEquals(ProcessState.OK, ProcessState.of(false, true, MpiState.INITIALIZED));
        assertEquals(ProcessState.FINALIZED, ProcessState.of(false, true, MpiState.FINALIZED));
    }

    @Test
    void everyProcessStateHasItsOwnColourAndFailedIsRed() {
        Set<Rgb> seen = new HashSet<>();
        for (ProcessState s : ProcessState.values()) seen.add(StatePalette.fill(s));
        assertEquals(ProcessState.values().length, seen.size());
        Rgb failed = StatePalette.fill(ProcessState.FAILED);
        assertEquals(true, failed.red() > 200 && failed.green() < 120 && failed.blue() < 120, "red: " + failed);
        assertNotEquals(StatePalette.border(CommunicatorState.OK), StatePalette.border(CommunicatorState.DETECTED));
    }

    @Test
    void communicatorAndHostStatesFollowTheirMembers() {
        ProcessState ok = ProcessState.OK, failed = ProcessState.FAILED;
        assertEquals(CommunicatorState.OK, CommunicatorState.of(java.util.List.of(ok, ok)));
        assertEquals(CommunicatorState.DETECTED, CommunicatorState.of(java.util.List.of(ok, failed)));
        assertEquals(CommunicatorState.FAILED, CommunicatorState.of(java.util.List.of(failed, failed)));
        assertEquals(HostState.PARTIAL, HostState.of(java.util.List.of(ok, failed)));
        assertEquals(HostState.DOWN, HostState.of(java.util.List.of(failed)));
    }
}
