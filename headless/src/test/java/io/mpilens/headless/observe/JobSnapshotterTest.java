package io.mpilens.headless.observe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.registry.RegistryNotFoundException;
import io.mpilens.headless.MpiLens;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.testing.FieldsTarget;
import io.mpilens.headless.testing.RegistryTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class JobSnapshotterTest {
    private final List<TargetJvm> targets = new ArrayList<>();

    @AfterEach
    void stop() {
        targets.forEach(TargetJvm::close);
    }

    private TargetJvm launch(Class<?> main, String... jvmOptions) throws Exception {
        TargetJvm t = TargetJvm.launch(main, jvmOptions);
        targets.add(t);
        return t;
    }

    static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static JobSnapshot snapshot(boolean suspend, String... addresses) {
        List<JdwpAddress> list = new ArrayList<>();
        for (String a : addresses) list.add(JdwpAddress.parse(a));
        return new JobSnapshotter(Duration.ofSeconds(5), suspend).snapshot(list);
    }

    private static HandleInfo named(ProcessSnapshot p, String nameOrCall) {
        for (HandleInfo h : p.handles()) {
            if (nameOrCall.equals(h.name()) || h.name() == null && nameOrCall.equals(h.creatingCall())) return h;
        }
        throw new AssertionError("no handle " + nameOrCall + " in " + p.handles());
    }

    @Test
    void decodesTheRegistryOfALiveJvmIncludingAnOrphan() throws Exception {
        TargetJvm t = launch(RegistryTarget.class);
        String address = t.address(); // JDWP listens on a new port once the snapshot detaches

        JobSnapshot job = snapshot(false, address);

        assertTrue(job.complete(), job.failures().toString());
        assertEquals(1, job.ranks().size());
        assertEquals(address, job.ranks().get(0).address());
        ProcessSnapshot p = job.ranks().get(0).process();
        assertEquals(1, p.rank());
        assertEquals(2, p.worldSize());
        assertEquals(t.pid(), p.pid());
        assertEquals("openmpi", p.binding());
        assertEquals(MpiState.INITIALIZED, p.mpiState());
        assertEquals("test-agent", p.agentHealth().agentVersion());

        HandleInfo world = named(p, "MPI_COMM_WORLD");
        assertTrue(world.predefined());
        assertEquals(0x7f3a00c0L, world.cHandle());
        assertArrayEquals(new int[] {0, 1}, world.members());
        HandleInfo split = named(p, "split");
        HandleInfo send = named(p, "iSend");
        assertEquals(Lifecycle.FREED, split.state(), "freed with a pending request on it: an orphan");
        assertEquals(1, split.refCount());
        assertArrayEquals(new long[] {send.id()}, split.heldBy());
        assertEquals(world.id(), split.derivedFrom());
        assertEquals(named(p, "MPI_ERRORS_RETURN").id(), split.errhandler());
        assertEquals("demo.Ring.main(Ring.java:42)", split.createdAt());
        assertEquals(split.id(), send.communicator());
        assertEquals(7, send.tag());
        HandleInfo pair = named(p, "createContiguous");
        assertEquals(HandleKind.DATATYPE, pair.kind());
        assertTrue(pair.committed());
        assertArrayEquals(new long[] {named(p, "MPI_INT").id()}, pair.parents());
        assertEquals(1, p.released().size());
        assertEquals("getGroup", p.released().get(0).creatingCall());
    }

    @Test
    void suspendedReadsGiveTheSameSnapshotAndTheTargetRunsOn() throws Exception {
        TargetJvm t = launch(RegistryTarget.class);
        String first = t.address();
        JobSnapshot running = snapshot(false, first);
        String second = t.awaitRelisten(first);
        JobSnapshot suspended = snapshot(true, second);
        assertTrue(suspended.complete(), suspended.failures().toString());
        assertEquals(running.processes().get(0).handles(), suspended.processes().get(0).handles());
        assertTrue(t.isAlive());
        assertTrue(snapshot(false, t.awaitRelisten(second)).complete(), "attachable again after a suspended read");
    }

    @Test
    void aJvmWithoutTheAgentHasNoRegistry() throws Exception {
        TargetJvm t = launch(FieldsTarget.class);
        String address = t.address(); // the JVM listens on a new port once the read detached
        JobSnapshot job = snapshot(false, address);
        assertEquals(List.of(), job.ranks());
        assertEquals(1, job.failures().size());
        assertTrue(job.failures().get(0).message().startsWith("no mpilens registry in " + address
                + ": the mpilens agent is not loaded there"), job.failures().get(0).message());
    }

    @Test
    void theAgentWithoutAnMpiBindingStaysInactiveSoThereIsNoRegistry() throws Exception {
        Assumptions.assumeTrue(TargetJvm.agentJar().isFile(), "runtime-agent not built: " + TargetJvm.agentJar());
        TargetJvm t = launch(FieldsTarget.class, "-javaagent:" + TargetJvm.agentJar().getAbsolutePath());
        assertTrue(t.output().stream().anyMatch(l -> l.contains("no MPI binding")), t.output().toString());
        String address = t.address(); // the JVM listens on a new port once the read detached
        Executable read = () -> MpiLens.attach(address);
        RegistryNotFoundException e = org.junit.jupiter.api.Assertions.assertThrows(RegistryNotFoundException.class,
                read);
        assertTrue(e.getMessage().startsWith("no mpilens registry in " + address), e.getMessage());
    }

    @Test
    void anUnreachableRankIsReportedWithoutHidingTheOthers() throws Exception {
        TargetJvm t = launch(RegistryTarget.class);
        String closed = "127.0.0.1:" + closedPort();
        long start = System.nanoTime();
        JobSnapshot job = snapshot(false, closed, t.address());
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos());
        assertEquals(1, job.ranks().size());
        assertEquals(List.of(closed), job.failures().stream().map(JobSnapshot.Failure::address).toList());
        assertTrue(job.failures().get(0).message().startsWith(closed + " did not answer within 5 s (connection refused)"),
                job.failures().get(0).message());
    }

    @Test
    void aRankThatDisappearsAfterTheSnapshotDoesNotMatterToIt() throws Exception {
        TargetJvm a = launch(RegistryTarget.class);
        TargetJvm b = launch(RegistryTarget.class);
        String aFirst = a.address();
        String bFirst = b.address();
        JobSnapshot job = snapshot(false, aFirst, bFirst);
        assertEquals(2, job.ranks().size());
        b.kill();
        assertEquals(2, job.processes().size(), "a snapshot is immutable");
        JobSnapshot after = snapshot(false, a.awaitRelisten(aFirst), b.address());
        assertEquals(1, after.ranks().size());
        assertEquals(b.address(), after.failures().get(0).address());
    }

    /** A stopped rank's kernel still accepts the connection, but nothing answers the JDWP handshake. */
    @Test
    void aStoppedRankIsGivenUpAtItsDeadlineWhileTheOthersAreRead() throws Exception {
        TargetJvm stopped = launch(RegistryTarget.class);
        TargetJvm running = launch(RegistryTarget.class);
        signal("STOP", stopped.pid());
        try {
            long start = System.nanoTime();
            JobSnapshot job = new JobSnapshotter(Duration.ofSeconds(1), false)
                    .snapshot(List.of(JdwpAddress.parse(stopped.address()), JdwpAddress.parse(running.address())));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 3_000, millis + " ms");
            assertEquals(1, job.ranks().size());
            assertEquals(running.pid(), job.ranks().get(0).process().pid());
            assertEquals(stopped.address() + " did not answer within 1 s: is the rank stopped (SIGSTOP), or is "
                    + stopped.address() + " not a JDWP port? Try a longer --timeout", job.failures().get(0).message());
        } finally {
            signal("CONT", stopped.pid());
        }
    }

    private static void signal(String name, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start().waitFor());
    }
}
