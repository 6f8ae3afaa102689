package io.mpilens.headless.jdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.observe.JobSnapshotter;
import io.mpilens.headless.testing.RegistryTarget;
import io.mpilens.headless.testing.TargetJvm;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What {@code mpilens mcp} relies on: a JVM's connection kept between reads, and let go when it must be. */
class HeldConnectionsTest {
    private TargetJvm target;
    private HeldConnections held;

    @AfterEach
    void stop() {
        if (held != null) held.close();
        if (target != null) target.close();
    }

    private static JobSnapshot read(String address) {
        return new JobSnapshotter(Duration.ofSeconds(10), false).snapshot(List.of(JdwpAddress.parse(address)));
    }

    @Test
    void secondReadOfTheSameJvmReusesTheFirstConnection() throws Exception {
        target = TargetJvm.launch(RegistryTarget.class);
        held = HeldConnections.install(Duration.ofMinutes(10));
        JobSnapshot first = read(target.address());
        JobSnapshot second = read(target.address());
        assertTrue(first.complete() && second.complete(), first.failures() + " " + second.failures());
        assertEquals(first.ranks().get(0).process().handles().size(), second.ranks().get(0).process().handles().size());
        assertEquals(new HeldConnections.Counts(1, 1, 0, 1), held.counts());
    }

    @Test
    void aJvmThatWentAwayIsReportedAndItsConnectionDropped() throws Exception {
        target = TargetJvm.launch(RegistryTarget.class);
        held = HeldConnections.install(Duration.ofMinutes(10));
        String address = target.address();
        assertTrue(read(address).complete());
        target.kill();
        JobSnapshot after = read(address);
        assertFalse(after.complete(), "a dead JVM cannot be read");
        assertTrue(after.failures().get(0).message().contains(address), after.failures().toString());
        HeldConnections.Counts c = held.counts();
        assertEquals(1, c.dropped(), c.toString());
        assertEquals(0, c.open(), c.toString());
    }

    @Test
    void anIdleConnectionIsClosedSoTheJvmListensForOthersAgain() throws Exception {
        target = TargetJvm.launch(RegistryTarget.class);
        held = HeldConnections.install(Duration.ofMillis(200));
        String address = target.address();
        assertTrue(read(address).complete());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (held.counts().open() > 0 && System.nanoTime() < deadline) Thread.sleep(50);
        assertEquals(0, held.counts().open(), "closed after 200 ms unused: " + held.counts());
        String next = target.awaitRelisten(address); // JDWP (address=...:0) listens on a new port once detached
        assertNotEquals(address, next);
        assertTrue(read(next).complete(), "another reader can attach now");
        assertEquals(2, held.counts().opened());
    }
}
