package io.mpilens.examples.openmpi;

import io.mpilens.examples.Tour;
import java.util.ArrayList;
import java.util.List;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;

/**
 * The recovery story, the way coordinated clean-stop protocols detect failures: every rank
 * posts a non-blocking receive for news from every other rank (none ever comes: they stay
 * pending, so a dead peer leaves requests behind), pauses at "ready" (the watcher kills a rank
 * meanwhile), then sends a non-blocking status message to the coordinator (rank 0). The
 * coordinator waits for the statuses until a deadline; a rank that misses it is suspect. It
 * tells the live ranks who is alive, and they build a communicator of themselves with
 * {@code createGroup} (collective over the group's members only, so the dead rank is not
 * needed), name it "survivors", prove it works with a barrier and pause at "recovered".
 *
 * <p>Run with {@code --mca orte_abort_on_non_zero_status 0} so mpirun leaves the survivors
 * running. Nothing is ever sent to a suspect. The job does not finalize (MPI_Finalize would
 * wait for the dead rank): it waits at "finished" until the watcher stops it.
 */
public final class RecoverAfterFailure {
    private static final int COORDINATOR = 0;
    private static final int TAG_NEWS = 11;
    private static final int TAG_STATUS = 12;
    private static final int TAG_LIVE = 13;
    private static final int TAG_SURVIVORS = 14;
    private static final long STATUS_DEADLINE_NANOS = 3_000_000_000L;

    private RecoverAfterFailure() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        Tour tour = new Tour(rank);
        List<Request> news = new ArrayList<>();
        for (int peer = 0; peer < size; peer++) {
            if (peer != rank) news.add(MPI.COMM_WORLD.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, peer, TAG_NEWS));
        }
        tour.pause("ready");

        int[] members = liveRanks(rank, size);
        Group all = MPI.COMM_WORLD.getGroup();
        Group liveGroup = all.incl(members);
        Intracomm survivors = MPI.COMM_WORLD.createGroup(liveGroup, TAG_SURVIVORS);
        survivors.setName("survivors");
        survivors.barrier();
        synchronized (System.out) {
            System.out.println("MPILENS-RECOVERED owner=" + rank + " live=" + join(members)
                    + " pendingNews=" + news.size());
            System.out.flush();
        }
        tour.pause("recovered");
        tour.pause("finished");
    }

    /**
     * The detection step: every rank but the coordinator sends it a status; the coordinator
     * waits until a deadline and tells the ranks it heard from who they are. Returns the live
     * COMM_WORLD ranks, ascending. Nothing is ever sent to a suspect.
     */
    static int[] liveRanks(int rank, int size) throws Exception {
        int[] live = new int[size];
        if (rank == COORDINATOR) {
            live[rank] = 1;
            Request[] status = new Request[size];
            for (int peer = 0; peer < size; peer++) {
                if (peer != rank) status[peer] = MPI.COMM_WORLD.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, peer, TAG_STATUS);
            }
            long deadline = System.nanoTime() + STATUS_DEADLINE_NANOS;
            int missing = size - 1;
            while (missing > 0 && System.nanoTime() < deadline) {
                for (int peer = 0; peer < size; peer++) {
                    if (status[peer] != null && live[peer] == 0 && status[peer].test()) {
                        live[peer] = 1;
                        missing--;
                    }
                }
                Thread.sleep(10);
            }
            // a status receive from a suspect stays pending: it is one more request on a dead peer
            for (int peer = 0; peer < size; peer++) {
                if (peer != rank && live[peer] == 1) MPI.COMM_WORLD.send(live, size, MPI.INT, peer, TAG_LIVE);
            }
        } else {
            Request sent = MPI.COMM_WORLD.iSend(MPI.newIntBuffer(1).put(0, rank), 1, MPI.INT, COORDINATOR, TAG_STATUS);
            MPI.COMM_WORLD.recv(live, size, MPI.INT, COORDINATOR, TAG_LIVE);
            sent.waitFor();
        }

        List<Integer> alive = new ArrayList<>();
        for (int r = 0; r < size; r++) if (live[r] == 1) alive.add(r);
        return alive.stream().mapToInt(Integer::intValue).toArray();
    }

    static String join(int[] xs) {
        StringBuilder b = new StringBuilder();
        for (int x : xs) b.append(b.length() == 0 ? "" : ",").append(x);
        return b.toString();
    }
}
