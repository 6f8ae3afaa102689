package io.mpilens.headless.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.FaultModel;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.Recovering;
import io.mpilens.headless.ft.Replacements;
import io.mpilens.headless.testing.RebuildJob;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * {@code cominfo --svg} of an FT-MPI REBUILD, over the model {@code headless.ft} builds
 * ({@link FaultModel#observed}, which lets {@link Replacements} place the spawned process): 4 ranks,
 * rank 2 dead, survivors 0 1 3 make "survivors", spawn one JVM (pid 500), merge with it and split
 * by old rank into "re<built> & co". The marks are read back from the parsed picture.
 */
class FaultSvgRebuildTest {
    private static final String SVG = "http://www.w3.org/2000/svg";
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
    private static final String REBUILT = "re<built> & co";

    private static ProcessSnapshot survivor(int r, boolean rebuilt) {
        return RebuildJob.survivor(r, rebuilt, REBUILT);
    }

    private static ProcessSnapshot child(boolean initialized) {
        return RebuildJob.child(initialized, REBUILT);
    }

    private static RankStatus status(int r, ProcessState s, long pid, ProcessSnapshot p) {
        return RebuildJob.status(r, s, pid, p);
    }

    /** @param child the spawned process's state, or null when none was spawned yet */
    private static JobModel model(boolean rebuilt, ProcessState child) {
        List<RankStatus> ranks = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        for (int r : new int[] {0, 1, 3}) {
            views.put(r, survivor(r, rebuilt));
            ranks.add(status(r, ProcessState.OK, 100 + r, views.get(r)));
        }
        ranks.add(status(2, ProcessState.FAILED, 102, null));
        List<Replacements.Spawned> spawned = child == null ? List.of()
                : List.of(new Replacements.Spawned(status(0, child, 500, child(child == ProcessState.OK)), "ns2"));
        return FaultModel.observed("j", T0, ranks, views, spawned, null, null, null);
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> children(Element e, String tag, String cls) {
        List<Element> out = new ArrayList<>();
        NodeList ns = e.getElementsByTagNameNS(SVG, tag);
        for (int i = 0; i < ns.getLength(); i++) {
            Element x = (Element) ns.item(i);
            if (cls == null || x.getAttribute("class").equals(cls)) out.add(x);
        }
        return out;
    }

    private static Element box(Document d, String label) {
        for (Element g : children(d.getDocumentElement(), "g", "communicator")) {
            if (g.getAttribute("data-label").equals(label)) return g;
        }
        throw new AssertionError("no box " + label);
    }

    private static Element cell(Element box, int rank) {
        for (Element g : children(box, "g", "member")) if (g.getAttribute("data-rank").equals(Integer.toString(rank))) return g;
        throw new AssertionError("no cell " + rank + " in " + box.getAttribute("data-label"));
    }

    /** The text of the cell's element {@code tag} of class {@code cls} (null: none). */
    private static String text(Element e, String tag, String cls) {
        List<Element> es = children(e, tag, cls);
        return es.isEmpty() ? null : es.get(0).getTextContent();
    }

    private static List<String> notes(Element box) {
        return children(box, "text", "note").stream().map(Node::getTextContent).toList();
    }

    @Test
    void aJoiningReplacementIsNamedInTheFailedMembersCell() throws Exception {
        JobModel m = model(false, ProcessState.JOINING);
        Element failed = cell(box(parse(FaultSvg.cominfo(m)), "MPI_COMM_WORLD"), 2);
        assertEquals("FAILED", failed.getAttribute("data-state"), "the member is the dead process");
        assertEquals("FAILED \u2192 epoch 1 JOINING", text(failed, "text", "detail"));
        assertEquals("1", failed.getAttribute("data-replaced-by-epoch"));
        assertEquals("500", failed.getAttribute("data-replaced-by-pid"));
        assertTrue(text(failed, "title", null).endsWith("replaced by pid 500, epoch 1 (JOINING)"), text(failed, "title", null));
        Element live = cell(box(parse(FaultSvg.cominfo(m)), "MPI_COMM_WORLD"), 1);
        assertEquals(null, text(live, "text", "detail"), "a live member has no second line");
        assertEquals("r1", text(live, "text", "name"));
    }

    @Test
    void theReplacementIsTheFailedRanksNextEpochInTheCommunicatorsBuiltWithIt() throws Exception {
        JobModel m = model(true, ProcessState.OK);
        String svg = FaultSvg.cominfo(m);
        assertTrue(svg.contains("2 \u2190 pid 500, epoch 1"), "the arrow as a character, not an entity");
        assertTrue(svg.contains("re&lt;built&gt; &amp; co"), "labels escaped");
        Document d = parse(svg);

        Element world = box(d, "MPI_COMM_WORLD");
        assertEquals("RECOVERED", world.getAttribute("data-state"));
        assertEquals("RECOVERED (rebuilt)", text(world, "text", "state"));
        Element failed = cell(world, 2);
        assertEquals("FAILED", failed.getAttribute("data-state"));
        assertEquals("r2", text(failed, "text", "name"));
        assertEquals("FAILED \u2192 epoch 1 OK", text(failed, "text", "detail"));
        List<String> notes = notes(world);
        assertTrue(notes.contains("rebuilt as survivors without the failed members"), notes.toString());
        String rebuiltWith = notes.stream().filter(n -> n.startsWith("rebuilt with replacements as ")).findFirst()
                .orElseThrow(() -> new AssertionError(notes.toString()));
        assertTrue(rebuiltWith.startsWith("rebuilt with replacements as merge(") && rebuiltWith.endsWith(", " + REBUILT),
                rebuiltWith);

        Element rebuilt = box(d, REBUILT);
        assertEquals("OK", rebuilt.getAttribute("data-state"));
        Element replacement = cell(rebuilt, 2);
        assertEquals("OK", replacement.getAttribute("data-state"));
        assertEquals("2 \u2190 pid 500, epoch 1", text(replacement, "text", "name"));
        assertEquals("1", replacement.getAttribute("data-epoch"));
        assertEquals("500", replacement.getAttribute("data-pid"));
        assertEquals(null, text(replacement, "text", "detail"));
        assertTrue(text(replacement, "title", null).startsWith("rank 2 epoch 1: OK \u2014 pid 500 on node1"),
                text(replacement, "title", null));
        assertEquals(List.of("r0", "r1", "2 \u2190 pid 500, epoch 1", "r3"),
                children(rebuilt, "text", "name").stream().map(Node::getTextContent).toList());
        // the replacement's cell is wide enough for its text, and the cells do not overlap
        List<Element> rects = children(rebuilt, "g", "member").stream().map(g -> children(g, "rect", null).get(0)).toList();
        int width = Integer.parseInt(rects.get(0).getAttribute("width"));
        assertTrue(width >= "2 \u2190 pid 500, epoch 1".length() * 7, "width " + width);
        for (int i = 1; i < rects.size(); i++) {
            int x0 = Integer.parseInt(rects.get(i - 1).getAttribute("x"));
            int x1 = Integer.parseInt(rects.get(i).getAttribute("x"));
            boolean sameRow = rects.get(i - 1).getAttribute("y").equals(rects.get(i).getAttribute("y"));
            assertTrue(!sameRow || x1 >= x0 + width, "cells " + (i - 1) + " and " + i + " overlap");
        }
        assertFalse(notes(rebuilt).stream().anyMatch(n -> n.startsWith("rebuilt")), "the rebuilt one is not itself rebuilt");
    }

    @Test
    void recoveringSaysWhoIsInsideWhichCall() throws Exception {
        JobModel shrunk = model(false, null);
        List<InFlightCall> calls = new ArrayList<>();
        for (int r : new int[] {0, 1, 3}) calls.add(new InFlightCall(r, "main", "mpi.Intracomm.spawn", "survivors", 9, -1, List.of(), false));
        JobModel m = Recovering.apply(shrunk, calls, null);
        Element world = box(parse(FaultSvg.cominfo(m)), "MPI_COMM_WORLD");
        assertEquals("RECOVERING", world.getAttribute("data-state"));
        assertEquals("RECOVERING", text(world, "text", "state"));
        List<String> notes = notes(world);
        assertTrue(notes.stream().anyMatch(n -> n.replaceAll(" +", " ").equals("inside ranks 0 1 3: spawn on survivors")),
                notes.toString());
        assertNotNull(cell(world, 2));
        assertEquals(null, text(cell(world, 2), "text", "detail"), "nothing replaced it yet");
    }
}
