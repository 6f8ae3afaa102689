package io.mpilens.headless.testing;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * Hand-built registries shaped like those of a real FT-MPI REBUILD (4 ranks, rank 2 dead,
 * survivors 0 1 3 make "survivors", spawn one JVM (pid 500), merge with it and split by old rank):
 * each side's binding names a process outside its own COMM_WORLD with a negative rank
 * ({@code MPI_UNDEFINED}, {@link #U}). For the tests of the model and of its renderings.
 */
public final class RebuildJob {
    /** Open MPI's {@code MPI_UNDEFINED}: a member the binding cannot name from its own COMM_WORLD. */
    public static final int U = -32766;
    /** The spawned JVM's pid. */
    public static final long CHILD_PID = 500;

    private RebuildJob() {
    }

    public static HandleInfo comm(int owner, long id, String call, long from, int[] members, int[] remote, String name) {
        HandleInfo.Builder b = HandleInfo.builder(id, HandleKind.COMMUNICATOR).ownerRank(owner).creatingCall(call)
                .size(members.length).members(members).derivedFrom(from).name(name);
        if (remote != null) b.inter(true).remoteMembers(remote);
        return b.build();
    }

    public static HandleInfo world(int owner, int[] members) {
        return HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(owner).name("MPI_COMM_WORLD").predefined(true)
                .size(members.length).members(members).build();
    }

    /** Survivor r: COMM_WORLD, survivors (createGroup), and once rebuilt spawn, merge(false), split by old rank ({@code rebuiltName}). */
    public static ProcessSnapshot survivor(int r, boolean rebuilt, String rebuiltName) {
        List<HandleInfo> hs = new ArrayList<>(List.of(world(r, new int[] {0, 1, 2, 3}),
                comm(r, 9, "createGroup", 1, new int[] {0, 1, 3}, null, "survivors")));
        if (rebuilt) {
            hs.add(comm(r, 10, "spawn", 9, new int[] {0, 1, 3}, new int[] {U}, null));
            hs.add(comm(r, 11, "merge", 10, new int[] {0, 1, 3, U}, null, null));
            hs.add(comm(r, 12, "split", 11, new int[] {0, 1, U, 3}, null, rebuiltName));
        }
        return new ProcessSnapshot(r, 4, 100 + r, "node1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY, hs, List.of(), 0);
    }

    /** The spawned JVM, numbered by its own COMM_WORLD of one: the parent intercommunicator, merge(true), split; before MPI_Init nothing. */
    public static ProcessSnapshot child(boolean initialized, String rebuiltName) {
        List<HandleInfo> hs = new ArrayList<>();
        if (initialized) {
            hs.add(world(0, new int[] {0}));
            hs.add(comm(0, 40, "getParent", 0, new int[] {0}, new int[] {U, U, U}, "MPI_COMM_PARENT"));
            hs.add(comm(0, 41, "merge", 40, new int[] {U, U, U, 0}, null, null));
            hs.add(comm(0, 42, "split", 41, new int[] {U, U, 0, U}, null, rebuiltName));
        }
        return new ProcessSnapshot(initialized ? 0 : HandleInfo.UNKNOWN, 1, CHILD_PID, "node1", "openmpi",
                initialized ? MpiState.INITIALIZED : MpiState.NOT_INITIALIZED, 1, Snapshots.HEALTHY, hs, List.of(), 0);
    }

    public static RankStatus status(int r, ProcessState s, long pid, ProcessSnapshot p) {
        return new RankStatus(r, 0, pid, 99, "node1", "127.0.0.1:" + (4000 + pid), s, "test", 5, p);
    }
}
