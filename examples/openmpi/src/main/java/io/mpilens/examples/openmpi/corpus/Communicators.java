package io.mpilens.examples.openmpi.corpus;

import static io.mpilens.examples.openmpi.corpus.Corpus.say;

import mpi.Comm;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;

/** Communicator constructors and destructors, with the results MPI gives as MPI_COMM_NULL. */
public final class Communicators {
    private Communicators() {
    }

    public static void main(String[] args) throws Exception {
        Corpus.run(args, (rank, size) -> {
            Intracomm world = MPI.COMM_WORLD;
            Intracomm dup = world.dup();
            dup.setName("corpus-dup");
            say("dup", dup.getSize(), dup.getRank(), dup.getName(), Comm.compare(world, dup) == MPI.CONGRUENT);
            Intracomm cloned = (Intracomm) dup.clone();
            say("clone", cloned.getSize());
            Intracomm withInfo = world.dupWithInfo(MPI.INFO_NULL);
            say("dupWithInfo", withInfo.getSize());
            Comm pending = world.iDup();
            pending.getRequest().waitFor();
            say("iDup", pending.getSize(), pending.getRank());
            Intracomm self = MPI.COMM_SELF.dup();
            say("dup of COMM_SELF", self.getSize(), self.getRank());

            Intracomm halves = world.split(rank % 2, rank);
            say("split", halves.getSize(), halves.getRank());
            Intracomm none = world.split(MPI.UNDEFINED, rank);
            say("split UNDEFINED null", none.isNull());
            Intracomm some = world.split(rank == 0 ? MPI.UNDEFINED : 1, -rank);
            say("split some", some.isNull(), some.isNull() ? -1 : some.getRank());
            Intracomm shared = world.splitType(Comm.TYPE_SHARED, rank, MPI.INFO_NULL);
            say("splitType shared", shared.getSize());
            Intracomm noType = world.splitType(MPI.UNDEFINED, rank, MPI.INFO_NULL);
            say("splitType UNDEFINED null", noType.isNull());

            Group worldGroup = world.getGroup();
            Group firstTwo = worldGroup.incl(new int[] {0, 1});
            Intracomm created = world.create(firstTwo);
            say("create member", !created.isNull(), created.isNull() ? -1 : created.getSize());
            Intracomm emptyCreated = world.create(MPI.GROUP_EMPTY);
            say("create GROUP_EMPTY null", emptyCreated.isNull());
            Intracomm byGroup = rank < 2 ? world.createGroup(firstTwo, 7) : null;
            say("createGroup", byGroup == null ? "not a member" : byGroup.getSize());

            // an intercommunicator between the even and the odd ranks, and its merge
            Intercomm bridge = world.createIntercomm(halves, 0, rank % 2 == 0 ? 1 : 0, 11); // a method of the peer communicator
            say("createIntercomm", bridge.isInter(), bridge.getSize(), bridge.getRemoteSize());
            Group remote = bridge.getRemoteGroup();
            say("remote group", remote.getSize());
            Intercomm bridgeDup = bridge.dup();
            say("intercomm dup", bridgeDup.getRemoteSize());
            Intracomm merged = bridge.merge(rank % 2 == 1);
            say("merge", merged.getSize(), merged.isInter());
            Intercomm parent = Intercomm.getParent();
            say("getParent null", parent.isNull());

            for (Comm c : new Comm[] {dup, cloned, withInfo, pending, self, halves, some, shared, created, byGroup,
                    bridgeDup, merged, bridge}) {
                if (c != null && !c.isNull()) c.free();
            }
            for (Group g : new Group[] {worldGroup, firstTwo, remote}) g.free();
            say("done");
        });
    }
}
