package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.*;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import io.mpilens.api.registry.UnsupportedLayoutException;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The registry's lifecycle and reference-count rules, decoded the way a debugger decodes them
 * (fields and arrays only). Wrappers are plain objects here: this tests our own seam; the
 * integration tests prove the same behaviour against real MPI bindings.
 */
class RegistryLifecycleTest {
    /** Stands in for the agent's well-known class so each test gets a fresh registry. */
    static final class Root {
        static Object INSTANCE;
    }

    private HandleRegistry registry;
    private ReflectiveTargetReader reader;

    @BeforeEach
    void freshRegistry() {
        registry = new HandleRegistry(4, 16);
        registry.configure("test", "openmpi", false);
        Root.INSTANCE = registry;
        reader = new ReflectiveTargetReader(Map.of(RegistryLayout.ROOT_CLASS, Root.class));
        int proc = registry.process(getClass().getClassLoader());
        registry.processInitialized(proc, 3, 4);
    }

    private ProcessSnapshot snapshot() {
        List<ProcessSnapshot> all = new RegistryDecoder(reader).decode();
        assertEquals(1, all.size());
        return all.get(0);
    }

    private static RowSpec spec(HandleKind kind, String name) {
        RowSpec s = new RowSpec(kind);
        s.proc = 0;
        s.name = name;
        s.call = "create";
        s.bindingClass = "mpi.Test";
        return s;
    }

    private Optional<HandleInfo> byName(String name) {
        return snapshot().handles().stream().filter(h -> name.equals(h.name())).findFirst();
    }

    @Test
    void withRequestsNotTrackedNoRequestIsRecordedAndTheSnapshotSaysSo() {
        assertTrue(snapshot().agentHealth().requestsTracked(), "tracked unless told otherwise");
        registry.requestsNotTracked();
        Object comm = new Object();
        registry.add(comm, spec(HandleKind.COMMUNICATOR, "split"));
        registry.addRequest(new Object(), 0x40L, 0, "mpi.Request", "iRecv", 1, 77, comm, false);
        registry.addRequest(new Object(), 0L, 0, "mpi.Request", "iRecv", 1, 77, comm, false);
        ProcessSnapshot s = snapshot();
        assertFalse(s.agentHealth().requestsTracked());
        assertTrue(s.handles().stream().noneMatch(h -> h.kind() == HandleKind.REQUEST), s.handles().toString());
        registry.freed(comm);
        assertTrue(byName("split").map(h -> h.state() == Lifecycle.RELEASED).orElse(true), "nothing holds it");
    }

    @Test
    void communicatorFreedWithPendingRequestIsOrphanUntilTheRequestCompletes() {
        Object comm = new Object();
        Object request = new Object();
        long commId = registry.add(comm, spec(HandleKind.COMMUNICATOR, "split"));
        registry.addRequest(request, 0L, 0, "mpi.Request", "iRecv", 1, 77, comm, false);

        registry.freed(comm);
        HandleInfo orphan = byName("split").orElseThrow();
        assertEquals(Lifecycle.FREED, orphan.state());
        assertEquals(1, orphan.refCount());
        HandleInfo req = snapshot().handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).findFirst().orElseThrow();
        assertArrayEquals(new long[] {req.id()}, orphan.heldBy());
        assertEquals(commId, req.communicator());
        assertEquals(1, req.peer());
        assertEquals(77, req.tag());

        registry.requestCompleted(request, 0);
        ProcessSnapshot after = snapshot();
        assertTrue(after.handle(commId).isEmpty(), "released communicator is no longer a live handle");
        HandleInfo released = after.released().stream().filter(h -> h.id() == commId).findFirst().orElseThrow();
        assertEquals(Lifecycle.RELEASED, released.state());
        assertEquals("split", released.name());
    }

    @Test
    void datatypeFreedWhileADerivedDatatypeLivesIsReleasedWithIt() {
        Object contig = new Object();
        Object vector = new Object();
        long contigId = registry.add(contig, spec(HandleKind.DATATYPE, "contig"));
        RowSpec v = spec(HandleKind.DATATYPE, "vector");
        v.parents = new Object[] {contig};
        long vectorId = registry.add(vector, v);

        assertArrayEquals(new long[] {contigId}, byName("vector").orElseThrow().parents());
        registry.freed(contig);
        HandleInfo orphan = byName("contig").orElseThrow();
        assertEquals(Lifecycle.FREED, orphan.state());
        assertArrayEquals(new long[] {vectorId}, orphan.heldBy());

        registry.freed(vector);
        assertTrue(snapshot().handles().isEmpty());
        assertEquals(2, snapshot().released().size());
    }

    @Test
    void errhandlerSetOnCommunicatorIsHeldUntilTheCommunicatorGoes() {
        Object comm = new Object();
        Object errhandler = new Object();
        long commId = registry.add(comm, spec(HandleKind.COMMUNICATOR, "dup"));
        long ehId = registry.add(errhandler, spec(HandleKind.ERRHANDLER, "user-eh"));
        registry.setErrhandler(comm, errhandler);

        assertEquals(ehId, byName("dup").orElseThrow().errhandler());
        assertArrayEquals(new long[] {commId}, byName("user-eh").orElseThrow().attachedTo());
        registry.freed(errhandler);
        assertEquals(Lifecycle.FREED, byName("user-eh").orElseThrow().state());
        assertEquals(1, byName("user-eh").orElseThrow().refCount());
        registry.freed(comm);
        assertTrue(byName("user-eh").isEmpty());
    }

    @Test
    void childCommunicatorInheritsItsParentsErrhandler() {
        Object world = new Object();
        Object errhandler = new Object();
        Object dup = new Object();
        registry.add(world, spec(HandleKind.COMMUNICATOR, "world"));
        long ehId = registry.add(errhandler, spec(HandleKind.ERRHANDLER, "eh"));
        registry.setErrhandler(world, errhandler);
        RowSpec d = spec(HandleKind.COMMUNICATOR, "dup");
        d.derivedFrom = world;
        registry.add(dup, d);
        assertEquals(ehId, byName("dup").orElseThrow().errhandler());
        assertEquals(2, byName("eh").orElseThrow().refCount());
    }

    @Test
    void persistentRequestHoldsItsCommunicatorOnlyWhileActive() {
        Object comm = new Object();
        Object prequest = new Object();
        registry.add(comm, spec(HandleKind.COMMUNICATOR, "c"));
        registry.addRequest(prequest, 0L, 0, "mpi.Prequest", "sendInit", 2, 9, comm, true);
        assertEquals(0, byName("c").orElseThrow().refCount());
        registry.requestStarted(prequest);
        assertEquals(1, byName("c").orElseThrow().refCount());
        registry.requestCompleted(prequest, 0);
        assertEquals(0, byName("c").orElseThrow().refCount());
        HandleInfo r = snapshot().handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).findFirst().orElseThrow();
        assertTrue(r.persistent());
        assertTrue(r.complete());
    }

    @Test
    void wrapperCollectedWithoutFreeIsReportedAsLeakedAndNotRetained() throws Exception {
        Object wrapper = new Object();
        registry.add(wrapper, spec(HandleKind.GROUP, "dropped"));
        WeakReference<Object> probe = new WeakReference<>(wrapper);
        wrapper = null;
        for (int i = 0; i < 50 && probe.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(probe.get(), "the registry must not keep the application's wrapper alive");
        for (int i = 0; i < 50 && !byName("dropped").orElseThrow().leaked(); i++) {
            registry.add(new Object(), spec(HandleKind.OP, "nudge")); // mutations drain the queue
            Thread.sleep(20);
        }
        HandleInfo h = byName("dropped").orElseThrow();
        assertTrue(h.leaked());
        assertEquals(Lifecycle.ACTIVE, h.state(), "MPI still holds the object: it is active, and leaked");
    }

    @Test
    void rowStoppedMidWriteIsReportedTornNotDecoded() throws Exception {
        registry.add(new Object(), spec(HandleKind.COMMUNICATOR, "ok"));
        registry.add(new Object(), spec(HandleKind.COMMUNICATOR, "half-written"));
        Field f = HandleRegistry.class.getDeclaredField("stamp");
        f.setAccessible(true);
        ((int[]) f.get(registry))[1]++; // as if the VM stopped between the two stamp writes
        ProcessSnapshot s = snapshot();
        assertEquals(1, s.tornRows());
        assertEquals(List.of("ok"), s.handles().stream().map(HandleInfo::name).toList());
    }

    @Test
    void registryGrowsAndStaysDecodable() {
        Object[] keep = new Object[5000];
        for (int i = 0; i < keep.length; i++) {
            keep[i] = new Object();
            registry.addRequest(keep[i], 0L, 0, "mpi.Request", "iSend", i % 4, i, null, false);
        }
        assertEquals(5000, snapshot().handles().size());
        assertNotNull(keep[0]);
    }

    @Test
    void snapshotCostIsAFixedNumberOfArrayReadsNotPerHandle() {
        Object[] keep = new Object[10_000];
        keep[0] = new Object();
        registry.addRequest(keep[0], 0L, 0, "mpi.Request", "iSend", 1, 1, null, false);
        reader.arrayReads = 0;
        snapshot();
        int few = reader.arrayReads;
        for (int i = 1; i < keep.length; i++) {
            keep[i] = new Object();
            registry.addRequest(keep[i], 0L, 0, "mpi.Request", "iSend", 1, 1, null, false);
        }
        reader.arrayReads = 0;
        snapshot();
        assertEquals(few, reader.arrayReads, "reads must not grow with the number of requests");
    }

    @Test
    void requestHandleReusedByMpiMeansTheOldRequestFinishedUnseen() {
        Object comm = new Object();
        registry.add(comm, spec(HandleKind.COMMUNICATOR, "c"));
        registry.addRequest(new Object(), 0x7f00L, 0, "mpi.Request", "iSend", 1, 1, comm, false);
        registry.addRequest(new Object(), 0x7f00L, 0, "mpi.Request", "iRecv", 2, 2, comm, false);
        List<HandleInfo> requests = snapshot().handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).toList();
        assertEquals(1, requests.size());
        assertEquals("iRecv", requests.get(0).creatingCall());
        assertEquals(0x7f00L, requests.get(0).cHandle());
        assertEquals(1, byName("c").orElseThrow().refCount(), "only the live request holds the communicator");
    }

    @Test
    void pendingRequestWhoseWrapperIsCollectedIsLeaked() throws Exception {
        Object comm = new Object();
        registry.add(comm, spec(HandleKind.COMMUNICATOR, "c"));
        Object request = new Object();
        registry.addRequest(request, 0L, 0, "mpi.Request", "Irecv", 3, 4, comm, false);
        WeakReference<Object> probe = new WeakReference<>(request);
        request = null;
        for (int i = 0; i < 50 && probe.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(probe.get(), "the registry must not keep a request wrapper alive");
        HandleInfo r = null;
        for (int i = 0; i < 50; i++) {
            registry.add(new Object(), spec(HandleKind.OP, "nudge"));
            r = snapshot().handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).findFirst().orElseThrow();
            if (r.leaked()) break;
            Thread.sleep(20);
        }
        assertTrue(r.leaked());
        assertEquals(3, r.peer());
        assertEquals(4, r.tag());
    }

    @Test
    void requestRowStoppedMidWriteIsNotShown() throws Exception {
        registry.addRequest(new Object(), 0x10L, 0, "mpi.Request", "iSend", 1, 1, null, false);
        RequestTablesTest.stopMidWrite(registry, 0x20L);
        ProcessSnapshot s = snapshot();
        assertEquals(0, s.tornRows());
        assertEquals(List.of(0x10L), s.handles().stream().filter(h -> h.kind() == HandleKind.REQUEST)
                .map(HandleInfo::cHandle).toList());
    }

    @Test
    void sideRecordsSurviveThePoolBeingCompactedAndGrown() {
        List<Object> live = new java.util.ArrayList<>();
        for (int round = 0; round < 40; round++) {
            for (int i = 0; i < 50; i++) {
                Object comm = new Object();
                RowSpec c = spec(HandleKind.COMMUNICATOR, "c" + round + "-" + i);
                c.members = new int[] {round, i, round + i};
                c.stack = new String[] {"App.main(App.java:" + (round * 100 + i) + ")"};
                registry.add(comm, c);
                if (i % 10 == 0) live.add(comm); else registry.freed(comm);
            }
        }
        ProcessSnapshot s = snapshot();
        assertEquals(live.size(), s.handles().size());
        for (HandleInfo h : s.handles()) {
            String[] parts = h.name().substring(1).split("-");
            int round = Integer.parseInt(parts[0]);
            int i = Integer.parseInt(parts[1]);
            assertArrayEquals(new int[] {round, i, round + i}, h.members(), h.name());
            assertEquals("App.main(App.java:" + (round * 100 + i) + ")", h.createdAt());
        }
    }

    @Test
    void concurrentRanksLeaveAConsistentRegistry() throws Exception {
        // MPJ multicore: several ranks (threads) of one JVM share the registry
        Object comm = new Object();
        registry.add(comm, spec(HandleKind.COMMUNICATOR, "shared"));
        Thread[] ranks = new Thread[4];
        for (int t = 0; t < ranks.length; t++) {
            long base = (t + 1L) << 40;
            ranks[t] = new Thread(() -> {
                for (int i = 1; i <= 20_000; i++) {
                    Object r = new Object();
                    registry.addRequest(r, base + i * 8L, 0, "mpi.Request", "iSend", 1, i, comm, false);
                    if (i % 100 == 0) {
                        Object g = new Object();
                        registry.add(g, spec(HandleKind.GROUP, "g"));
                        registry.freed(g);
                    }
                    registry.requestCompleted(r, base + i * 8L);
                }
            });
            ranks[t].start();
        }
        for (Thread t : ranks) t.join();
        ProcessSnapshot s = snapshot();
        assertEquals(0, byName("shared").orElseThrow().refCount());
        assertTrue(s.handles().stream().noneMatch(h -> h.kind() == HandleKind.REQUEST || h.kind() == HandleKind.GROUP));
        assertEquals(0, s.tornRows());
    }

    // ---- wrapper identity to handle id (RegistryDecoder.wrapperIds), read as a debugger reads it

    private Long idOf(Object wrapper) {
        return new RegistryDecoder(reader).wrapperIds().get(new ReflectiveTargetReader.Obj(wrapper));
    }

    private HandleInfo row(long id) {
        return snapshot().handles().stream().filter(h -> h.id() == id).findFirst().orElse(null);
    }

    @Test
    void wrappersMapToTheirHandlesAndRequestsWithANativeHandleAreNotInTheIndex() {
        Object comm = new Object();
        Object type = new Object();
        Object mpjRequest = new Object();
        Object ompiRequest = new Object();
        long commId = registry.add(comm, spec(HandleKind.COMMUNICATOR, "dup"));
        long typeId = registry.add(type, spec(HandleKind.DATATYPE, "vector"));
        registry.addRequest(mpjRequest, 0L, 0, "mpi.Request", "Irecv", 1, 5, comm, false);
        registry.addRequest(ompiRequest, 0x7f00L, 0, "mpi.Request", "iRecv", 1, 6, comm, false);

        Map<TargetObject, Long> ids = new RegistryDecoder(reader).wrapperIds();
        assertEquals(commId, ids.get(new ReflectiveTargetReader.Obj(comm)));
        assertEquals(typeId, ids.get(new ReflectiveTargetReader.Obj(type)));
        long requestId = ids.get(new ReflectiveTargetReader.Obj(mpjRequest));
        HandleInfo request = row(requestId);
        assertEquals(HandleKind.REQUEST, request.kind());
        assertEquals(5, request.tag());
        assertNull(ids.get(new ReflectiveTargetReader.Obj(ompiRequest)), "found by its native handle, not by identity");

        registry.requestCompleted(mpjRequest, 0);
        assertNull(idOf(mpjRequest), "a completed request leaves the index");
    }

    @Test
    void aFreedWrapperStillMapsToItsOrphanAndToNothingLiveOnceReleased() {
        Object comm = new Object();
        Object request = new Object();
        long commId = registry.add(comm, spec(HandleKind.COMMUNICATOR, "split"));
        registry.addRequest(request, 0L, 0, "mpi.Request", "Irecv", 1, 7, comm, false);
        registry.freed(comm);

        assertEquals(commId, idOf(comm));
        assertEquals(Lifecycle.FREED, row(commId).state());

        registry.requestCompleted(request, 0);
        assertNull(row(commId), "released");
        assertTrue(snapshot().released().stream().anyMatch(h -> h.id() == commId));
        Long stale = idOf(comm);
        assertTrue(stale == null || stale == commId, "an entry outliving its handle keeps the old id: " + stale);
    }

    @Test
    void aWrapperWhoseSlotWasReusedNeitherMapsToNorFreesTheNewHandle() {
        Object old = new Object();
        long oldId = registry.add(old, spec(HandleKind.GROUP, "old"));
        registry.freed(old); // unheld: released at once, its slot free for the next handle
        Object next = new Object();
        long nextId = registry.add(next, spec(HandleKind.GROUP, "next"));
        assertNotEquals(oldId, nextId);

        assertEquals(nextId, idOf(next));
        assertNotEquals(Long.valueOf(nextId), idOf(old));
        registry.freed(old); // a second free of the old wrapper must not touch the new handle
        assertEquals(Lifecycle.ACTIVE, row(nextId).state());
        assertEquals(1, snapshot().agentHealth().untrackedEvents());
    }

    @Test
    void moreWrappersThanOneObjectArrayReadHolds() {
        List<Object> wrappers = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < TargetReader.MAX_OBJECT_ARRAY_CHUNK + 5_000; i++) {
            Object w = new Object();
            wrappers.add(w);
            ids.add(registry.add(w, spec(HandleKind.GROUP, null)));
        }
        Map<TargetObject, Long> found = new RegistryDecoder(reader).wrapperIds();
        for (int i = 0; i < wrappers.size(); i++) {
            assertEquals(ids.get(i), found.get(new ReflectiveTargetReader.Obj(wrappers.get(i))), "wrapper " + i);
        }
        assertTrue(reader.longestObjectRead <= TargetReader.MAX_OBJECT_ARRAY_CHUNK,
                "object arrays are read in chunks: " + reader.longestObjectRead);
    }

    /** A registry written by an agent from the future. */
    static final class FutureRegistry {
        final int magic = RegistryLayout.MAGIC;
        final int layoutVersion = 99;
    }

    static final class FutureRoot {
        static Object INSTANCE = new FutureRegistry();
    }

    @Test
    void unknownLayoutVersionIsRefusedNamingBothVersions() {
        ReflectiveTargetReader future = new ReflectiveTargetReader(Map.of(RegistryLayout.ROOT_CLASS, FutureRoot.class));
        UnsupportedLayoutException e = assertThrows(UnsupportedLayoutException.class,
                () -> new RegistryDecoder(future).decode());
        assertTrue(e.getMessage().contains("layout version 99"), e.getMessage());
        assertTrue(e.getMessage().contains("reads layout version " + RegistryLayout.VERSION), e.getMessage());
        assertEquals(99, e.foundVersion());
    }
}
