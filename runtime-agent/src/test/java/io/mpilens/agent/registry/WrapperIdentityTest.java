package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.*;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RegistryDecoder#wrapperIds()}: wrapper object identity to handle id, read from the
 * agent's wrapper index with field and array reads only (our own seam; the integration tests
 * check the same on real bindings, live and from heap dumps).
 */
class WrapperIdentityTest {
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
        registry.processInitialized(proc, 0, 2);
    }

    private static RowSpec spec(HandleKind kind, String name) {
        RowSpec s = new RowSpec(kind);
        s.proc = 0;
        s.name = name;
        s.call = "create";
        s.bindingClass = "mpi.Test";
        return s;
    }

    private Long idOf(Object wrapper) {
        return new RegistryDecoder(reader).wrapperIds().get(new ReflectiveTargetReader.Obj(wrapper));
    }

    private ProcessSnapshot snapshot() {
        List<ProcessSnapshot> all = new RegistryDecoder(reader).decode();
        assertEquals(1, all.size());
        return all.get(0);
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

        registry.requestCompleted(mpjRequest);
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

        registry.requestCompleted(request);
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
}
