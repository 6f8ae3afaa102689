package io.mpilens.headless.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.testing.Snapshots;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The status word's rule on hand-built job models: which observation sets which bit, with which reason. */
class StatusWordTest {
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    private static ProcessSnapshot snapshot(int r, AgentHealth health, List<MpiError> errors, List<HandleInfo> more) {
        List<HandleInfo> hs = new ArrayList<>();
        hs.add(HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(r).name("MPI_COMM_WORLD").predefined(true)
                .rank(r).size(4).members(new int[] {0, 1, 2, 3}).build());
        hs.addAll(more);
        return new ProcessSnapshot(r, 4, 100 + r, "node1", "openmpi", MpiState.INITIALIZED, 1, health, hs, List.of(), 0,
                errors);
    }

    private static RankStatus answered(int r) {
        return answered(r, snapshot(r, Snapshots.HEALTHY, List.of(), List.of()));
    }

    private static RankStatus answered(int r, ProcessSnapshot p) {
        return new RankStatus(r, 0, 100 + r, 99, "node1", "127.0.0.1:" + (4000 + r), ProcessState.OK, "answered", 5, p);
    }

    private static RankStatus notRead(int r, ProcessState s, String evidence, Boolean alive) {
        return new RankStatus(r, 0, 100 + r, 99, "node1", "127.0.0.1:" + (4000 + r), s, evidence, -1, null, alive);
    }

    /** Four ranks, all answering, except those given instead. */
    private static JobModel job(RankStatus... instead) {
        Map<Integer, RankStatus> byRank = new HashMap<>();
        for (int r = 0; r < 4; r++) byRank.put(r, answered(r));
        for (RankStatus s : instead) byRank.put(s.rank(), s);
        List<RankStatus> ranks = new ArrayList<>(byRank.values());
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        for (RankStatus r : ranks) if (r.snapshot() != null) views.put(r.rank(), r.snapshot());
        return FaultModel.build("j", T0, ranks, views, null, null);
    }

    private static MpiError error(int rank, String call, int errorClass) {
        return new MpiError(5, rank, call, 1, HandleInfo.UNKNOWN, errorClass, errorClass, "mpi.MPIException",
                "MPI_ERR_OTHER: known error not in list");
    }

    @Test
    void aHealthyJobIsOkWithNoReason() {
        StatusWord w = job().status();
        assertEquals(StatusWord.OK, w.bits());
        assertEquals("OK", w.name());
        assertEquals(List.of(), w.reasons());
        assertEquals("OK (0)", w.line());
    }

    @Test
    void aFailedRankOtherThanZeroIsAnErrorOnAnother() {
        StatusWord w = job(notRead(2, ProcessState.FAILED, "process gone before MPI_Finalize", false)).status();
        assertEquals(StatusWord.ER_OTH, w.bits());
        assertEquals("ER_OTH", w.name());
        assertEquals("rank 2 FAILED", w.because());
        assertEquals("rank 2 FAILED: process gone before MPI_Finalize", w.reasons().get(0).full());
        assertEquals(StatusWord.Kind.ERROR, w.reasons().get(0).kind());
        assertEquals(2, w.reasons().get(0).rank());
    }

    @Test
    void rankZeroFailedIsAnErrorOnRankZero() {
        StatusWord w = job(notRead(0, ProcessState.FAILED, "VM disconnected while being read", null)).status();
        assertEquals(StatusWord.ER_PR0, w.bits());
        assertEquals("ER_PR0", w.name());
    }

    @Test
    void anMpiErrorRaisedOnRankZeroIsAnErrorOnRankZeroNamingTheCallAndClass() {
        JobModel m = job(answered(0, snapshot(0, Snapshots.HEALTHY, List.of(error(0, "send", 6)), List.of())));
        StatusWord w = m.status();
        assertEquals(StatusWord.ER_PR0, w.bits());
        assertEquals("rank 0 MPI error in send (class 6)", w.because());
        assertTrue(w.reasons().get(0).detail().contains("MPI_ERR_OTHER"), w.reasons().toString());
    }

    @Test
    void severalMpiErrorsOnOneRankAreOneReasonNamingTheFirst() {
        MpiError later = new MpiError(9, 1, "recv", 1, 0, 3, 3, "mpi.MPIException", "later");
        JobModel m = job(answered(1, snapshot(1, Snapshots.HEALTHY, List.of(later, error(1, "barrier", 13)), List.of())));
        assertEquals("rank 1 raised 2 MPI errors, first in barrier (class 13)", m.status().because());
        assertEquals(StatusWord.ER_OTH, m.status().bits());
    }

    @Test
    void aRequestPendingOnAFailedPeerIsAnErrorOfTheRankThatHoldsIt() {
        HandleInfo recv = HandleInfo.builder(20, HandleKind.REQUEST).ownerRank(0).creatingCall("iRecv").peer(2).tag(11)
                .communicator(1).build();
        JobModel m = job(answered(0, snapshot(0, Snapshots.HEALTHY, List.of(), List.of(recv))),
                notRead(2, ProcessState.FAILED, "process gone before MPI_Finalize", false));
        StatusWord w = m.status();
        assertEquals(StatusWord.ER_PR0 | StatusWord.ER_OTH, w.bits());
        assertEquals("ER_PR0+ER_OTH", w.name());
        assertEquals("rank 0 has 1 request pending on FAILED 2; rank 2 FAILED", w.because());
    }

    @Test
    void aRankPastItsDeadlineWhoseProcessRunsIsAnAlarmNotAnError() {
        StatusWord w = job(notRead(1, ProcessState.UNAVAILABLE,
                "no answer within the deadline (stopped or overloaded?); process 101 is stopped (SIGSTOP?)", true)).status();
        assertEquals(StatusWord.AL_OTH, w.bits());
        assertEquals("AL_OTH", w.name());
        assertEquals(StatusWord.Kind.ALARM, w.reasons().get(0).kind());
        assertTrue(w.reasons().get(0).full().contains("SIGSTOP"), w.reasons().toString());
    }

    @Test
    void rankZeroPastItsDeadlineAliveIsAnAlarmOnRankZero() {
        StatusWord w = job(notRead(0, ProcessState.UNAVAILABLE, "no answer within the deadline", true)).status();
        assertEquals(StatusWord.AL_PR0, w.bits());
    }

    @Test
    void aRankOfWhichNothingIsKnownIsUndefined() {
        StatusWord w = job(notRead(3, ProcessState.UNAVAILABLE, "no report: the collector on sim2 did not answer in time",
                null)).status();
        assertEquals(StatusWord.UN_OTH, w.bits());
        assertEquals("UN_OTH", w.name());
        assertEquals("rank 3 UNAVAILABLE (undefined)", w.because());
    }

    @Test
    void rankZeroUndefinedSetsTheUndefinedBitNamingRankZero() {
        // Code_Aster has no UN_PR0: mpilens asks from outside the job, so rank 0 can be undefined too
        StatusWord w = job(notRead(0, ProcessState.UNAVAILABLE, "no heap dump of this rank", null)).status();
        assertEquals(StatusWord.UN_OTH, w.bits());
        assertEquals(0, w.reasons().get(0).rank());
    }

    @Test
    void theAgentsLostEventsAndInternalErrorsAreAlarms() {
        AgentHealth lost = new AgentHealth("0.1.0", 2, "NullPointerException in advice", 3, true, 0);
        StatusWord w = job(answered(0, snapshot(0, lost, List.of(), List.of()))).status();
        assertEquals(StatusWord.AL_PR0, w.bits());
        assertEquals("rank 0 agent could not record 3 MPI events; rank 0 agent had 2 internal errors", w.because());
    }

    @Test
    void aHostWithAllFourKindsCombinesTheBitsAndOrdersErrorsFirst() {
        JobModel m = job(answered(0, snapshot(0, new AgentHealth("0.1.0", 0, null, 1, true, 0), List.of(), List.of())),
                notRead(1, ProcessState.UNAVAILABLE, "stopped", true),
                notRead(2, ProcessState.FAILED, "gone", false),
                notRead(3, ProcessState.UNAVAILABLE, "no report", null));
        StatusWord w = m.status();
        assertEquals(StatusWord.AL_PR0 | StatusWord.AL_OTH | StatusWord.ER_OTH | StatusWord.UN_OTH, w.bits());
        assertEquals(27, w.bits());
        assertEquals("AL_PR0+AL_OTH+ER_OTH+UN_OTH", w.name());
        assertEquals(List.of(StatusWord.Kind.ERROR, StatusWord.Kind.UNDEFINED, StatusWord.Kind.ALARM, StatusWord.Kind.ALARM),
                w.reasons().stream().map(StatusWord.Reason::kind).toList());
    }

    @Test
    void finalizedAndJoiningRanksAreOk() {
        StatusWord w = job(notRead(1, ProcessState.FINALIZED, "finalized MPI, then exited", false),
                notRead(2, ProcessState.JOINING, "agent up, MPI not initialised", true)).status();
        assertEquals(StatusWord.OK, w.bits(), w.reasons().toString());
    }

    @Test
    void manyRanksWithTheSameObservationAreOneRangeInTheShortLine() {
        List<RankStatus> ranks = new ArrayList<>();
        for (int r = 0; r < 64; r++) {
            ranks.add(r == 2 ? notRead(r, ProcessState.OK, "answered", true)
                    : notRead(r, ProcessState.FAILED, "process gone before MPI_Finalize", false));
        }
        StatusWord w = StatusWord.of(ranks, List.of());
        assertEquals("ranks 0 1 3-63 FAILED", w.because());
        assertEquals(StatusWord.ER_PR0 | StatusWord.ER_OTH, w.bits());
    }

    @Test
    void anAddressWhoseRankIsNotKnownCountsAsAnotherRank() {
        StatusWord w = StatusWord.of(List.of(new RankStatus(-1, 0, 0, 0, null, "127.0.0.1:9", ProcessState.UNAVAILABLE,
                "did not answer", -1, null)), List.of());
        assertEquals(StatusWord.UN_OTH, w.bits());
        assertEquals("rank ? UNAVAILABLE (undefined)", w.because());
    }

    @Test
    void theTimelineRecordsEachChangeOfTheWordWithItsReasons() {
        Timeline t = new Timeline();
        List<RankStatus> ok = new ArrayList<>();
        for (int r = 0; r < 4; r++) ok.add(answered(r));
        FaultModel.build("j", T0, ok, Map.of(), null, t);
        List<RankStatus> failed = new ArrayList<>(ok);
        failed.set(2, notRead(2, ProcessState.FAILED, "process gone before MPI_Finalize", false));
        FaultModel.build("j", T0.plusSeconds(1), failed, Map.of(), null, t);
        FaultModel.build("j", T0.plusSeconds(2), failed, Map.of(), null, t); // unchanged: no new transition
        List<Transition> status = t.transitions().stream().filter(x -> x.subject().equals(Timeline.STATUS)).toList();
        assertEquals(2, status.size(), t.transitions().toString());
        assertEquals(null, status.get(0).from());
        assertEquals("OK", status.get(0).to());
        assertEquals("OK", status.get(1).from());
        assertEquals("ER_OTH", status.get(1).to());
        assertEquals("rank 2 FAILED", status.get(1).why());
    }

    @Test
    void fromRecordsAloneRanksGoneBeforeFinalizeAreErrorsAndOthersHostsUndefined() {
        List<JobRecord> records = List.of(record(0, "FINALIZED"), record(1, "INITIALIZED"), record(2, "INITIALIZED"),
                record(3, "INITIALIZED"));
        Map<Integer, Boolean> running = Map.of(0, false, 1, true, 2, false);
        StatusWord w = StatusWord.ofRecords(records, r -> running.get(r.rank()));
        assertEquals(StatusWord.ER_OTH | StatusWord.UN_OTH, w.bits(), w.reasons().toString());
        assertEquals("rank 2 FAILED; rank 3 UNAVAILABLE (undefined)", w.because());
    }

    @Test
    void anEndedJobKeepsTheMpiErrorsItsRanksShowedAndALaunchersExitCodeWithoutACause() {
        List<JobRecord> records = List.of(record(0, "FINALIZED"), record(1, "FINALIZED"));
        StatusWord clean = StatusWord.ofRecords(records, r -> false, Map.of(), 0);
        assertEquals(StatusWord.OK, clean.bits());
        StatusWord raised = StatusWord.ofRecords(records, r -> false,
                Map.of(0, snapshot(0, Snapshots.HEALTHY, List.of(error(0, "send", 6)), List.of())), 0);
        assertEquals(StatusWord.ER_PR0, raised.bits());
        StatusWord exit = StatusWord.ofRecords(records, r -> false, Map.of(), 3);
        assertEquals(StatusWord.ER_OTH, exit.bits());
        assertEquals("rank ? exit code 3", exit.because());
        // a rank in error already explains the launcher's code: no second reason
        assertEquals(1, StatusWord.ofRecords(List.of(record(0, "INITIALIZED")), r -> false, Map.of(), 1).reasons().size());
    }

    /** Rank {@code r} holding {@code leaked} datatypes whose wrappers were collected without free() and {@code orphans} freed communicators still held. */
    private static RankStatus holding(int r, int leaked, int orphans) {
        List<HandleInfo> hs = new ArrayList<>();
        for (int i = 0; i < leaked; i++) {
            hs.add(HandleInfo.builder(100 + i, HandleKind.DATATYPE).ownerRank(r).creatingCall("createContiguous")
                    .leaked(true).build());
        }
        for (int i = 0; i < orphans; i++) {
            hs.add(HandleInfo.builder(500 + i, HandleKind.COMMUNICATOR).ownerRank(r).creatingCall("split")
                    .state(Lifecycle.FREED).refCount(1).build());
        }
        return answered(r, snapshot(r, Snapshots.HEALTHY, List.of(), hs));
    }

    /** One round of four ranks through {@code t}, those given instead of plain answering ones. */
    private static JobModel round(Timeline t, int second, RankStatus... instead) {
        Map<Integer, RankStatus> byRank = new HashMap<>();
        for (int r = 0; r < 4; r++) byRank.put(r, answered(r));
        for (RankStatus x : instead) byRank.put(x.rank(), x);
        return FaultModel.build("j", T0.plusSeconds(second), new ArrayList<>(byRank.values()), Map.of(), null, t);
    }

    /** A timeline of a reader that looks again on purpose ({@code watch}, {@code status --interval}). */
    private static Timeline judging() {
        Timeline t = new Timeline();
        t.judgeGrowth();
        return t;
    }

    @Test
    void leakedHandlesThatGrowBetweenTwoLooksAreAnAlarmOnAnotherRank() {
        Timeline t = judging();
        JobModel first = round(t, 0, holding(1, 2, 0));
        assertEquals(StatusWord.OK, first.status().bits(), "one look: growth cannot be judged");
        JobModel second = round(t, 2, holding(1, 5, 0));
        StatusWord w = second.status();
        assertEquals(StatusWord.AL_OTH, w.bits(), w.reasons().toString());
        assertEquals("AL_OTH (2): rank 1 leaked handles grow", w.line());
        assertEquals("rank 1 leaked handles grow: 2 -> 5 in 2.0 s: wrappers collected without free(), MPI still holds them",
                w.reasons().get(0).full());
        assertEquals(StatusWord.Kind.ALARM, w.reasons().get(0).kind());
        // the timeline's transition says the same as the model's word
        Transition last = t.transitions().stream().filter(x -> x.subject().equals(Timeline.STATUS))
                .reduce((a, b) -> b).orElseThrow();
        assertEquals("OK", last.from());
        assertEquals("AL_OTH", last.to());
        assertEquals("rank 1 leaked handles grow", last.why());
    }

    @Test
    void orphansThatGrowOnRankZeroAreAnAlarmOnRankZero() {
        Timeline t = judging();
        round(t, 0, holding(0, 0, 1));
        StatusWord w = round(t, 1, holding(0, 0, 3)).status();
        assertEquals(StatusWord.AL_PR0, w.bits(), w.reasons().toString());
        assertEquals("rank 0 orphans grow: 1 -> 3 in 1.0 s: freed by the application, kept alive by MPI",
                w.reasons().get(0).full());
    }

    @Test
    void countsThatStayOrFallAreNoAlarmAndTheAlarmEndsWhenTheGrowthStops() {
        Timeline t = judging();
        round(t, 0, holding(1, 3, 2));
        assertEquals(StatusWord.AL_OTH, round(t, 1, holding(1, 4, 2)).status().bits());
        assertEquals(StatusWord.OK, round(t, 2, holding(1, 4, 2)).status().bits(), "the same counts");
        assertEquals(StatusWord.OK, round(t, 3, holding(1, 1, 0)).status().bits(), "fewer");
        List<String> words = t.transitions().stream().filter(x -> x.subject().equals(Timeline.STATUS))
                .map(Transition::to).toList();
        assertEquals(List.of("OK", "AL_OTH", "OK"), words);
    }

    @Test
    void aTimelineNotAskedToJudgeGrowthLeavesItOut() {
        // the Eclipse views and the demo look when something happens, not at an interval
        Timeline t = new Timeline();
        round(t, 0, holding(1, 0, 0));
        JobModel m = round(t, 1, holding(1, 5, 3));
        assertEquals(StatusWord.OK, m.status().bits(), m.status().line());
        assertEquals(List.of(), m.grown());
    }

    @Test
    void aRankThatDidNotAnswerInBetweenIsComparedWithItsLastAnswer() {
        Timeline t = judging();
        round(t, 0, holding(2, 1, 0));
        StatusWord late = round(t, 1, notRead(2, ProcessState.UNAVAILABLE, "is stopped (SIGSTOP?)", true)).status();
        assertEquals(StatusWord.AL_OTH, late.bits());
        assertEquals("rank 2 UNAVAILABLE (alive)", late.because(), "no count to compare while it does not answer");
        StatusWord back = round(t, 2, holding(2, 4, 0)).status();
        assertEquals("rank 2 leaked handles grow", back.because());
        assertTrue(back.reasons().get(0).detail().startsWith("1 -> 4 in 2.0 s"), back.reasons().get(0).detail());
    }

    @Test
    void growthIsJudgedPerIncarnationAndBothCountsOfSeveralRanksCombine() {
        StatusWord.Held before0 = new StatusWord.Held(0, 0, 0, 1, T0);
        StatusWord.Held before3 = new StatusWord.Held(3, 0, 2, 0, T0);
        StatusWord.Held replacement = new StatusWord.Held(3, 1, 9, 9, T0.plusSeconds(3)); // not seen before: not judged
        List<StatusWord.Reason> grown = StatusWord.grown(List.of(before0, before3),
                List.of(new StatusWord.Held(0, 0, 0, 2, T0.plusSeconds(3)), new StatusWord.Held(3, 0, 4, 1, T0.plusSeconds(3)),
                        replacement));
        StatusWord w = StatusWord.of(List.of(), List.of()).with(grown);
        assertEquals(StatusWord.AL_PR0 | StatusWord.AL_OTH, w.bits(), grown.toString());
        assertEquals("ranks 0 3 leaked handles grow; rank 3 orphans grow", w.because());
        // an error keeps its place before the alarms
        StatusWord both = StatusWord.of(List.of(notRead(2, ProcessState.FAILED, "process gone before MPI_Finalize", false)),
                List.of()).with(grown);
        assertEquals(StatusWord.ER_OTH | StatusWord.AL_PR0 | StatusWord.AL_OTH, both.bits());
        assertEquals("rank 2 FAILED", both.reasons().get(0).brief());
    }

    @Test
    void anEndedJobsWordCountsGrowthFromEachRanksFirstLookToItsLast() {
        List<JobRecord> records = List.of(record(0, "FINALIZED"), record(1, "FINALIZED"));
        ProcessSnapshot firstLook = holding(1, 0, 0).snapshot(), lastLook = holding(1, 30, 0).snapshot();
        StatusWord w = StatusWord.ofRecords(records, r -> false, Map.of(1, lastLook), 0)
                .with(StatusWord.grown(List.of(StatusWord.Held.of(1, 0, firstLook, T0)),
                        List.of(StatusWord.Held.of(1, 0, lastLook, T0.plusSeconds(6)))));
        assertEquals(StatusWord.AL_OTH, w.bits(), w.reasons().toString());
        assertEquals("rank 1 leaked handles grow", w.because());
    }

    private static JobRecord record(int rank, String mpiState) {
        return new JobRecord("j", rank, 4, 100 + rank, 99, "node1", "127.0.0.1:" + (4000 + rank), "openmpi", 0, T0, T0,
                mpiState, "0.1.0", Path.of("rank-" + rank + ".json"), null);
    }
}
