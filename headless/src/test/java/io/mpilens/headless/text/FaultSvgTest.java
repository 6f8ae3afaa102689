package io.mpilens.headless.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.HostState;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code --svg}: a well-formed SVG document (parsed with the JDK's XML parser) with one box per
 * communicator or host, one cell per process whose colour is the legend's colour of its state.
 */
class FaultSvgTest {
    private static RankStatus rank(int r, ProcessState s) {
        return new RankStatus(r, 0, 100 + r, 99, "node<1>", "a", s, "why & how", 3, null);
    }

    /** Rank 2 failed, rank 3 unavailable; COMM_WORLD recovered by "survivors & co" of 0, 1, 3. */
    private static JobModel model() {
        List<RankStatus> ranks = List.of(rank(0, ProcessState.OK), rank(1, ProcessState.OK),
                rank(2, ProcessState.FAILED), rank(3, ProcessState.UNAVAILABLE));
        CommunicatorView world = new CommunicatorView("MPI_COMM_WORLD", "MPI_COMM_WORLD", List.of(0, 1, 2, 3),
                CommState.RECOVERED, List.of(2), List.of(3), null, List.of("k2"), List.of(0, 1), List.of());
        CommunicatorView survivors = new CommunicatorView("k2", "survivors & co", List.of(0, 1, 3), CommState.OK,
                List.of(), List.of(3), "MPI_COMM_WORLD", List.of(), List.of(0, 1), List.of());
        HostView host = new HostView("node<1>", HostState.PARTIAL, ranks, List.of(new HostView.Daemon(99, "orterun", true)));
        return new JobModel("j\"1", Instant.EPOCH, ranks, List.of(world, survivors), List.of(host), List.of(),
                List.of(new PendingOnFailedPeer(0, 7, "iRecv", 2, 11, "MPI_COMM_WORLD", "MPI_COMM_WORLD")));
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> groups(Document d, String cls) {
        List<Element> out = new ArrayList<>();
        NodeList gs = d.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
        for (int i = 0; i < gs.getLength(); i++) {
            Element g = (Element) gs.item(i);
            if (g.getAttribute("class").equals(cls)) out.add(g);
        }
        return out;
    }

    private static Element first(Element e, String tag) {
        return (Element) e.getElementsByTagNameNS("http://www.w3.org/2000/svg", tag).item(0);
    }

    /** The legend's colour per state, read from the picture itself. */
    private static Map<String, String> legend(Document d, String kind, String attribute) {
        Map<String, String> out = new HashMap<>();
        for (Element e : groups(d, "legend-entry")) {
            if (e.getAttribute("data-kind").equals(kind)) out.put(e.getAttribute("data-state"), first(e, "rect").getAttribute(attribute));
        }
        return out;
    }

    @Test
    void cominfoDrawsEachCommunicatorWithItsMembersInTheLegendsColours() throws Exception {
        JobModel m = model();
        Document d = parse(FaultSvg.cominfo(m));
        assertEquals("svg", d.getDocumentElement().getLocalName());
        Map<String, String> processColours = legend(d, "process", "fill");
        Map<String, String> boxColours = legend(d, "box", "stroke");
        assertEquals(ProcessState.values().length, new HashSet<>(processColours.values()).size(), "one colour per process state");
        assertEquals(CommState.values().length, new HashSet<>(boxColours.values()).size(), "one colour per communicator state");

        List<Element> boxes = groups(d, "communicator");
        assertEquals(2, boxes.size());
        for (int i = 0; i < boxes.size(); i++) {
            CommunicatorView c = m.communicators().get(i);
            Element box = boxes.get(i);
            assertEquals(c.label(), box.getAttribute("data-label"));
            assertEquals(c.label(), first(box, "text").getTextContent());
            assertEquals(c.state().name(), box.getAttribute("data-state"));
            assertEquals(boxColours.get(c.state().name()), first(box, "rect").getAttribute("stroke"));
            List<Element> cells = new ArrayList<>();
            NodeList gs = box.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
            for (int k = 0; k < gs.getLength(); k++) cells.add((Element) gs.item(k));
            assertEquals(c.members().size(), cells.size());
            for (int k = 0; k < cells.size(); k++) {
                int r = c.members().get(k);
                ProcessState s = m.rank(r).orElseThrow().state();
                assertEquals(Integer.toString(r), cells.get(k).getAttribute("data-rank"));
                assertEquals(s.name(), cells.get(k).getAttribute("data-state"));
                assertEquals(processColours.get(s.name()), first(cells.get(k), "rect").getAttribute("fill"), "rank " + r);
            }
        }
        assertEquals("MPI_COMM_WORLD", boxes.get(1).getAttribute("data-parent"), "lineage");
        assertTrue(boxes.get(0).getTextContent().contains("rebuilt as survivors & co"), boxes.get(0).getTextContent());
        assertTrue(boxes.get(0).getTextContent().contains("1 request pending on a FAILED peer"), boxes.get(0).getTextContent());
        assertNotEquals(processColours.get("OK"), processColours.get("FAILED"));
    }

    @Test
    void hostinfoDrawsEachHostWithItsRanksAndDaemons() throws Exception {
        JobModel m = model();
        Document d = parse(FaultSvg.hostinfo(m));
        Map<String, String> processColours = legend(d, "process", "fill");
        Map<String, String> hostColours = legend(d, "box", "stroke");
        assertEquals(HostState.values().length, hostColours.size());
        List<Element> hosts = groups(d, "host");
        assertEquals(1, hosts.size());
        assertEquals("node<1>", hosts.get(0).getAttribute("data-label"));
        assertEquals("PARTIAL", hosts.get(0).getAttribute("data-state"));
        assertEquals(hostColours.get("PARTIAL"), first(hosts.get(0), "rect").getAttribute("stroke"));
        List<Element> ranks = groups(d, "rank");
        assertEquals(4, ranks.size());
        for (Element e : ranks) {
            ProcessState s = m.rank(Integer.parseInt(e.getAttribute("data-rank"))).orElseThrow().state();
            assertEquals(s.name(), e.getAttribute("data-state"));
            assertEquals(processColours.get(s.name()), first(e, "rect").getAttribute("fill"));
        }
        assertTrue(hosts.get(0).getTextContent().contains("daemon orterun pid 99"), hosts.get(0).getTextContent());
    }
}
