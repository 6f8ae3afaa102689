package io.mpilens.headless.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.TypeArgument;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.testing.Snapshots;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotJsonTest {
    @Test
    void writesAJobExactlyAsTheSchemaDocumentsIt() {
        JobSnapshot job = new JobSnapshot(List.of(new JobSnapshot.Rank("127.0.0.1:4000", Snapshots.ring())),
                List.of(new JobSnapshot.Failure("127.0.0.1:4001", "127.0.0.1:4001 did not answer within 5 s")));
        String expected = "{\"schema\":\"mpilens/1\",\"processes\":[{\"rank\":0,\"worldSize\":4,\"pid\":4242,"
                + "\"host\":\"node1\",\"binding\":\"openmpi\",\"mpiState\":\"INITIALIZED\",\"layoutVersion\":1,"
                + "\"address\":\"127.0.0.1:4000\",\"agent\":{\"version\":\"0.1.0\",\"healthy\":true,"
                + "\"internalErrors\":0,\"lastError\":null,\"untrackedEvents\":0,\"requestsTracked\":true,\"blockingReturns\":0},\"tornRows\":0,\"handles\":["
                + "{\"id\":\"1\",\"kind\":\"COMMUNICATOR\",\"name\":\"MPI_COMM_WORLD\",\"predefined\":true,"
                + "\"state\":\"ACTIVE\",\"refCount\":0,\"heldBy\":[],\"cHandle\":\"0x7f3a00c0\",\"leaked\":false,"
                + "\"bindingClass\":\"mpi.Intracomm\",\"creationStack\":[],\"rank\":0,\"size\":4,"
                + "\"members\":[0,1,2,3],\"inter\":false},"
                + "{\"id\":\"17\",\"kind\":\"COMMUNICATOR\",\"predefined\":false,\"state\":\"FREED\",\"refCount\":1,"
                + "\"heldBy\":[\"23\"],\"leaked\":false,\"bindingClass\":\"mpi.CartComm\",\"creatingCall\":\"createCart\","
                + "\"createdAt\":\"demo.Ring.main(Ring.java:42)\",\"creationStack\":[\"demo.Ring.main(Ring.java:42)\","
                + "\"demo.Launcher.run(Launcher.java:7)\"],\"rank\":0,\"size\":4,\"members\":[0,1,2,3],\"inter\":false,"
                + "\"topology\":{\"type\":\"CARTESIAN\",\"dims\":[2,2],\"periods\":[true,false]},"
                + "\"errhandler\":\"2\",\"derivedFrom\":\"1\"},"
                + "{\"id\":\"23\",\"kind\":\"REQUEST\",\"predefined\":false,\"state\":\"ACTIVE\",\"refCount\":0,"
                + "\"heldBy\":[],\"leaked\":false,\"bindingClass\":\"mpi.Request\",\"creatingCall\":\"iSend\","
                + "\"creationStack\":[],\"requestType\":\"point-to-point\",\"peer\":1,\"tag\":7,\"communicator\":\"17\",\"persistent\":false,"
                + "\"complete\":false}],"
                + "\"released\":[{\"id\":\"12\",\"kind\":\"GROUP\",\"predefined\":false,\"state\":\"RELEASED\","
                + "\"refCount\":0,\"heldBy\":[],\"leaked\":false,\"creatingCall\":\"getGroup\","
                + "\"createdAt\":\"demo.Ring.main(Ring.java:60)\",\"creationStack\":[\"demo.Ring.main(Ring.java:60)\"]}],"
                + "\"mpiErrors\":[]}],"
                + "\"errors\":[{\"address\":\"127.0.0.1:4001\",\"message\":\"127.0.0.1:4001 did not answer within 5 s\"}]}";
        assertEquals(expected, SnapshotJson.write(job));
    }

    @Test
    void omitsWhatIsUnknown() {
        HandleInfo bare = HandleInfo.builder(5, HandleKind.DATATYPE).build();
        ProcessSnapshot p = new ProcessSnapshot(HandleInfo.UNKNOWN, HandleInfo.UNKNOWN, 1, null, null,
                MpiState.NOT_INITIALIZED, 1, Snapshots.HEALTHY, List.of(bare), List.of(), 0);
        String json = SnapshotJson.write(List.of(p));
        assertTrue(json.startsWith("{\"schema\":\"mpilens/1\",\"processes\":[{\"pid\":1,\"mpiState\":\"NOT_INITIALIZED\","),
                json);
        assertTrue(json.contains("{\"id\":\"5\",\"kind\":\"DATATYPE\",\"predefined\":false,\"state\":\"ACTIVE\","
                + "\"refCount\":0,\"heldBy\":[],\"leaked\":false,\"creationStack\":[],\"committed\":false,"
                + "\"parents\":[]}"), json);
        for (String absent : new String[] {"\"rank\"", "\"host\"", "\"address\"", "\"name\"", "\"cHandle\"",
            "\"size\"", "\"extent\"", "\"createdAt\""}) {
            assertFalse(json.contains(absent), absent + " in " + json);
        }
        assertTrue(json.endsWith("\"errors\":[]}"), json);
    }

    @Test
    void datatypeConstructorArgumentsKeepTheirShape() {
        HandleInfo struct = HandleInfo.builder(9, HandleKind.DATATYPE).constructor("createStruct")
                .typeArguments(List.of(
                        new TypeArgument(TypeArgument.Kind.INT, new long[] {2}, 1),
                        new TypeArgument(TypeArgument.Kind.INTS, new long[] {0, 8}, 2),
                        new TypeArgument(TypeArgument.Kind.TYPE, new long[] {4}, 1),
                        new TypeArgument(TypeArgument.Kind.TYPES, new long[] {4, 0}, 2),
                        new TypeArgument(TypeArgument.Kind.INTS, new long[] {1, 1}, 5000),
                        new TypeArgument(TypeArgument.Kind.OTHER, new long[0], 0)))
                .build();
        String json = SnapshotJson.write(List.of(new ProcessSnapshot(0, 1, 1, "h", "openmpi", MpiState.INITIALIZED,
                1, Snapshots.HEALTHY, List.of(struct), List.of(), 0)));
        assertTrue(json.contains("\"typeArguments\":[2,[0,8],{\"type\":\"4\"},[{\"type\":\"4\"},{\"type\":\"0\"}],"
                + "{\"values\":[1,1],\"length\":5000},{\"unrecorded\":true}]"), json);
    }

    @Test
    void mpiExceptionsAreListedPerProcessWithOnlyTheKnownFields() {
        MpiError e = new MpiError(77, 0, "barrier", 1, HandleInfo.UNKNOWN, 15, 15, "mpi.MPIException", "MPI_ERR_PROC_FAILED");
        String json = SnapshotJson.write(List.of(new ProcessSnapshot(0, 1, 1, "h", "openmpi", MpiState.INITIALIZED,
                1, Snapshots.HEALTHY, List.of(), List.of(), 0, List.of(e))));
        assertTrue(json.contains("\"mpiErrors\":[{\"call\":\"barrier\",\"handle\":\"1\",\"errorClass\":15,"
                + "\"errorCode\":15,\"cause\":\"mpi.MPIException\",\"message\":\"MPI_ERR_PROC_FAILED\",\"nanoTime\":77}]"), json);
    }

    @Test
    void idsAreStringsAndCHandlesUnsignedHex() {
        HandleInfo h = HandleInfo.builder(Long.MAX_VALUE, HandleKind.WINDOW).cHandle(-1L).communicator(3)
                .windowSize(4096).displacementUnit(8).build();
        String json = SnapshotJson.write(List.of(new ProcessSnapshot(0, 1, 1, "h", "openmpi", MpiState.INITIALIZED,
                1, Snapshots.HEALTHY, List.of(h), List.of(), 0)));
        assertTrue(json.contains("\"id\":\"9223372036854775807\""), json);
        assertTrue(json.contains("\"cHandle\":\"0xffffffffffffffff\""), json);
        assertTrue(json.contains("\"communicator\":\"3\",\"size\":4096,\"displacementUnit\":8}"), json);
    }

    @Test
    void escapesStringsSoAnyNameStaysValidJson() {
        AgentHealth sick = new AgentHealth("0.1", 2, "quote \" backslash \\ newline \n tab \t bell \u0007 "
                + "sep \u2028 lone \ud800 pair \ud83d\ude00 \u00e9", 0);
        String json = SnapshotJson.write(List.of(new ProcessSnapshot(0, 1, 1, "h", "openmpi", MpiState.INITIALIZED,
                1, sick, List.of(), List.of(), 0)));
        assertTrue(json.contains("\"healthy\":false,\"internalErrors\":2,\"lastError\":\"quote \\\" backslash \\\\ "
                + "newline \\n tab \\t bell \\u0007 sep \\u2028 lone \\ud800 pair \ud83d\ude00 \u00e9\""), json);
    }

    @Test
    void theWriterSeparatesNestedContainers() {
        JsonWriter w = new JsonWriter().beginArray();
        w.beginObject().field("a", 1).name("b").beginArray().value(true).value((String) null).endArray().endObject();
        w.beginArray().endArray().value("x");
        assertEquals("[{\"a\":1,\"b\":[true,null]},[],\"x\"]", w.endArray().toString());
    }
}
