package io.mpilens.api.model;

import java.util.Arrays;

/**
 * The members of a communicator or group as COMM_WORLD ranks, in their order: immutable, so one
 * instance can be shared by every {@link HandleInfo} that has the same list (every rank's view of
 * {@code MPI_COMM_WORLD} and its dups lists all ranks of the job: copying that list per rank made
 * the front end's merge of many ranks quadratic). Its hash is computed once.
 */
public final class MemberList implements Comparable<MemberList> {
    public static final MemberList EMPTY = new MemberList(new int[0]);

    private final int[] ranks;
    private final int hash;

    private MemberList(int[] ranks) {
        this.ranks = ranks;
        this.hash = Arrays.hashCode(ranks);
    }

    /** A list of these ranks (copied: the array stays the caller's). */
    public static MemberList of(int... ranks) {
        return ranks.length == 0 ? EMPTY : new MemberList(ranks.clone());
    }

    public int size() {
        return ranks.length;
    }

    public boolean isEmpty() {
        return ranks.length == 0;
    }

    /** The {@code i}-th member (its rank in the communicator is {@code i}). */
    public int get(int i) {
        return ranks[i];
    }

    /** Position of a COMM_WORLD rank in the list, -1 when it is not a member. */
    public int indexOf(int rank) {
        for (int i = 0; i < ranks.length; i++) if (ranks[i] == rank) return i;
        return -1;
    }

    public boolean contains(int rank) {
        return indexOf(rank) >= 0;
    }

    /** The members as a new array. */
    public int[] toArray() {
        return ranks.clone();
    }

    @Override
    public boolean equals(Object o) {
        if (o == this) return true;
        if (!(o instanceof MemberList)) return false;
        MemberList m = (MemberList) o;
        return m.hash == hash && Arrays.equals(m.ranks, ranks);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Lexicographic, as {@link Arrays#compare(int[], int[])}. */
    @Override
    public int compareTo(MemberList o) {
        return o == this ? 0 : Arrays.compare(ranks, o.ranks);
    }

    /** As a list of integers prints: {@code [0, 1, 2]}. */
    @Override
    public String toString() {
        return Arrays.toString(ranks);
    }
}
