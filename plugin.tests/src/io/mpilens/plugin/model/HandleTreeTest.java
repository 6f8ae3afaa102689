package io.mpilens.plugin.model;

import io.mpilens.headless.ft.ProcessState;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.plugin.model.HandleTree.HandleRow;
import io.mpilens.plugin.model.HandleTree.KindNode;
import io.mpilens.plugin.model.HandleTree.RankNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HandleTreeTest {
    @Test
    void theTreeIsJobThenRankThenKindThenHandle() {
        HandleTree t = new HandleTree(Fixtures.tour());
        assertEquals(1, t.childCount(t));
        assertEquals(4, t.childCount(t.root()));
        RankNode r0 = (RankNode) t.child(t.root(), 0);
        assertEquals("rank 0  (pid 1000 on node-a)", HandleColumn.NAME.text(t, r0));
        assertEquals("0/4", HandleColumn.RANK_SIZE.text(t, r0));
        assertEquals(List.of(HandleKind.COMMUNICATOR, HandleKind.REQUEST), t.kinds(r0).stream().map(KindNode::kind).toList());
        KindNode comms = (KindNode) t.child(r0, 0);
        assertEquals("Communicators (2)", HandleColumn.NAME.text(t, comms));
        assertEquals("1 orphan", HandleColumn.STATE.text(t, comms));
        assertEquals(r0, t.parent(comms));
        assertNull(t.child(comms, 2), "past the end");
    }

    @Test
    void anOrphanReadsFreedWithItsHolderAndIsRedAndBold() {
        HandleInfo split = Fixtures.split(0);
        assertEquals("tour-split-0", HandleColumn.NAME.text(split));
        assertEquals("FREED (orphan)", HandleColumn.STATE.text(split));
        assertEquals("1 \u2190 #31", HandleColumn.REFS.text(split));
        assertEquals("0/2", HandleColumn.RANK_SIZE.text(split));
        assertEquals("0x5550", HandleColumn.C_HANDLE.text(split));
        assertEquals("HandleTour.main(HandleTour.java:46)", HandleColumn.CREATED_AT.text(split));
        assertEquals(Rgb.hex(0xc62828), StatePalette.foreground(split));
        assertTrue(StatePalette.emphasised(split));
        assertNull(StatePalette.foreground(Fixtures.world(0)), "active handles keep the default colour");
        assertEquals("ACTIVE (predefined)", HandleColumn.STATE.text(Fixtures.world(0)));
    }

    @Test
    void anUnnamedHandleIsNamedByItsCreatingCall() {
        assertEquals("iRecv #31", HandleColumn.NAME.text(Fixtures.recv(1)));
        assertEquals("", HandleColumn.RANK_SIZE.text(Fixtures.recv(1)));
    }

    @Test
    void nodesOfARefreshedTreeEqualTheOldOnesSoExpansionSurvives() {
        HandleTree before = new HandleTree(Fixtures.tour());
        HandleTree after = new HandleTree(Fixtures.tour(ProcessState.OK, ProcessState.FAILED));
        RankNode r1 = (RankNode) before.child(before.root(), 1);
        assertEquals(r1, after.child(after.root(), 1));
        KindNode k = (KindNode) before.child(r1, 0);
        assertEquals(before.child(k, 1), after.child(after.child(after.child(after.root(), 1), 0), 1));
        assertEquals("FAILED", HandleColumn.STATE.text(after, r1));
    }

    @Test
    void aHundredThousandRequestsAreIndexedOnceAndServedByIndex() {
        List<HandleInfo> many = new ArrayList<>();
        for (int i = 1; i <= 100_000; i++) {
            many.add(HandleInfo.builder(i, HandleKind.REQUEST).ownerRank(0).creatingCall("iSend").build());
        }
        JobView job = new JobView("big", List.of(new RankView("t", Fixtures.rank(0, "h", many), ProcessState.OK, true, null)));
        long t0 = System.nanoTime();
        HandleTree t = new HandleTree(job);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        KindNode requests = (KindNode) t.child(t.child(t.root(), 0), 0);
        assertEquals(100_000, t.childCount(requests));
        assertEquals("iSend #100000", HandleColumn.NAME.text(t, t.child(requests, 99_999)));
        assertEquals(requests, ((HandleRow) t.child(requests, 5)).parent());
        assertTrue(millis < 2_000, "indexing 100k handles took " + millis + " ms");
        assertEquals("OK (suspended)", HandleColumn.STATE.text(t, t.child(t.root(), 0)));
    }
}
