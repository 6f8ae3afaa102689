package io.mpilens.headless.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.Topology;
import io.mpilens.api.model.TypeArgument;
import io.mpilens.api.registry.RegistryDecoder;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.testing.RegistryTarget;
import io.mpilens.headless.testing.SameSnapshots;
import io.mpilens.headless.testing.Snapshots;
import io.mpilens.headless.testing.TargetJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@link SnapshotJson} writes, {@link SnapshotJsonReader} reads back to the same
 * {@link ProcessSnapshot}, field by field (equality of the model, not of text): a collector sends
 * its host's snapshots this way and the front end must show them exactly like ones it read itself.
 */
class SnapshotJsonRoundTripTest {
    @Test
    void aSnapshotDecodedFromARealJvmSurvivesTheWire() throws Exception {
        List<ProcessSnapshot> live;
        try (TargetJvm target = TargetJvm.launch(RegistryTarget.class);
             JdiTargetReader reader = JdiTargetReader.attach(JdwpAddress.parse(target.address()), Duration.ofSeconds(10))) {
            reader.virtualMachine().suspend();
            try {
                live = new RegistryDecoder(reader).decode();
            } finally {
                reader.virtualMachine().resume();
            }
        }
        assertFalse(live.isEmpty());
        assertFalse(live.get(0).handles().isEmpty());
        assertFalse(live.get(0).released().isEmpty());
        SameSnapshots.assertSame(live, roundTrip(live));
    }

    @Test
    void everyKindAndEveryOptionalFieldSurvivesTheWire() throws IOException {
        Map<String, String> pairs = new LinkedHashMap<>();
        pairs.put("no_locks", "true");
        pairs.put("odd \"key\"", null);
        List<HandleInfo> handles = List.of(
                HandleInfo.builder(1, HandleKind.COMMUNICATOR).ownerRank(3).name("MPI_COMM_WORLD").predefined(true)
                        .cHandle(-1L).rank(3).size(4).members(new int[] {0, 1, 2, 3}).errhandler(2).group(5)
                        .windows(new long[] {7}).files(new long[] {8}).bindingClass("mpi.Intracomm").build(),
                HandleInfo.builder(11, HandleKind.COMMUNICATOR).ownerRank(3).inter(true).members(new int[] {3})
                        .remoteMembers(new int[] {0, 1}).topology(Topology.cartesian(new int[] {2, 2}, new boolean[] {true, false}))
                        .derivedFrom(1).creatingCall("createIntercomm").state(Lifecycle.FREED).refCount(2)
                        .heldBy(new long[] {12, 13}).creationStack(List.of("a.B.c(B.java:1)", "a.B.main(B.java:9)"))
                        .createdWithInfo(9).infoPairs(pairs, 5).attributes(Map.of(7, "Integer 42", 9, "null")).build(),
                HandleInfo.builder(14, HandleKind.COMMUNICATOR).ownerRank(HandleInfo.UNKNOWN)
                        .topology(Topology.distGraph(null, new int[] {1})).build(),
                HandleInfo.builder(15, HandleKind.COMMUNICATOR).ownerRank(3)
                        .topology(Topology.graph(Topology.Type.GRAPH, new int[] {1, 2}, new int[] {1, 0})).build(),
                HandleInfo.builder(5, HandleKind.GROUP).ownerRank(3).rank(3).size(4).members(new int[] {0, 1, 2, 3})
                        .derivedFrom(1).communicators(new long[] {1}).build(),
                HandleInfo.builder(12, HandleKind.REQUEST).ownerRank(3).creatingCall("iRecv").peer(-2).tag(-1)
                        .communicator(11).persistent(true).complete(true).leaked(true).build(),
                HandleInfo.builder(20, HandleKind.DATATYPE).ownerRank(3).constructor("createStruct").committed(true)
                        .typeSize(12).extent(16).lowerBound(-4).parents(new long[] {21, 22})
                        .typeArguments(List.of(new TypeArgument(TypeArgument.Kind.INT, new long[] {2}, 1),
                                new TypeArgument(TypeArgument.Kind.LONG, new long[] {1L << 40}, 1),
                                new TypeArgument(TypeArgument.Kind.LONG, new long[0], 0),
                                new TypeArgument(TypeArgument.Kind.INTS, new long[] {0, 8}, 2),
                                new TypeArgument(TypeArgument.Kind.INTS, new long[0], 0),
                                new TypeArgument(TypeArgument.Kind.TYPES, new long[0], 0),
                                new TypeArgument(TypeArgument.Kind.TYPE, new long[] {4}, 1),
                                new TypeArgument(TypeArgument.Kind.TYPE, new long[0], 0),
                                new TypeArgument(TypeArgument.Kind.TYPES, new long[] {4, 0}, 2000),
                                new TypeArgument(TypeArgument.Kind.INTS, new long[] {1, 1}, 5000),
                                new TypeArgument(TypeArgument.Kind.OTHER, new long[0], 0))).build(),
                HandleInfo.builder(7, HandleKind.WINDOW).ownerRank(3).communicator(1).errhandler(2).windowSize(4096)
                        .displacementUnit(8).createdWithInfo(9).build(),
                HandleInfo.builder(8, HandleKind.FILE).ownerRank(3).communicator(1).errhandler(2).fileName("/tmp/ü \\ x")
                        .accessMode(9, "MODE_CREATE|MODE_RDWR").build(),
                HandleInfo.builder(2, HandleKind.ERRHANDLER).ownerRank(3).predefined(true).name("MPI_ERRORS_RETURN")
                        .attachedTo(new long[] {1, 7}).build(),
                HandleInfo.builder(9, HandleKind.INFO).ownerRank(3).infoPairs(Map.of(), HandleInfo.UNKNOWN)
                        .usedBy(new long[] {7, 11}).build(),
                HandleInfo.builder(30, HandleKind.OP).ownerRank(3).name("MPI_SUM").predefined(true).build());
        List<HandleInfo> released = List.of(HandleInfo.builder(40, HandleKind.GROUP).ownerRank(3).state(Lifecycle.RELEASED)
                .creatingCall("getGroup").creationStack(List.of("x.Y.z(Y.java:3)")).build(),
                HandleInfo.builder(41, HandleKind.REQUEST).ownerRank(HandleInfo.UNKNOWN).state(Lifecycle.RELEASED).build());
        List<MpiError> errors = List.of(new MpiError(77, 3, "barrier", 1, HandleInfo.UNKNOWN, 75, 75, "mpi.MPIException",
                "MPI_ERR_PROC_FAILED\n\"x\""), new MpiError(-5, HandleInfo.UNKNOWN, null, 0, 2, HandleInfo.UNKNOWN,
                HandleInfo.UNKNOWN, null, null));
        ProcessSnapshot all = new ProcessSnapshot(3, 4, 1234, "sim2", "openmpi", MpiState.FINALIZED, 1,
                new AgentHealth("0.1.0", 2, "boom \u2028 \ud800", 3, false, 99), handles, released, 4, errors);
        ProcessSnapshot bare = new ProcessSnapshot(HandleInfo.UNKNOWN, HandleInfo.UNKNOWN, 1, null, null,
                MpiState.NOT_INITIALIZED, 1, null, List.of(HandleInfo.builder(5, HandleKind.DATATYPE).build()), List.of(), 0);
        // in the order the writer puts them: by rank, unknown last
        List<ProcessSnapshot> written = List.of(Snapshots.ring(), all, bare);
        SameSnapshots.assertSame(written, roundTrip(written));
    }

    private static List<ProcessSnapshot> roundTrip(List<ProcessSnapshot> processes) throws IOException {
        return SnapshotJsonReader.read(SnapshotJson.write(processes));
    }
}
