package io.mpilens.headless.ft;

import static io.mpilens.headless.ft.ReplacementsTest.comm;
import static io.mpilens.headless.ft.ReplacementsTest.status;
import static io.mpilens.headless.ft.ReplacementsTest.world;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.testing.Snapshots;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** RECOVERING from hand-built views and in-flight calls: 4 ranks, rank 2 dead, the survivors rebuilding. */
class RecoveringTest {
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    /** Survivor r: COMM_WORLD (id 1), and "survivors" (createGroup, id 9) once it is made. */
    private static ProcessSnapshot view(int r, boolean shrunk) {
        List<HandleInfo> hs = new ArrayList<>(List.of(world(r, new int[] {0, 1, 2, 3})));
        if (shrunk) hs.add(comm(r, 9, "createGroup", 1, new int[] {0, 1, 3}, null, "survivors"));
        return new ProcessSnapshot(r, 4, 100 + r, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY, hs, List.of(), 0);
    }

    /** Every survivor inside {@code method} on the handle with registry id {@code on}. */
    private static List<InFlightCall> inside(String method, long on) {
        List<InFlightCall> out = new ArrayList<>();
        for (int r : new int[] {0, 1, 3}) {
            out.add(new InFlightCall(r, "main", "mpi.Intracomm." + method, "#" + on, on, -1, List.of(), false));
        }
        return out;
    }

    private static JobModel round(boolean shrunk, List<InFlightCall> calls, Timeline t) {
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        for (int r : new int[] {0, 1, 3}) {
            views.put(r, view(r, shrunk));
            ranks.add(status(r, ProcessState.OK, 100 + r, views.get(r)));
        }
        ranks.add(status(2, ProcessState.FAILED, 102, null));
        return Recovering.apply(FaultModel.build("j", T0, ranks, views, null, null), calls, t);
    }

    @Test
    void survivorsInsideCreateGroupOnADetectedWorldMakeItRecovering() {
        Timeline t = new Timeline();
        assertEquals(CommState.DETECTED, round(false, List.of(), t).communicator("MPI_COMM_WORLD").orElseThrow().state());
        JobModel m = round(false, inside("createGroup", 1), t);
        CommunicatorView world = m.communicator("MPI_COMM_WORLD").orElseThrow();
        assertEquals(CommState.RECOVERING, world.state());
        assertEquals(List.of(0, 1, 3), m.recovering(world.key()).stream().map(InFlightCall::rank).toList());
        assertTrue(t.transitions().stream().anyMatch(x -> x.subject().equals("comm MPI_COMM_WORLD")
                && "DETECTED".equals(x.from()) && "RECOVERING".equals(x.to())), t.transitions().toString());
    }

    @Test
    void aCallThatBuildsNothingIsNoRecovery() {
        JobModel m = round(false, inside("barrier", 1), null);
        assertEquals(CommState.DETECTED, m.communicator("MPI_COMM_WORLD").orElseThrow().state());
        assertEquals(Map.of(), m.recovering());
    }

    @Test
    void onceShrunkOnlyBringingProcessesInOnADescendantIsRecovering() {
        JobModel spawning = round(true, inside("spawn", 9), null);
        assertEquals(CommState.RECOVERING, spawning.communicator("MPI_COMM_WORLD").orElseThrow().state(),
                "spawn on survivors, derived from COMM_WORLD");
        assertEquals(CommState.OK, spawning.communicator("survivors").orElseThrow().state(), "no member of it failed");
        JobModel splitting = round(true, inside("split", 9), null);
        assertEquals(CommState.RECOVERED, splitting.communicator("MPI_COMM_WORLD").orElseThrow().state(),
                "the survivors' own work after a shrink is not a recovery");
    }

    @Test
    void aCallOnAnUnrelatedCommunicatorIsNoRecovery() {
        JobModel m = round(true, inside("spawn", 77), null);
        assertEquals(CommState.RECOVERED, m.communicator("MPI_COMM_WORLD").orElseThrow().state());
    }

    @Test
    void theTimelineGoesDetectedRecoveringRecoveredRebuilt() {
        Timeline t = new Timeline();
        round(false, List.of(), t);
        round(false, inside("createGroup", 1), t);
        round(true, inside("spawn", 9), t);
        Recovering.apply(ReplacementsTest.model(true, ProcessState.OK, ReplacementsTest.child(true), null), List.of(), t);
        List<String> world = t.transitions().stream().filter(x -> x.subject().equals("comm MPI_COMM_WORLD"))
                .map(Transition::to).toList();
        assertEquals(List.of("DETECTED", "RECOVERING", "RECOVERED (rebuilt)"), world, t.transitions().toString());
    }

    // ---- ULFM's revoke: no binding here has it, so these are the model's rules only, over hand-built views

    /** {@link #round} with an MPI exception of class {@code errorClass} on COMM_WORLD on rank 1, from a {@code binding} JVM. */
    private static JobModel revoked(String binding, int errorClass, boolean shrunk, List<InFlightCall> calls, boolean failed) {
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        for (int r : new int[] {0, 1, 3}) {
            ProcessSnapshot v = view(r, shrunk);
            List<io.mpilens.api.model.MpiError> errors = r != 1 ? List.of() : List.of(new io.mpilens.api.model.MpiError(
                    5, 1, "barrier", 1, HandleInfo.UNKNOWN, errorClass, errorClass, null, "revoked"));
            views.put(r, new ProcessSnapshot(r, 4, 100 + r, "node1", binding, MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                    v.handles(), List.of(), 0, errors));
            ranks.add(status(r, ProcessState.OK, 100 + r, views.get(r)));
        }
        ranks.add(status(2, failed ? ProcessState.FAILED : ProcessState.OK, 102, null));
        return Recovering.apply(FaultModel.build("j", T0, ranks, views, null, null), calls, null);
    }

    @Test
    void ulfmsRevokedErrorClassMakesTheCommunicatorRevokedUntilTheSurvivorsShrinkIt() {
        int revokedClass = FaultModel.ULFM_ERR_REVOKED.get("openmpi");
        assertEquals(CommState.REVOKED, revoked("openmpi", revokedClass, false, List.of(), true)
                .communicator("MPI_COMM_WORLD").orElseThrow().state());
        assertEquals(CommState.REVOKED, revoked("openmpi", revokedClass, false, List.of(), false)
                .communicator("MPI_COMM_WORLD").orElseThrow().state(), "revoked before any failure is known");
        assertEquals(CommState.RECOVERING, revoked("openmpi", revokedClass, false, inside("shrink", 1), true)
                .communicator("MPI_COMM_WORLD").orElseThrow().state(), "survivors inside shrink");
        assertEquals(CommState.RECOVERED, revoked("openmpi", revokedClass, true, List.of(), true)
                .communicator("MPI_COMM_WORLD").orElseThrow().state(), "shrunk to its survivors");
    }

    @Test
    void anotherErrorClassOrABindingWithoutUlfmIsOnlyDetected() {
        int revokedClass = FaultModel.ULFM_ERR_REVOKED.get("openmpi");
        assertEquals(CommState.DETECTED, revoked("openmpi", revokedClass + 1, false, List.of(), false)
                .communicator("MPI_COMM_WORLD").orElseThrow().state());
        assertEquals(CommState.DETECTED, revoked("mpj", revokedClass, false, List.of(), false)
                .communicator("MPI_COMM_WORLD").orElseThrow().state());
    }
}
