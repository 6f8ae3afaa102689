package io.mpilens.headless.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code mpilens cominfo} as text at a scale where one line per member would not fit. */
class FaultBoxesCominfoTest {
    @Test
    void sixtyFourMembersFitOnOneLineWithTheirStates() {
        List<RankStatus> ranks = new ArrayList<>();
        List<Integer> members = new ArrayList<>();
        for (int r = 0; r < 64; r++) {
            ProcessState s = r == 2 || (r >= 40 && r <= 43) ? ProcessState.FAILED : r == 50 ? ProcessState.UNAVAILABLE
                    : ProcessState.OK;
            ranks.add(new RankStatus(r, 0, 1000 + r, 1, "h", "a", s, null, 1, null));
            members.add(r);
        }
        CommunicatorView world = new CommunicatorView("MPI_COMM_WORLD", "MPI_COMM_WORLD", members, CommState.DETECTED,
                List.of(2, 40, 41, 42, 43), List.of(50), null, List.of(), members, List.of());
        List<String> lines = new FaultBoxes(false).cominfo(new JobModel("j", Instant.EPOCH, ranks, List.of(world),
                List.of(), List.of()));
        assertEquals(String.format("| %-76s |", "members 0 1 2x 3-39 40-43x 44-49 50? 51-63"), lines.get(3));
        assertEquals(String.format("| %-76s |", "failed  [2, 40-43]"), lines.get(4));
        assertTrue(lines.get(5).startsWith("| suspect [50] (no answer in time"), lines.get(5));
    }

    /** An intercommunicator: its two groups in their rank order, each member with its state, on the members line. */
    @Test
    void anIntercommunicatorShowsItsTwoGroups() {
        List<RankStatus> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            ranks.add(new RankStatus(r, 0, 1000 + r, 1, "h", "a", r == 1 ? ProcessState.FAILED : ProcessState.OK, null, 1, null));
        }
        CommunicatorView bridge = new CommunicatorView("x", "bridge", List.of(0, 3, 2, 1), CommState.DETECTED, List.of(1),
                List.of(), null, List.of(), List.of(0, 2, 3), List.of(), java.util.Map.of(),
                List.of(List.of(0, 3), List.of(2, 1)));
        List<String> lines = new FaultBoxes(false).cominfo(new JobModel("j", Instant.EPOCH, ranks, List.of(bridge),
                List.of(), List.of()));
        assertEquals(String.format("| %-76s |", "members 0 3 | 2 1x  (intercommunicator)"), lines.get(3));
        assertEquals(String.format("| %-76s |", "failed  [1]"), lines.get(4));
    }
}
