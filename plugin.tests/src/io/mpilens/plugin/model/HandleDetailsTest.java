package io.mpilens.plugin.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.TypeArgument;
import java.util.List;
import org.junit.jupiter.api.Test;

class HandleDetailsTest {
    @Test
    void anOrphanCommunicatorShowsItsLifecycleHoldersMembersLineageAndSite() {
        String text = HandleDetails.text(Fixtures.split(2));
        assertEquals(String.join("\n",
                "Name: tour-split-0",
                "Kind: COMMUNICATOR",
                "Id: #22",
                "State: FREED (orphan)",
                "Lifecycle: FREED",
                "Predefined: no",
                "Leaked: no",
                "Reference count: 1",
                "Held by: #31",
                "Owner rank: 2",
                "C handle: 0x5552",
                "Creating call: split",
                "Rank: 1",
                "Size: 2",
                "Members: [0, 2]",
                "Intercommunicator: no",
                "Derived from: #1",
                "Created at: " + Fixtures.SITE_SPLIT,
                ""), text);
    }

    /** A request of the agent's ring: its short id, and the full one that --json and the API carry. */
    @Test
    void aRequestOfTheRingShowsItsShortIdAndItsFullOne() {
        long id = HandleIds.RING_BASE + 2;
        HandleInfo recv = HandleInfo.builder(id, HandleKind.REQUEST).ownerRank(0).creatingCall("iRecv").communicator(22)
                .build();
        HandleInfo split = HandleInfo.builder(22, HandleKind.COMMUNICATOR).ownerRank(0).name("tour-split-0")
                .state(Lifecycle.FREED).refCount(1).heldBy(new long[] {id}).build();
        String text = HandleDetails.text(recv);
        assertTrue(text.contains("Name: iRecv #r2\n"), text);
        assertTrue(text.contains("Id: #r2  (ring request; id 1099511627778)\n"), text);
        assertTrue(HandleDetails.text(split).contains("Held by: #r2\n"), HandleDetails.text(split));
        assertEquals("1 \u2190 #r2", HandleColumn.REFS.text(split));
    }

    @Test
    void aPendingReceiveShowsItsPeerTagCommunicatorAndCompletion() {
        String text = HandleDetails.text(Fixtures.recv(0));
        assertTrue(text.contains("Name: iRecv #31\n"), text);
        assertTrue(text.contains("Peer: 0\nTag: 77\n"), text);
        assertTrue(text.contains("Communicator: #22\n"), text);
        assertTrue(text.contains("Request type: point-to-point\nPersistent: no\nComplete: no\n"), text);
        assertFalse(text.contains("Members"), "a request has no members");
    }

    @Test
    void aDerivedDatatypeShowsItsConstructorSizesParentsAndTheWholeCreationStack() {
        HandleInfo vector = HandleInfo.builder(40, HandleKind.DATATYPE).creatingCall("createVector").constructor("VECTOR")
                .committed(true).typeSize(96).extent(120).lowerBound(0).parents(new long[] {3}).state(Lifecycle.ACTIVE)
                .leaked(true).creationStack(List.of("a.B.make(B.java:10)", "a.B.main(B.java:3)")).build();
        String text = HandleDetails.text(vector);
        assertTrue(text.contains("State: ACTIVE (leaked)\n"), text);
        assertTrue(text.contains("Constructor: VECTOR\nCommitted: yes\nType size: 96\nExtent: 120\nLower bound: 0\nBuilt from: #3\n"), text);
        assertTrue(text.endsWith("Created at: a.B.make(B.java:10)\n  called from: a.B.main(B.java:3)\n"), text);
    }

    @Test
    void aStructShowsItsConstructorArgumentsAsTheApplicationPassedThem() {
        HandleInfo struct = HandleInfo.builder(41, HandleKind.DATATYPE).constructor("createStruct")
                .typeArguments(List.of(new TypeArgument(TypeArgument.Kind.INTS, new long[] {1, 2}, 2),
                        new TypeArgument(TypeArgument.Kind.INTS, new long[] {0, 8}, 2),
                        new TypeArgument(TypeArgument.Kind.TYPES, new long[] {3, 0}, 2)))
                .parents(new long[] {3}).build();
        String text = HandleDetails.text(struct);
        assertTrue(text.contains("Constructor: createStruct\nArguments: ([1, 2], [0, 8], [#3, (unregistered type)])\n"), text);
    }

    @Test
    void aPredefinedHandleSaysSoInsteadOfACreationSite() {
        String text = HandleDetails.text(Fixtures.world(0));
        assertTrue(text.contains("State: ACTIVE (predefined)\n"), text);
        assertTrue(text.contains("Members: [0, 1, 2, 3]\n"), text);
        assertTrue(text.endsWith("Created at: (predefined)\n"), text);
    }
}
