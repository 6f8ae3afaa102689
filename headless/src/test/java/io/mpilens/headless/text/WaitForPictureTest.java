package io.mpilens.headless.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.WaitFor;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The wait-for picture of {@code calls --svg} (and of the Eclipse MPI Calls view) on models built
 * by hand: a box per rank, an arrow per "waits for", each coloured by the verdict {@code calls}
 * prints, the cycle thick, the ranks behind it dashed; the SVG is well-formed and carries the
 * model's values.
 */
class WaitForPictureTest {
    private static final String RED = "#c62828", GREEN = "#2e7d32", AMBER = "#f9a825";

    private static JobModel job(int n, Map<Integer, ProcessState> states, Map<Integer, Long> counters) {
        List<Integer> members = new ArrayList<>();
        Map<Integer, Long> ids = new HashMap<>();
        List<RankStatus> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            members.add(r);
            ids.put(r, 1L);
            ProcessSnapshot p = new ProcessSnapshot(r, n, 100 + r, "h", "openmpi", MpiState.INITIALIZED, 4,
                    new AgentHealth("t", 0, null, 0, true, counters.getOrDefault(r, -1L)), List.of(), List.of(), 0);
            ranks.add(new RankStatus(r, 0, 100 + r, 1, "h", "h:" + r, states.getOrDefault(r, ProcessState.OK), null, 1, p));
        }
        CommunicatorView world = new CommunicatorView("MPI_COMM_WORLD", "MPI_COMM_WORLD", members, CommState.OK, List.of(),
                List.of(), null, List.of(), members, List.of(), ids);
        return new JobModel("dl5", Instant.parse("2026-11-28T12:00:00Z"), ranks, List.of(world), List.of(), List.of());
    }

    private static InFlightCall recv(int rank, int peer) {
        return new InFlightCall(rank, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, peer, List.of(), false, null, false, 7);
    }

    private static InFlightCall barrier(int rank) {
        return new InFlightCall(rank, "main", "mpi.Intracomm.barrier", "MPI_COMM_WORLD", 1, -1, List.of(), false);
    }

    private static Set<Integer> all(int n) {
        Set<Integer> s = new HashSet<>();
        for (int r = 0; r < n; r++) s.add(r);
        return s;
    }

    /** The Deadlock example after two looks: 0 and 1 confirmed, 2 behind them in a barrier, 3 and 4 moved. */
    private static WaitForPicture confirmed() {
        List<InFlightCall> calls = List.of(recv(0, 1), recv(1, 0), barrier(2), recv(3, 4), recv(4, 3));
        WaitFor.Analysis first = WaitFor.of(job(5, Map.of(), Map.of(0, 5L, 1, 5L, 2, 9L, 3, 100L, 4, 100L)), calls, all(5));
        JobModel m = job(5, Map.of(), Map.of(0, 5L, 1, 5L, 2, 9L, 3, 900L, 4, 901L));
        WaitFor.Analysis second = WaitFor.of(m, calls, all(5));
        return WaitForPicture.of(m, calls, second, WaitFor.compare(first, second, 2.0), FaultBoxes.CONFIRM_HINT);
    }

    private static WaitForPicture.Arrow arrow(WaitForPicture p, int from, int to) {
        return p.arrows().stream().filter(a -> a.from() == from && a.to() == to).findFirst()
                .orElseThrow(() -> new AssertionError("no arrow " + from + " -> " + to + " in " + p.arrows()));
    }

    private static WaitForPicture.Box box(WaitForPicture p, int rank) {
        return p.boxes().stream().filter(b -> b.rank() == rank).findFirst().orElseThrow();
    }

    @Test
    void aConfirmedDeadlockIsRedTheRankBehindItDashedAndTheBusyPairGreen() {
        WaitForPicture p = confirmed();
        assertEquals(List.of(0, 1, 2, 3, 4), p.boxes().stream().map(WaitForPicture.Box::rank).toList());
        for (int r : new int[] {0, 1}) {
            assertEquals(WaitFor.Verdict.DEADLOCK, box(p, r).verdict());
            assertEquals(RED, box(p, r).stroke());
            assertEquals("DEADLOCK", box(p, r).detail());
        }
        assertEquals(WaitFor.Verdict.BEHIND_DEADLOCK, box(p, 2).verdict());
        assertTrue(box(p, 2).dashed());
        assertEquals("stuck behind", box(p, 2).detail());
        for (int r : new int[] {3, 4}) assertEquals(GREEN, box(p, r).stroke());

        WaitForPicture.Arrow zeroToOne = arrow(p, 0, 1), oneToZero = arrow(p, 1, 0);
        for (WaitForPicture.Arrow a : List.of(zeroToOne, oneToZero)) {
            assertTrue(a.cycle(), a.toString());
            assertEquals(RED, a.colour());
            assertEquals(3, a.strokeWidth());
        }
        assertEquals("recv on MPI_COMM_WORLD peer 1 tag 7", zeroToOne.label());
        assertEquals("recv on MPI_COMM_WORLD peer 0 tag 7", oneToZero.label());
        for (int to : new int[] {0, 1}) {
            WaitForPicture.Arrow behind = arrow(p, 2, to);
            assertFalse(behind.cycle());
            assertTrue(behind.dashed());
            assertEquals(RED, behind.colour());
            assertEquals("barrier on MPI_COMM_WORLD", behind.label());
        }
        // a rank's call is written on one of its arrows
        assertTrue(arrow(p, 2, 0).labelShown() != arrow(p, 2, 1).labelShown(), p.arrows().toString());
        assertTrue(arrow(p, 0, 1).labelShown() && arrow(p, 1, 0).labelShown());
        assertEquals(GREEN, arrow(p, 3, 4).colour());
        assertFalse(arrow(p, 3, 4).cycle());
        // rank 2's barrier waits for 3 and 4 too at this look, but they moved: drawn as calls says it, waiting for 0 1
        assertEquals(List.of("0->1", "1->0", "2->0", "2->1", "3->4", "4->3"),
                p.arrows().stream().map(a -> a.from() + "->" + a.to()).sorted().toList());
        // under the ranks: the verdicts as calls prints them, each headline in its verdict's colour
        List<String> lines = p.texts().stream().map(WaitForPicture.Text::text).toList();
        assertEquals("calls  job dl5  5 ranks  2026-11-28T12:00:00Z", lines.get(0));
        assertTrue(lines.contains("DEADLOCK: ranks 0 1 wait for each other; no blocking call returned in 2.0 s"), lines.toString());
        WaitForPicture.Text progress = p.texts().stream().filter(t -> t.text().startsWith("not deadlocked: ")).findFirst()
                .orElseThrow();
        assertEquals("not deadlocked: ranks 3 4 looked stuck, but there was progress within 2.0 s", progress.text());
        assertEquals(GREEN, progress.colour());
        assertEquals(List.of("DEADLOCK: nothing moved between two looks", "stuck behind the deadlock",
                "not deadlocked: progress in between"), p.legend().stream().map(WaitForPicture.LegendEntry::label).toList());
    }

    @Test
    void oneLookOnlySaysPossibleInItsOwnColour() {
        List<InFlightCall> calls = List.of(recv(0, 1), recv(1, 0), barrier(2));
        JobModel m = job(3, Map.of(), Map.of());
        WaitFor.Analysis a = WaitFor.of(m, calls, all(3));
        WaitForPicture p = WaitForPicture.of(m, calls, a, WaitFor.Looks.ONE, FaultBoxes.CONFIRM_HINT);
        assertEquals(WaitFor.Verdict.POSSIBLE, box(p, 0).verdict());
        assertEquals(AMBER, arrow(p, 0, 1).colour());
        assertTrue(arrow(p, 0, 1).cycle());
        assertEquals(WaitFor.Verdict.BEHIND_POSSIBLE, box(p, 2).verdict());
        assertTrue(p.texts().stream().anyMatch(t -> t.text().startsWith("possible deadlock (one look): ranks 0 1")
                && t.colour().equals(AMBER)), p.texts().toString());
        assertTrue(p.texts().stream().noneMatch(t -> t.text().contains("DEADLOCK")), p.texts().toString());
    }

    @Test
    void aFailedRankIsDrawnInItsStateAndTheRanksWaitingForItAsNeverCompleting() {
        List<InFlightCall> calls = List.of(new InFlightCall(0, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, 2, List.of(2),
                true), barrier(1));
        JobModel m = job(3, Map.of(2, ProcessState.FAILED), Map.of());
        WaitFor.Analysis a = WaitFor.of(m, calls, all(3));
        WaitForPicture p = WaitForPicture.of(m, calls, a, WaitFor.Looks.ONE, FaultBoxes.CONFIRM_HINT);
        assertEquals(FaultSvg.colour(ProcessState.FAILED), box(p, 2).stroke());
        assertEquals("FAILED", box(p, 2).detail());
        assertEquals(WaitFor.Verdict.NEVER_COMPLETES, box(p, 0).verdict());
        assertEquals(WaitForPicture.colour(WaitFor.Verdict.NEVER_COMPLETES), arrow(p, 0, 2).colour());
    }

    @Test
    void aRankWaitingForItselfGetsALoop() {
        List<InFlightCall> calls = List.of(recv(0, 0));
        JobModel m = job(2, Map.of(), Map.of());
        WaitForPicture p = WaitForPicture.of(m, calls, WaitFor.of(m, calls, all(2)), WaitFor.Looks.ONE, "");
        WaitForPicture.Arrow loop = arrow(p, 0, 0);
        WaitForPicture.Box b = box(p, 0);
        // it leaves and comes back through the top edge
        assertTrue(loop.path().stream().allMatch(pt -> pt.y() <= b.y() + 1), loop.path().toString());
        assertTrue(Math.abs(loop.head().get(0).y() - b.y()) < 3, loop.head().toString());
    }

    /** Arrows run from box edge to box edge, boxes never overlap, everything is inside the picture. */
    @Test
    void theGeometryHoldsFromFiveToSixtyFourRanks() {
        for (int n : new int[] {2, 5, 16, 17, 64}) {
            List<InFlightCall> calls = new ArrayList<>();
            calls.add(recv(0, 1));
            calls.add(recv(1, 0));
            for (int r = 2; r < n; r++) calls.add(barrier(r));
            JobModel m = job(n, Map.of(), Map.of());
            WaitForPicture p = WaitForPicture.of(m, calls, WaitFor.of(m, calls, all(n)), WaitFor.Looks.ONE, "");
            assertEquals(n, p.boxes().size());
            for (WaitForPicture.Box a : p.boxes()) {
                assertTrue(a.x() >= 0 && a.y() >= 0 && a.x() + a.w() <= p.width() && a.y() + a.h() <= p.height(), n + ": " + a);
                for (WaitForPicture.Box b : p.boxes()) {
                    if (a == b) continue;
                    boolean apart = a.x() + a.w() <= b.x() || b.x() + b.w() <= a.x() || a.y() + a.h() <= b.y()
                            || b.y() + b.h() <= a.y();
                    assertTrue(apart, n + " ranks: " + a + " overlaps " + b);
                }
            }
            assertEquals(2 + 2 * (n - 2), p.arrows().size(), n + " ranks");
            for (WaitForPicture.Arrow ar : p.arrows()) {
                WaitForPicture.Box from = box(p, ar.from()), to = box(p, ar.to());
                WaitForPicture.Point start = ar.path().get(0), tip = ar.head().get(0);
                assertFalse(from.contains(start.x(), start.y()), n + ": " + ar.from() + "->" + ar.to() + " starts inside");
                assertFalse(to.contains(tip.x(), tip.y()), n + ": " + ar.from() + "->" + ar.to() + " ends inside");
                double gap = Math.max(Math.max(to.x() - tip.x(), tip.x() - to.x() - to.w()),
                        Math.max(to.y() - tip.y(), tip.y() - to.y() - to.h()));
                assertTrue(gap <= 10, n + ": " + ar.from() + "->" + ar.to() + " ends " + gap + " px from its box");
                for (WaitForPicture.Point pt : ar.path()) {
                    assertTrue(pt.x() >= 0 && pt.y() >= 0 && pt.x() <= p.width() && pt.y() <= p.height(), n + ": " + pt);
                }
            }
        }
    }

    /**
     * Pictures of hand-built models into {@code target/pictures/} to look at (and as PNG where
     * rsvg-convert is installed, scripts/setup-env): each well-formed, with a box per rank.
     */
    @Test
    void picturesToLookAt() throws Exception {
        List<InFlightCall> failedCalls = List.of(new InFlightCall(0, "main", "mpi.Comm.recv", "MPI_COMM_WORLD", 1, 2,
                List.of(2), true, null, false, 11), barrier(1), barrier(3));
        JobModel failed = job(4, Map.of(2, ProcessState.FAILED), Map.of());
        List<InFlightCall> big = new ArrayList<>(List.of(recv(0, 1), recv(1, 0)));
        for (int r = 2; r < 24; r++) big.add(barrier(r));
        JobModel large = job(24, Map.of(), Map.of());
        List<InFlightCall> self = List.of(recv(0, 0), recv(1, 2), recv(2, 1));
        JobModel three = job(3, Map.of(), Map.of());
        Map<String, WaitForPicture> pictures = Map.of(
                "confirmed", confirmed(),
                "failed", WaitForPicture.of(failed, failedCalls, WaitFor.of(failed, failedCalls, all(4)), WaitFor.Looks.ONE,
                        FaultBoxes.CONFIRM_HINT),
                "24-ranks", WaitForPicture.of(large, big, WaitFor.of(large, big, all(24)), WaitFor.Looks.ONE,
                        FaultBoxes.CONFIRM_HINT),
                "self", WaitForPicture.of(three, self, WaitFor.of(three, self, all(3)), WaitFor.Looks.ONE,
                        FaultBoxes.CONFIRM_HINT));
        java.nio.file.Path dir = java.nio.file.Files.createDirectories(java.nio.file.Path.of("target", "pictures"));
        boolean rsvg = java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(d -> java.nio.file.Files.isExecutable(java.nio.file.Path.of(d, "rsvg-convert")));
        for (Map.Entry<String, WaitForPicture> e : pictures.entrySet()) {
            String svg = WaitForSvg.svg(e.getValue());
            Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
            assertEquals(e.getValue().boxes().size(), count(d, "rank"), e.getKey());
            assertEquals(e.getValue().arrows().size(), count(d, "wait"), e.getKey());
            java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("calls-" + e.getKey() + ".svg"), svg);
            if (rsvg) {
                Process p = new ProcessBuilder("rsvg-convert", "-o", dir.resolve("calls-" + e.getKey() + ".png").toString(),
                        file.toString()).redirectErrorStream(true).start();
                assertEquals(0, p.waitFor(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        }
    }

    private static int count(Document d, String cls) {
        NodeList gs = d.getElementsByTagName("g");
        int n = 0;
        for (int i = 0; i < gs.getLength(); i++) if (((Element) gs.item(i)).getAttribute("class").equals(cls)) n++;
        return n;
    }

    @Test
    void theSvgIsWellFormedAndCarriesEachRankAndArrow() throws Exception {
        String svg = WaitForSvg.svg(confirmed());
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", d.getDocumentElement().getTagName());
        List<Element> ranks = new ArrayList<>(), waits = new ArrayList<>();
        NodeList gs = d.getElementsByTagName("g");
        for (int i = 0; i < gs.getLength(); i++) {
            Element g = (Element) gs.item(i);
            if (g.getAttribute("class").equals("rank")) ranks.add(g);
            if (g.getAttribute("class").equals("wait")) waits.add(g);
        }
        assertEquals(List.of("0", "1", "2", "3", "4"), ranks.stream().map(g -> g.getAttribute("data-rank")).toList());
        assertEquals("DEADLOCK", ranks.get(0).getAttribute("data-verdict"));
        assertEquals("OK", ranks.get(0).getAttribute("data-state"));
        Element cycle = waits.stream().filter(g -> g.getAttribute("data-from").equals("0") && g.getAttribute("data-to").equals("1"))
                .findFirst().orElseThrow();
        assertEquals("true", cycle.getAttribute("data-cycle"));
        assertEquals(RED, ((Element) cycle.getElementsByTagName("polyline").item(0)).getAttribute("stroke"));
        assertEquals("recv on MPI_COMM_WORLD peer 1 tag 7", cycle.getElementsByTagName("text").item(0).getTextContent());
    }
}
