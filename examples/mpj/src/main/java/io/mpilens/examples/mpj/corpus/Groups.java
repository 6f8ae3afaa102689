package io.mpilens.examples.mpj.corpus;

import static io.mpilens.examples.mpj.corpus.Corpus.say;

import java.util.Arrays;
import mpi.Group;
import mpi.MPI;

/** Group constructors of MPJ Express, including empty results and MPI.GROUP_EMPTY. */
public final class Groups {
    private Groups() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Group world = MPI.COMM_WORLD.Group();
            say("GROUP_EMPTY", MPI.GROUP_EMPTY.Size());
            Group evens = world.Incl(new int[] {0, 2});
            Group odds = world.Excl(new int[] {0, 2});
            Group none = world.Incl(new int[0]);
            Group firstHalf = world.Range_incl(new int[][] {{0, size / 2 - 1, 1}});
            Group secondHalf = world.Range_excl(new int[][] {{0, size / 2 - 1, 1}});
            Group union = Group.Union(evens, odds);
            Group inter = Group.Intersection(evens, odds);
            Group diff = Group.Difference(evens, world);
            Group[] made = {evens, odds, none, firstHalf, secondHalf, union, inter, diff};
            StringBuilder sizes = new StringBuilder();
            for (Group g : made) sizes.append(g.Size()).append(' ');
            say("sizes", sizes.toString().trim());
            say("translate", Arrays.toString(Group.Translate_ranks(evens, new int[] {0, 1}, world)));
            for (Group g : made) g.free();
            world.free();
            say("done");
        });
    }
}
