package io.mpilens.plugin.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.plugin.model.HandleFilter.LifecycleChoice;
import io.mpilens.plugin.model.HandleTree.HandleRow;
import io.mpilens.plugin.model.HandleTree.KindNode;
import io.mpilens.plugin.model.HandleTree.RankNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HandleFilterTest {
    private static List<String> names(HandleTree t) {
        List<String> out = new ArrayList<>();
        for (RankNode r : t.ranks()) {
            for (KindNode k : t.kinds(r)) {
                for (HandleRow h : t.rows(k)) out.add("r" + r.rank() + " " + HandleColumn.displayName(h.handle()));
            }
        }
        return out;
    }

    @Test
    void onlyOrphansShowsExactlyTheFreedHandlesAndDropsEmptyKinds() {
        HandleTree t = new HandleTree(Fixtures.tour(), new HandleFilter(null, LifecycleChoice.ORPHANS, ""));
        assertEquals(List.of("r0 tour-split-0", "r1 tour-split-1", "r2 tour-split-0", "r3 tour-split-1"), names(t));
        assertEquals(List.of(HandleKind.COMMUNICATOR), t.kinds(t.ranks().get(0)).stream().map(KindNode::kind).toList());
        assertEquals(4, t.shownCount());
        assertEquals("only orphans", t.filter().describe());
    }

    @Test
    void aKindFilterShowsOnlyThatKind() {
        HandleTree t = new HandleTree(Fixtures.tour(), new HandleFilter(HandleKind.REQUEST, LifecycleChoice.ALL, ""));
        assertEquals(List.of("r0 iRecv #31", "r1 iRecv #31", "r2 iRecv #31", "r3 iRecv #31"), names(t));
    }

    @Test
    void theTextFilterMatchesNameCallSiteOrIdIgnoringCase() {
        assertEquals(4, new HandleTree(Fixtures.tour(), new HandleFilter(null, null, "SPLIT")).shownCount());
        assertEquals(4, new HandleTree(Fixtures.tour(), new HandleFilter(null, null, "handletour.java:66")).shownCount());
        assertEquals(4, new HandleTree(Fixtures.tour(), new HandleFilter(null, null, "#31")).shownCount());
        assertEquals(0, new HandleTree(Fixtures.tour(), new HandleFilter(null, LifecycleChoice.LEAKED, "")).shownCount());
    }

    /** A request of the agent's ring is typed as the views show it (r2, #r2) or as JSON has it. */
    @Test
    void aRequestOfTheRingIsFoundByItsShortIdOrItsFullId() {
        HandleInfo ring = HandleInfo.builder(HandleIds.RING_BASE + 2, HandleKind.REQUEST).ownerRank(0).creatingCall("iRecv")
                .build();
        HandleInfo table = HandleInfo.builder(2, HandleKind.REQUEST).ownerRank(0).creatingCall("iRecv").build();
        assertEquals("iRecv #r2", HandleColumn.displayName(ring));
        assertEquals("iRecv #2", HandleColumn.displayName(table));
        for (String typed : List.of("r2", "#r2", "#R2", " r2 ", "1099511627778")) {
            assertTrue(new HandleFilter(null, null, typed).accepts(ring), typed);
            assertFalse(new HandleFilter(null, null, typed).accepts(table), typed);
        }
        assertTrue(new HandleFilter(null, null, "#2").accepts(table));
        assertFalse(new HandleFilter(null, null, "#2").accepts(ring));
        // a bare number is still text to search for, as before: it does not name MPI_COMM_WORLD, #1 does
        HandleInfo world = HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(0).name("MPI_COMM_WORLD").build();
        assertFalse(new HandleFilter(null, null, "1").accepts(world));
        assertTrue(new HandleFilter(null, null, "#1").accepts(world));
    }

    @Test
    void noFilterShowsEverythingAndDescribesNothing() {
        assertTrue(HandleFilter.ALL.isAll());
        assertEquals("", HandleFilter.ALL.describe());
        assertEquals(12, new HandleTree(Fixtures.tour(), HandleFilter.ALL).shownCount());
        assertEquals("only orphans, kind COMMUNICATOR, text \"tour\"",
                new HandleFilter(HandleKind.COMMUNICATOR, LifecycleChoice.ORPHANS, " Tour ").describe());
    }

    @Test
    void showHoldersFindsThePendingReceiveThatKeepsTheOrphanAlive() {
        HandleTree t = new HandleTree(Fixtures.tour());
        RankNode r1 = t.ranks().get(1);
        HandleRow split = t.row(r1, 22);
        List<HandleRow> holders = t.holders(split);
        assertEquals(1, holders.size());
        assertEquals("iRecv #31", HandleColumn.displayName(holders.get(0).handle()));
        assertEquals(r1, holders.get(0).parent().owner(), "holders are in the orphan's own rank");
        assertEquals(List.of(t.root(), r1, holders.get(0).parent(), holders.get(0)), t.path(holders.get(0)));
    }

    @Test
    void aHolderHiddenByTheFilterIsNotSelected() {
        HandleTree t = new HandleTree(Fixtures.tour(), new HandleFilter(null, LifecycleChoice.ORPHANS, ""));
        assertEquals(List.of(), t.holders(t.row(t.ranks().get(0), 22)));
    }
}
