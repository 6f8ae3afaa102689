package io.mpilens.plugin.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
