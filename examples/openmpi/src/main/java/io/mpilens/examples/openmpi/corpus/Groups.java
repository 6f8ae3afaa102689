package io.mpilens.examples.openmpi.corpus;

import static io.mpilens.examples.openmpi.corpus.Corpus.say;

import java.util.Arrays;
import mpi.Group;
import mpi.MPI;

/** Group constructors, including every way to an empty group, and MPI_GROUP_EMPTY itself. */
public final class Groups {
    private Groups() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Group world = MPI.COMM_WORLD.getGroup();
            say("GROUP_EMPTY", MPI.GROUP_EMPTY.getSize(), MPI.GROUP_EMPTY.getRank() == MPI.UNDEFINED);
            Group evens = world.incl(new int[] {0, 2});
            Group odds = world.excl(new int[] {0, 2});
            Group none = world.incl(new int[0]);
            Group all = world.excl(new int[0]);
            Group firstHalf = world.rangeIncl(new int[][] {{0, size / 2 - 1, 1}});
            Group secondHalf = world.rangeExcl(new int[][] {{0, size / 2 - 1, 1}});
            Group union = Group.union(evens, odds);
            Group inter = Group.intersection(evens, odds);
            Group diff = Group.difference(evens, world);
            Group diffEmpty = Group.difference(MPI.GROUP_EMPTY, evens);
            Group unionEmpty = Group.union(MPI.GROUP_EMPTY, MPI.GROUP_EMPTY);
            Group[] made = {evens, odds, none, all, firstHalf, secondHalf, union, inter, diff, diffEmpty, unionEmpty};
            StringBuilder sizes = new StringBuilder();
            for (Group g : made) sizes.append(g.getSize()).append(' ');
            say("sizes", sizes.toString().trim());
            say("rank in evens", evens.getRank() == MPI.UNDEFINED ? "undefined" : evens.getRank());
            say("translate", Arrays.toString(Group.translateRanks(evens, new int[] {0, 1}, world)));
            say("compare", Group.compare(union, world) == MPI.IDENT || Group.compare(union, world) == MPI.SIMILAR,
                    Group.compare(none, MPI.GROUP_EMPTY) == MPI.IDENT);
            Group fromComm = MPI.COMM_SELF.getGroup();
            say("self group", fromComm.getSize());
            for (Group g : made) g.free();
            fromComm.free();
            world.free();
            say("done");
        });
    }
}
