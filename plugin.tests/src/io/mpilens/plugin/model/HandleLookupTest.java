package io.mpilens.plugin.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

class HandleLookupTest {
    @Test
    void wrapperClassesOfBothBindingsMapToTheirKindThroughTheirSuperclasses() {
        assertEquals(HandleKind.COMMUNICATOR, HandleLookup.kindOf(List.of("mpi.CartComm", "mpi.Intracomm", "mpi.Comm", "java.lang.Object")));
        assertEquals(HandleKind.REQUEST, HandleLookup.kindOf(List.of("mpi.Prequest", "mpi.Request", "java.lang.Object")));
        assertEquals(HandleKind.DATATYPE, HandleLookup.kindOf(List.of("mpi.Datatype", "java.lang.Object")));
        assertNull(HandleLookup.kindOf(List.of("mpi.Status", "java.lang.Object")), "a Status is not a handle");
        assertNull(HandleLookup.kindOf(List.of("java.lang.String", "java.lang.Object")));
    }

    @Test
    void aNativeHandleFindsItsRowAndTheLiveRowWinsOverAReleasedOneWithTheSameValue() {
        HandleInfo released = HandleInfo.builder(5, HandleKind.COMMUNICATOR).state(Lifecycle.RELEASED).cHandle(0xabcL).build();
        HandleInfo live = HandleInfo.builder(3, HandleKind.COMMUNICATOR).cHandle(0xabcL).name("reused").build();
        HandleInfo datatype = HandleInfo.builder(7, HandleKind.DATATYPE).cHandle(0x123L).build();
        ProcessSnapshot p = Fixtures.rank(1, "h", List.of(released, live, datatype));
        HandleLookup.Found f = HandleLookup.byNativeHandle(List.of(p), HandleKind.COMMUNICATOR, 0xabcL).orElseThrow();
        assertEquals("reused", f.handle().name());
        assertEquals(1, f.process().rank());
        assertTrue(HandleLookup.byNativeHandle(List.of(p), HandleKind.COMMUNICATOR, 0x123L).isEmpty(),
                "the same value of another kind is not a match");
    }

    @Test
    void anIdIsLookedUpInEveryRankOfTheJvm() {
        ProcessSnapshot r0 = Fixtures.rank(0, "h", List.of(Fixtures.world(0)));
        ProcessSnapshot r1 = Fixtures.rank(1, "h", List.of(Fixtures.recv(1)));
        HandleLookup.Found f = HandleLookup.byId(List.of(r0, r1), 31).orElseThrow();
        assertEquals(1, f.process().rank());
        assertEquals(HandleKind.REQUEST, f.handle().kind());
        assertTrue(HandleLookup.byId(List.of(r0, r1), 99).isEmpty());
    }
}
