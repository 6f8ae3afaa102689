package io.mpilens.headless.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.testing.Snapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HandleTableTest {
    private static final HandleTable PLAIN = new HandleTable(false);

    @Test
    void showsAHeaderAndOneLinePerHandleWithOrphansMarked() {
        List<String> lines = PLAIN.lines(Snapshots.ring(), "127.0.0.1:4000");
        assertEquals(List.of(
                "rank 0/4  pid 4242 on node1  openmpi  INITIALIZED  agent ok  @127.0.0.1:4000",
                "    ID KIND  NAME               STATE    REFS WHERE        CREATED AT",
                "     1 comm  MPI_COMM_WORLD     active      0 0/4",
                "    17 comm  createCart         FREED*      1 0/4 cart     Ring.java:42",
                "         orphan, held by 23 (request)",
                "    23 req   iSend              active      0 peer 1 tag 7",
                "  recently released, newest first:",
                "    12 group getGroup           released                   Ring.java:60"), lines);
    }

    /** A request of the agent's ring (id 2^40 + its sequence) is written r + its sequence, in the ID column and as a holder. */
    @Test
    void aRequestOfTheRingIsWrittenByItsShortId() {
        long id = HandleIds.RING_BASE + 4831;
        HandleInfo comm = HandleInfo.builder(17, HandleKind.COMMUNICATOR).name("tour-split-0").state(Lifecycle.FREED)
                .refCount(1).heldBy(new long[] {id}).size(2).rank(0).build();
        HandleInfo recv = HandleInfo.builder(id, HandleKind.REQUEST).creatingCall("iRecv").peer(1).tag(7).communicator(17)
                .build();
        ProcessSnapshot p = new ProcessSnapshot(0, 4, 11, "h", "openmpi", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                List.of(comm, recv), List.of(), 0);
        List<String> lines = PLAIN.lines(p, "127.0.0.1:4000");
        assertEquals(List.of(
                "    17 comm  tour-split-0       FREED*      1 0/2",
                "         orphan, held by r4831 (request)",
                " r4831 req   iRecv              active      0 peer 1 tag 7"), lines.subList(2, 5));
    }

    @Test
    void noLineIsWiderThan80ColumnsEvenWithLongNames() {
        HandleInfo wide = HandleInfo.builder(123_456_789_012L, HandleKind.DATATYPE)
                .name("a_datatype_with_a_really_long_name_that_goes_on").typeSize(1_234_567_890_123L)
                .state(Lifecycle.FREED).refCount(12_345).heldBy(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
                .leaked(true).creationStack(List.of("org.example.VeryLongPackageName.AndAClassWithALongName.method("
                        + "AndAClassWithALongNameThatNeverEnds.java:12345)"))
                .build();
        AgentHealth sick = new AgentHealth("0.1", 3, "java.lang.IllegalStateException: " + "x".repeat(200), 17);
        ProcessSnapshot p = new ProcessSnapshot(12, 64, 1_234_567L, "a-very-long-host-name.cluster"
                + ".example.org", "openmpi", MpiState.INITIALIZED, 1, sick, List.of(wide), List.of(), 4);
        List<String> lines = PLAIN.lines(p, "a-very-long-host-name.cluster.example.org:65535");
        for (String line : lines) assertTrue(line.length() <= 80, line.length() + ": " + line);
        assertEquals("rank 12/64  pid 1234567 on a-very-long...  openmpi  INITIALIZED  agent: 3 errors",
                lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  17 MPI events the agent could not track")));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  4 handles skipped")));
        String row = lines.stream().filter(l -> l.contains("LEAKED")).findFirst().orElseThrow();
        assertTrue(row.endsWith("Ring.java:42") || row.contains("...") && row.endsWith(":12345"), row);
        assertTrue(lines.stream().anyMatch(l -> l.trim().startsWith("leaked: its wrapper was garbage-collected")));
    }

    @Test
    void mpiExceptionsShowOneLineEachNamingCallCommunicatorPeerAndCause() {
        HandleInfo world = HandleInfo.builder(1, HandleKind.COMMUNICATOR).name("MPI_COMM_WORLD").predefined(true)
                .members(new int[] {0, 1, 2, 3}).build();
        MpiError e = new MpiError(1, 1, "Send", 1, 2, HandleInfo.UNKNOWN, HandleInfo.UNKNOWN,
                "java.nio.channels.ClosedChannelException", "x".repeat(150));
        ProcessSnapshot p = new ProcessSnapshot(1, 4, 11, "h", "mpj", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                List.of(world), List.of(), 0, List.of(e));
        List<String> lines = PLAIN.lines(p, null);
        for (String line : lines) assertTrue(line.length() <= 80, line.length() + ": " + line);
        String line = lines.get(lines.indexOf("  MPI exceptions raised, newest first:") + 1);
        assertTrue(line.startsWith("         Send on MPI_COMM_WORLD peer 2: ClosedChannelException: xxx"), line);
    }

    @Test
    void colourMarksOrphansButNeverChangesTheVisibleText() {
        List<String> plain = PLAIN.lines(Snapshots.ring(), "127.0.0.1:4000");
        List<String> coloured = new HandleTable(true).lines(Snapshots.ring(), "127.0.0.1:4000");
        List<String> stripped = new ArrayList<>();
        for (String l : coloured) stripped.add(l.replaceAll("\u001b\\[[0-9;]*m", ""));
        assertEquals(plain, stripped);
        assertTrue(coloured.get(3).contains("\u001b[33mFREED*\u001b[0m"), coloured.get(3));
        assertFalse(plain.stream().anyMatch(l -> l.contains("\u001b")));
    }

    @Test
    void noColourWhenAskedOrWhenNotATerminal() {
        assertFalse(HandleTable.colorWanted(true, Map.of()));
        assertFalse(HandleTable.colorWanted(false, Map.of("NO_COLOR", "1")));
        assertFalse(HandleTable.colorWanted(false, Map.of()), "tests do not run on a terminal");
    }

    @Test
    void ranksAreListedInRankOrderSeparatedByABlankLine() {
        ProcessSnapshot r1 = new ProcessSnapshot(1, 2, 11, "h", "mpj", MpiState.FINALIZED, 1, Snapshots.HEALTHY,
                List.of(), List.of(), 0);
        ProcessSnapshot r0 = new ProcessSnapshot(0, 2, 10, "h", "mpj", MpiState.INITIALIZED, 1, Snapshots.HEALTHY,
                List.of(), List.of(), 0);
        List<String> lines = PLAIN.lines(new JobSnapshot(List.of(new JobSnapshot.Rank("h:2", r1),
                new JobSnapshot.Rank("h:1", r0)), List.of()));
        assertEquals(List.of("rank 0/2  pid 10 on h  mpj  INITIALIZED  agent ok  @h:1", "  (no MPI handles)", "",
                "rank 1/2  pid 11 on h  mpj  FINALIZED  agent ok  @h:2", "  (no MPI handles)"), lines);
    }

    @Test
    void createdAtIsShortenedToFileAndLine() {
        assertEquals("Ring.java:42", HandleTable.shortSite("demo.Ring.main(Ring.java:42)"));
        assertEquals("weird frame", HandleTable.shortSite("weird frame"));
    }
}
