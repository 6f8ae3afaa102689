package io.mpilens.headless.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MemberList;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.observe.CollectorReport;
import io.mpilens.headless.testing.SameSnapshots;
import io.mpilens.headless.testing.Snapshots;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Members as ranges on the collectors' wire ({@code mpilens-collect/2}): read back to exactly the
 * lists written, in their order; {@code mpilens/1} keeps its arrays; one parse shares each
 * distinct list among the handles that have it.
 */
class MemberRangesTest {
    private static final int[][] LISTS = {
            {},                                 // none: the field is left out, as before
            {5},                                // one member
            {0},                                // rank 0 alone
            {0, 1},                             // a run of two
            {0, 1, 2, 3, 4, 5, 6, 7},           // one run
            {0, 1, 2, 3, 5, 7, 8, 9},           // runs and single ranks: "0-3,5,7-9"
            {1, 3, 5, 7},                       // no two adjacent
            {3, 2, 1, 0},                       // descending: written as an array, in its order
            {0, 2, 1, 3},                       // unsorted
            {4, 5, 6, 0, 1, 2},                 // ascending runs out of order
            {2, 2, 3},                          // a repeated rank
            {-1, 0, 1},                         // a rank not known
            {Integer.MAX_VALUE - 1, Integer.MAX_VALUE},
            {Integer.MAX_VALUE, Integer.MIN_VALUE},
    };

    @Test
    void everyListReadsBackExactlyAsWrittenInItsOrder() throws IOException {
        for (int[] members : LISTS) {
            for (int[] remote : LISTS) {
                ProcessSnapshot p = process(0, 8, members, remote);
                CollectorReport read = CollectorJson.parse(CollectorJson.lines(report(List.of(p))));
                ProcessSnapshot back = read.ranks().get(0).snapshot();
                SameSnapshots.assertSame(List.of(p), List.of(back));
                HandleInfo comm = back.handles().get(0);
                assertArrayEquals(members, comm.members(), java.util.Arrays.toString(members));
                assertArrayEquals(remote, comm.remoteMembers(), java.util.Arrays.toString(remote));
                HandleInfo group = back.handles().get(1);
                assertArrayEquals(members, group.members(), java.util.Arrays.toString(members));
            }
        }
    }

    @Test
    void ascendingListsTravelAsRangesTheOthersAsArrays() throws IOException {
        String line = snapshotLine(process(0, 8, new int[] {0, 1, 2, 3, 5, 7, 8, 9}, new int[] {3, 2, 1, 0}));
        assertTrue(line.contains("\"memberRanges\":\"0-3,5,7-9\""), line);
        assertTrue(line.contains("\"remoteMembers\":[3,2,1,0]"), line);
        assertFalse(line.contains("\"members\":["), line);
        assertFalse(line.contains("remoteMemberRanges"), line);

        String world = snapshotLine(process(0, 8192, range(8192), range(0)));
        assertTrue(world.contains("\"memberRanges\":\"0-8191\""), world);
        assertTrue(world.length() < 2_000, world.length() + " characters");

        String odd = snapshotLine(process(0, 8, new int[] {4, 5, 6, 0, 1, 2}, new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE}));
        assertTrue(odd.contains("\"members\":[4,5,6,0,1,2]"), odd);
        assertTrue(odd.contains("\"remoteMembers\":[2147483647,-2147483648]"), odd);
        assertFalse(odd.contains("Ranges"), odd);
    }

    @Test
    void theHandlesDocumentKeepsItsArrays() throws IOException {
        ProcessSnapshot p = process(0, 8, new int[] {0, 1, 2, 3, 5, 7, 8, 9}, new int[] {4, 6});
        String json = SnapshotJson.write(List.of(p));
        assertTrue(json.contains("\"members\":[0,1,2,3,5,7,8,9]"), json);
        assertTrue(json.contains("\"remoteMembers\":[4,6]"), json);
        assertFalse(json.contains("Ranges"), json);
        SameSnapshots.assertSame(List.of(p), SnapshotJsonReader.read(json));
    }

    @Test
    void aCollectorThatWritesArraysIsStillRead() throws IOException {
        ProcessSnapshot p = process(3, 8, range(8), new int[] {9, 10});
        List<String> lines = new ArrayList<>(CollectorJson.lines(report(List.of(p))));
        JsonWriter w = new JsonWriter().beginObject().field(CollectorReport.KIND, CollectorJson.SNAPSHOT).name("process");
        SnapshotJson.process(w, p, false);
        String plain = w.endObject().toString();
        assertTrue(plain.contains("\"members\":[0,1,2,3,4,5,6,7]"), plain);
        int at = lines.indexOf(snapshotLine(p));
        assertTrue(at > 0, String.join("\n", lines));
        lines.set(at, plain);
        SameSnapshots.assertSame(List.of(p), List.of(CollectorJson.parse(lines).ranks().get(0).snapshot()));
    }

    @Test
    void ranksOfOneReportShareEachDistinctList() throws IOException {
        int n = 64;
        List<ProcessSnapshot> ps = new ArrayList<>();
        for (int r = 0; r < 4; r++) ps.add(process(r, n, range(n), new int[] {1, 3}));
        CollectorReport read = CollectorJson.parse(CollectorJson.lines(report(ps)));
        MemberList world = read.ranks().get(0).snapshot().handles().get(0).memberList();
        MemberList remote = read.ranks().get(0).snapshot().handles().get(0).remoteMemberList();
        assertArrayEquals(range(n), world.toArray());
        for (RankStatus r : read.ranks()) {
            HandleInfo comm = r.snapshot().handles().get(0);
            HandleInfo group = r.snapshot().handles().get(1);
            assertSame(world, comm.memberList(), "rank " + r.rank());
            assertSame(world, group.memberList(), "rank " + r.rank() + "'s group");
            assertSame(remote, comm.remoteMemberList(), "rank " + r.rank());
            assertNotSame(comm.members(), comm.members(), "members() still hands out copies");
        }
        // a second parse has its own (the lists are shared within one report)
        CollectorReport again = CollectorJson.parse(CollectorJson.lines(report(ps)));
        assertEquals(world, again.ranks().get(0).snapshot().handles().get(0).memberList());
    }

    @Test
    void damagedRangesAreAnErrorNotAnAllocation() {
        for (String bad : new String[] {"0-2147483647", "3,2", "5-3", "1-1", "0,,1", "x", "-1", "0-3,3-4"}) {
            String line = CollectorJson.SNAPSHOT_LINE + ",\"process\":{\"pid\":1,\"mpiState\":\"INITIALIZED\",\"layoutVersion\":1,"
                    + "\"tornRows\":0,\"handles\":[{\"id\":\"1\",\"kind\":\"COMMUNICATOR\",\"predefined\":false,\"state\":\"ACTIVE\","
                    + "\"refCount\":0,\"heldBy\":[],\"leaked\":false,\"creationStack\":[],\"memberRanges\":\"" + bad + "\","
                    + "\"inter\":false}],\"released\":[],\"mpiErrors\":[]}}";
            IOException e = assertThrows(IOException.class, () -> CollectorJson.snapshot(line), bad);
            assertTrue(e.getMessage().contains("not a process"), e.getMessage());
        }
    }

    private static String snapshotLine(ProcessSnapshot p) {
        for (String l : CollectorJson.lines(report(List.of(p)))) if (l.startsWith(CollectorJson.SNAPSHOT_LINE)) return l;
        throw new AssertionError("no snapshot line");
    }

    private static CollectorReport report(List<ProcessSnapshot> ps) {
        List<RankStatus> ranks = new ArrayList<>();
        for (ProcessSnapshot p : ps) {
            ranks.add(new RankStatus(p.rank(), 0, p.pid(), 1, "sim1", "127.0.0.1:" + (4000 + p.rank()), ProcessState.OK, null, 3, p));
        }
        return new CollectorReport("sim1", "j", List.of(), ranks, List.of(), List.of());
    }

    /** A communicator (intercommunicator when {@code remote} has members) and a group with these members. */
    private static ProcessSnapshot process(int rank, int size, int[] members, int[] remote) {
        HandleInfo comm = HandleInfo.builder(17, HandleKind.COMMUNICATOR).ownerRank(rank).bindingClass("mpi.Intercomm")
                .creatingCall("createIntercomm").rank(rank).size(members.length).members(members)
                .inter(remote.length > 0).remoteMembers(remote).build();
        HandleInfo group = HandleInfo.builder(18, HandleKind.GROUP).ownerRank(rank).bindingClass("mpi.Group")
                .creatingCall("getGroup").rank(rank).size(members.length).members(members).build();
        return new ProcessSnapshot(rank, size, 100 + rank, "sim1", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                List.of(comm, group), List.of(), 0);
    }

    private static int[] range(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = i;
        return a;
    }
}
