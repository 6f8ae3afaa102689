package io.mpilens.agent.registry;

import static org.junit.jupiter.api.Assertions.*;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.api.registry.RegistryLayout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** MPI exceptions recorded by the agent, decoded the way a debugger reads them. */
class RegistryErrorsTest {
    static final class Root {
        static Object INSTANCE;
    }

    private HandleRegistry registry;
    private ReflectiveTargetReader reader;
    private final Object world = new Object();
    private long worldId;

    @BeforeEach
    void freshRegistry() {
        registry = new HandleRegistry(4, 16);
        registry.configure("test", "mpj", false);
        Root.INSTANCE = registry;
        reader = new ReflectiveTargetReader(Map.of(RegistryLayout.ROOT_CLASS, Root.class));
        int proc = registry.process(getClass().getClassLoader());
        registry.processInitialized(proc, 1, 4);
        RowSpec s = new RowSpec(HandleKind.COMMUNICATOR);
        s.proc = 0;
        s.name = "MPI_COMM_WORLD";
        s.call = "Init";
        s.bindingClass = "mpi.Intracomm";
        worldId = registry.add(world, s);
    }

    private List<MpiError> errors() {
        List<ProcessSnapshot> all = new RegistryDecoder(reader).decode();
        return all.get(0).errors();
    }

    @Test
    void aFailedSendIsRecordedWithItsCommunicatorPeerAndCause() {
        registry.recordError(-1, 0, "Send", world, 0, 2, HandleInfo.UNKNOWN, HandleInfo.UNKNOWN,
                "java.nio.channels.ClosedChannelException", null);

        List<MpiError> errors = errors();
        assertEquals(1, errors.size());
        MpiError e = errors.get(0);
        assertEquals("Send", e.call());
        assertEquals(worldId, e.handleId());
        assertEquals(2, e.peer());
        assertEquals(1, e.rank());
        assertEquals("java.nio.channels.ClosedChannelException", e.causeClass());
        assertEquals(HandleInfo.UNKNOWN, e.errorClass());
    }

    @Test
    void theSameExceptionSeenByAnOuterCallReplacesTheInnerEntry() {
        long entry = registry.recordError(-1, 0, "send", world, 0, 2, 15, 15, "mpi.MPIException", "inner");
        registry.recordError(entry, 0, "Send", world, 0, 2, 15, 15, "mpi.MPIException", "outer");

        List<MpiError> errors = errors();
        assertEquals(1, errors.size());
        assertEquals("Send", errors.get(0).call());
        assertEquals(15, errors.get(0).errorClass());
    }

    @Test
    void theRingKeepsTheNewestErrorsFirstAndStaysBounded() {
        for (int i = 0; i < 100; i++) {
            registry.recordError(-1, 0, "Recv", world, 0, i, HandleInfo.UNKNOWN, HandleInfo.UNKNOWN,
                    "mpi.MPIException", "message " + i + "x".repeat(300));
        }

        List<MpiError> errors = errors();
        assertEquals(64, errors.size());
        assertEquals(99, errors.get(0).peer());
        assertEquals(36, errors.get(63).peer());
        assertTrue(errors.get(0).message().length() <= 200);
    }

    @Test
    void anUnknownHandleIsRecordedWithIdZero() {
        registry.recordError(-1, 0, "barrier", new Object(), 0, HandleInfo.UNKNOWN, 1, 1, "mpi.MPIException", "x");

        assertEquals(0, errors().get(0).handleId());
    }
}
