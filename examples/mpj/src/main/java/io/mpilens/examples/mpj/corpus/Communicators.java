package io.mpilens.examples.mpj.corpus;

import static io.mpilens.examples.mpj.corpus.Corpus.say;

import mpi.Comm;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;

/** Communicator constructors and destructors of MPJ Express, with the edge cases it can express. */
public final class Communicators {
    private Communicators() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Intracomm world = MPI.COMM_WORLD;
            Intracomm dup = (Intracomm) world.clone();
            say("clone", dup.Size(), dup.Rank(), Comm.Compare(world, dup) == MPI.CONGRUENT);
            Intracomm self = (Intracomm) MPI.COMM_SELF.clone();
            say("clone of COMM_SELF", self.Size(), self.Rank());
            Intracomm halves = world.Split(rank % 2, rank);
            say("split", halves.Size(), halves.Rank());
            // MPJ Express 0.44 makes MPI.UNDEFINED a colour of its own instead of returning MPI_COMM_NULL
            Intracomm undefined = world.Split(rank == 0 ? MPI.UNDEFINED : 1, rank);
            say("split UNDEFINED", undefined == null ? "null" : undefined.Size());
            Group worldGroup = world.Group();
            Group firstTwo = worldGroup.Incl(new int[] {0, 1});
            Intracomm created = world.Create(firstTwo);
            say("create", created == null ? "null" : created.Size());
            Intercomm bridge = world.Create_intercomm(halves, 0, rank % 2 == 0 ? 1 : 0, 11);
            say("create_intercomm", bridge.Test_inter(), bridge.Size(), bridge.Remote_size());
            Group remote = bridge.Remote_group();
            say("remote group", remote.Size());
            Intracomm merged = bridge.Merge(rank % 2 == 1);
            say("merge", merged.Size(), merged.Test_inter());
            for (Comm c : new Comm[] {dup, self, halves, undefined, created, merged, bridge}) {
                if (c != null) c.Free();
            }
            Corpus.notInBinding("MPI_COMM_NULL from split(MPI.UNDEFINED) or create for a non-member (MPJ Express 0.44 returns a communicator)");
            Corpus.notInBinding("iDup, dupWithInfo, splitType, createGroup, getParent (not in the mpiJava 1.2 API)");
            say("done");
        });
    }
}
