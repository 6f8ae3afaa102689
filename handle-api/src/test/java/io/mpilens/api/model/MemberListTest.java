package io.mpilens.api.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A member list is immutable and shared by the handles that have it; the int[] API still hands out copies. */
class MemberListTest {
    @Test
    void aListIsItsRanksInOrderAndKeepsNoArrayOfTheCaller() {
        int[] ranks = {3, 1, 2};
        MemberList m = MemberList.of(ranks);
        ranks[0] = 99;
        assertEquals(3, m.size());
        assertEquals(3, m.get(0));
        assertEquals(2, m.indexOf(2));
        assertEquals(-1, m.indexOf(99));
        assertTrue(m.contains(1));
        assertArrayEquals(new int[] {3, 1, 2}, m.toArray());
        m.toArray()[0] = 7;
        assertEquals(3, m.get(0));
        assertEquals("[3, 1, 2]", m.toString());
        assertEquals(MemberList.of(3, 1, 2), m);
        assertEquals(MemberList.of(3, 1, 2).hashCode(), m.hashCode());
        assertNotEquals(MemberList.of(1, 2, 3), m);
        assertSame(MemberList.EMPTY, MemberList.of());
        assertTrue(MemberList.EMPTY.isEmpty());
        assertTrue(MemberList.of(0, 1).compareTo(MemberList.of(0, 2)) < 0);
        assertEquals(0, MemberList.of(0, 1).compareTo(MemberList.of(0, 1)));
    }

    @Test
    void handlesShareTheListTheyWereGivenAndCopyArrays() {
        MemberList world = MemberList.of(0, 1, 2, 3);
        HandleInfo a = HandleInfo.builder(1, HandleKind.COMMUNICATOR).members(world).remoteMembers(MemberList.of(4)).build();
        HandleInfo b = HandleInfo.builder(1, HandleKind.COMMUNICATOR).members(new int[] {0, 1, 2, 3}).remoteMembers(new int[] {4}).build();
        assertSame(world, a.memberList());
        assertSame(world, a.toBuilder().build().memberList());
        assertEquals(a, b);
        assertNotSame(a.members(), a.members());
        assertArrayEquals(new int[] {0, 1, 2, 3}, a.members());
        assertArrayEquals(new int[] {4}, b.remoteMembers());
        int[] given = {5, 6};
        HandleInfo.Builder c = HandleInfo.builder(2, HandleKind.GROUP).members(given);
        given[1] = 7; // the array is taken as it is at build, as it always was
        assertArrayEquals(new int[] {5, 7}, c.build().members());
        assertArrayEquals(new int[] {5, 7}, c.build().memberList().toArray());
        given[1] = 8;
        HandleInfo built = c.members(world).build();
        assertSame(world, built.memberList());
        assertFalse(built.memberList().contains(8));
        assertSame(MemberList.EMPTY, HandleInfo.builder(3, HandleKind.GROUP).build().memberList());
    }
}
