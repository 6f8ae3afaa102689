package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.*;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The request ring's rules, decoded the way a debugger decodes them (fields and arrays only):
 * what the creation, wait, test, write-back and free paths leave there, the overflow, and a freed
 * communicator held by the requests pending on it. The wrappers are stand-ins for what the weaver
 * makes of Open MPI's classes; the integration tests prove the same on the real binding.
 */
class RequestRingTest {
    static final class Root {
        static Object INSTANCE;
    }

    /** Open MPI's {@code mpi.Request} as woven: its native handle and the agent's sequence field. */
    static final class Request implements RequestFacts {
        long handle;
        private transient int mpilens$seq;

        Request(long handle) {
            this.handle = handle;
        }

        @Override public void mpilens$seq(int seq) { mpilens$seq = seq; }
        @Override public int mpilens$seq() { return mpilens$seq; }
    }

    /** A communicator as woven: the registry writes its id into the field. */
    static final class Comm implements RequestHolder {
        private transient long mpilens$id;

        @Override public long mpilens$id() { return mpilens$id; }
    }

    private static final long NULL_REQUEST = 0x7e00L;
    private HandleRegistry registry;
    private ReflectiveTargetReader reader;
    private final List<Request> made = new ArrayList<>();
    private long nextHandle = 0x7f00_0000L;

    @BeforeEach
    void freshRegistry() {
        registry = new HandleRegistry(4, 16);
        registry.configure("test", "openmpi", false);
        registry.requestRing(RequestRing.RING);
        WrapperRequests.nullHandle(NULL_REQUEST);
        Root.INSTANCE = registry;
        reader = new ReflectiveTargetReader(Map.of(RegistryLayout.ROOT_CLASS, Root.class));
        int proc = registry.process(getClass().getClassLoader());
        registry.processInitialized(proc, 1, 4);
    }

    /** The ring is one per JVM: what a test left pending would show in the next one. */
    @AfterEach
    void completeWhatWasMade() {
        for (Request r : made) WrapperRequests.done(r);
        assertEquals(List.of(), pendingRequests(), "every request made here is done");
    }

    private Request create(Object on, String call, int peer, int tag) {
        Request r = new Request(nextHandle += 64);
        WrapperRequests.created(on, call, peer, tag, r);
        made.add(r);
        return r;
    }

    private Comm comm(String name) {
        Comm c = new Comm();
        RowSpec s = new RowSpec(HandleKind.COMMUNICATOR);
        s.proc = 0;
        s.name = name;
        s.call = "dup";
        s.bindingClass = "mpi.Intracomm";
        registry.add(c, s);
        assertNotEquals(0, c.mpilens$id(), "the registry wrote the wrapper's id");
        return c;
    }

    private ProcessSnapshot snapshot() {
        List<ProcessSnapshot> all = new RegistryDecoder(reader).decode();
        assertEquals(1, all.size());
        return all.get(0);
    }

    private List<HandleInfo> pendingRequests() {
        return snapshot().handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).toList();
    }

    private Optional<HandleInfo> byTag(int tag) {
        return pendingRequests().stream().filter(h -> h.tag() == tag).findFirst();
    }

    @Test
    void aPendingRequestIsShownWithItsCallPeerTagAndCommunicator() {
        Comm world = comm("MPI_COMM_WORLD");
        Request r = create(world, "iRecv", 2, 9);
        HandleInfo h = byTag(9).orElseThrow(() -> new AssertionError("not shown: " + pendingRequests()));
        assertEquals("iRecv", h.creatingCall());
        assertEquals(2, h.peer());
        assertEquals(world.mpilens$id(), h.communicator());
        assertEquals(RegistryDecoder.WRAPPED_REQUEST_ID + r.mpilens$seq(), h.id());
        assertFalse(h.complete());
        assertEquals(Lifecycle.ACTIVE, h.state());
    }

    @Test
    void waitTestWriteBackAndFreeEachCompleteARequest() {
        Comm world = comm("MPI_COMM_WORLD");
        Request waited = create(world, "iRecv", 0, 1);
        Request tested = create(world, "iRecv", 0, 2);
        Request inArray = create(world, "iSend", 0, 3);
        Request stillPending = create(world, "iSend", 0, 4);
        Request freed = create(world, "iSend", 0, 5);
        assertEquals(List.of(1, 2, 3, 4, 5), tags());

        WrapperRequests.done(waited);
        WrapperRequests.tested(tested, Boolean.FALSE);
        assertEquals(List.of(2, 3, 4, 5), tags(), "a wait completes; a test that says no does not");
        WrapperRequests.tested(tested, Boolean.TRUE);
        // Open MPI's waitAll/testAny/...: the binding writes the null request back for those that completed
        WrapperRequests.writtenBack(new Object[] {inArray, stillPending}, new long[] {NULL_REQUEST, stillPending.handle});
        assertEquals(List.of(4, 5), tags(), "a test that says yes and a null write-back complete");
        WrapperRequests.done(freed);
        assertEquals(List.of(4), tags(), "a freed request is no longer the application's");
    }

    private List<Integer> tags() {
        return pendingRequests().stream().map(HandleInfo::tag).sorted().toList();
    }

    @Test
    void aFreedCommunicatorIsHeldByTheRequestsPendingOnItUntilTheyComplete() {
        Comm dup = comm("dup");
        Request onDup = create(dup, "iRecv", 0, 7);
        registry.freed(dup);
        HandleInfo c = snapshot().handles().stream().filter(h -> "dup".equals(h.name())).findFirst()
                .orElseThrow(() -> new AssertionError("the freed communicator is not shown"));
        assertEquals(Lifecycle.FREED, c.state());
        HandleInfo r = byTag(7).orElseThrow();
        assertEquals(List.of(r.id()), Arrays.stream(c.heldBy()).boxed().toList(), "held by its pending request");
        WrapperRequests.done(onDup);
        assertTrue(snapshot().handles().stream().noneMatch(h -> "dup".equals(h.name())),
                "released once the request completed (the agent's sweep removes its row)");
    }

    @Test
    void aRequestStillPendingWhenItsSlotComesRoundMovesToTheOverflowAndLeavesItWhenDone() {
        Comm world = comm("MPI_COMM_WORLD");
        Request old = create(world, "iRecv", 3, 11);
        Request second = create(world, "iRecv", 4, 13);
        Request third = create(world, "iProbe-like", 5, 14);
        for (int i = 0; i < RequestRing.SIZE + 5; i++) {
            Request r = new Request(nextHandle += 64);
            WrapperRequests.created(world, "iSend", 1, 12, r);
            WrapperRequests.done(r);
        }
        List<HandleInfo> pending = pendingRequests();
        assertEquals(List.of(11, 13, 14), tags(), "only the three old requests are pending");
        HandleInfo h = pending.get(0);
        assertEquals(3, h.peer());
        assertEquals("iRecv", h.creatingCall(), "its facts came along");
        assertEquals(RegistryDecoder.WRAPPED_REQUEST_ID + old.mpilens$seq(), h.id());
        assertEquals(world.mpilens$id(), h.communicator());
        assertEquals("iProbe-like", pending.get(2).creatingCall());
        // the first of three leaves the overflow: the last one takes its place there
        WrapperRequests.done(old);
        assertEquals(List.of(13, 14), tags());
        assertEquals(List.of(4, 5), pendingRequests().stream().map(HandleInfo::peer).toList(), "facts stay with their request");
        assertEquals(2, RequestRing.pendingOn(world.mpilens$id()));
        WrapperRequests.tested(third, Boolean.TRUE);
        WrapperRequests.done(second);
        assertEquals(List.of(), pendingRequests(), "done: gone from the overflow");
        assertEquals(0, RequestRing.pendingOn(world.mpilens$id()));
    }

    @Test
    void requestsThatFindTheOverflowFullAreCountedAsUntrackedNotShown() {
        Comm world = comm("MPI_COMM_WORLD");
        long untrackedBefore = snapshot().agentHealth().untrackedEvents();
        int kept = RequestRing.OVERFLOW_LIMIT + RequestRing.SIZE;
        for (int i = 0; i < kept + 3; i++) create(world, "iRecv", 0, 1);
        ProcessSnapshot s = snapshot();
        assertEquals(kept, s.handles().stream().filter(h -> h.kind() == HandleKind.REQUEST).count(),
                "the ring and a full overflow");
        assertEquals(untrackedBefore + 3, s.agentHealth().untrackedEvents(), "the three that found it full");
    }
}
