package io.mpilens.headless.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jdi.ClassType;
import com.sun.jdi.LongValue;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import io.mpilens.headless.jdi.JdiTargetReader;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.testing.TargetJvm;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The share in front of a real JVM (not MPI: {@link ShareTarget}), with JDI clients attached to
 * its port as debuggers attach: each sees its own events only, one client's leaving (Dispose or
 * a dropped socket while stopped) clears only its breakpoints and resumes only what it suspended,
 * and the JVM is held all along (its listener never moves).
 */
class RankShareTest {
    /** Generous: waits end as soon as the awaited thing happens; only a broken share waits this long. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    private TargetJvm jvm;
    private RankShare share;

    @BeforeEach
    void start() throws Exception {
        jvm = TargetJvm.launch(ShareTarget.class);
        share = RankShare.open(JdwpAddress.parse(jvm.address()), 0, Duration.ofSeconds(20), "test-rank");
    }

    @AfterEach
    void stop() {
        if (share != null) share.close();
        if (jvm != null) jvm.close();
    }

    private JdiTargetReader client() {
        return JdiTargetReader.attach(share.address(), Duration.ofSeconds(20));
    }

    private static ClassType target(VirtualMachine vm) {
        return (ClassType) vm.classesByName(ShareTarget.class.getName()).get(0);
    }

    private static BreakpointRequest breakpoint(VirtualMachine vm, String method) {
        BreakpointRequest r = vm.eventRequestManager().createBreakpointRequest(target(vm).methodsByName(method).get(0).location());
        r.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        r.enable();
        return r;
    }

    private static long field(VirtualMachine vm, String name) {
        ClassType t = target(vm);
        return ((LongValue) t.getValue(t.fieldByName(name))).value();
    }

    private static EventSet next(VirtualMachine vm) throws InterruptedException {
        EventSet s = vm.eventQueue().remove(WAIT.toMillis());
        assertNotNull(s, "an event within " + WAIT);
        return s;
    }

    /** The next event set of {@code vm}, resuming {@code other}'s events meanwhile. */
    private static EventSet next(VirtualMachine vm, VirtualMachine other) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            EventSet s = vm.eventQueue().remove(50);
            if (s != null) return s;
            EventSet o = other.eventQueue().remove(1);
            if (o != null) o.resume();
        }
        throw new AssertionError("no event within " + WAIT);
    }

    @Test
    void twoDebuggersEachSeeOnlyTheEventsOfTheirOwnBreakpoints() throws Exception {
        try (JdiTargetReader a = client(); JdiTargetReader b = client()) {
            VirtualMachine va = a.virtualMachine(), vb = b.virtualMachine();
            BreakpointRequest onTick = breakpoint(va, "tick");
            BreakpointRequest onTock = breakpoint(vb, "tock");
            for (int round = 0; round < 3; round++) {
                for (VirtualMachine v : new VirtualMachine[] {va, vb}) {
                    EventSet s = next(v);
                    for (Event e : s) {
                        assertTrue(e instanceof BreakpointEvent, "only breakpoints: " + e);
                        BreakpointEvent bp = (BreakpointEvent) e;
                        assertSame(v == va ? onTick : onTock, bp.request(), "its own request");
                        assertEquals(v == va ? "tick" : "tock", bp.location().method().name());
                    }
                    s.resume();
                }
            }
            assertEquals(2, share.vm().clients());
        }
    }

    @Test
    void aDebuggerThatDisposesLeavesTheJvmHeldAndOthersReading() throws Exception {
        try (JdiTargetReader b = client()) {
            long base = field(b.virtualMachine(), "ticks") >= 0 ? share.vm().ownedRequests() : -1; // b's own (JDI's internal ones)
            try (JdiTargetReader a = client()) {
                breakpoint(a.virtualMachine(), "tick");
                next(a.virtualMachine()); // stopped at the breakpoint; dispose resumes it
            }
            long before = field(b.virtualMachine(), "ticks");
            awaitTicksPast(b.virtualMachine(), before);
            assertEquals(base, share.vm().ownedRequests(), "the disposed client's requests were cleared, b's kept");
            try (JdiTargetReader c = client()) {
                assertTrue(c.virtualMachine().allThreads().size() > 1, "a third client attaches at the same port");
            }
            assertTrue(jvm.output().stream().filter(l -> l.contains("Listening for transport")).count() == 1,
                    "the JVM never listened again: " + jvm.output());
        }
    }

    @Test
    void aDebuggerKilledWhileStoppedLosesItsBreakpointsAndTheJvmGoesOn() throws Exception {
        try (JdiTargetReader b = client(); Forwarder cut = new Forwarder(share.address().port())) {
            BreakpointRequest mine = breakpoint(b.virtualMachine(), "tock");
            int bOwns = field(b.virtualMachine(), "ticks") >= 0 ? share.vm().ownedRequests() : -1; // with JDI's internal ones
            JdiTargetReader a = JdiTargetReader.attach(new JdwpAddress("127.0.0.1", cut.port()), Duration.ofSeconds(20));
            try {
                breakpoint(a.virtualMachine(), "tick");
                // b's breakpoint may stop the JVM first: b resumes, as a user would, until a stops at its own
                EventSet stopped = next(a.virtualMachine(), b.virtualMachine());
                assertTrue(stopped.iterator().next() instanceof BreakpointEvent);
                long atStop = field(b.virtualMachine(), "ticks");
                Thread.sleep(100);
                assertEquals(atStop, field(b.virtualMachine(), "ticks"), "stopped while the debugger holds it");
                assertTrue(share.vm().ownedRequests() > bOwns, "a's breakpoint is in the JVM");
                cut.cut(); // the debugger is gone without a word
                // b's own breakpoint stops it, and only there, once the killed debugger's suspension is undone
                EventSet s = next(b.virtualMachine());
                BreakpointEvent e = (BreakpointEvent) s.iterator().next();
                assertSame(mine, e.request());
                assertEquals(bOwns, share.vm().ownedRequests(), "only b's requests are left in the JVM");
                s.resume();
                mine.disable();
                awaitTicksPast(b.virtualMachine(), atStop);
            } finally {
                a.close();
            }
        }
    }

    private static void awaitTicksPast(VirtualMachine vm, long before) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (field(vm, "ticks") <= before && System.nanoTime() < deadline) Thread.sleep(20);
        assertTrue(field(vm, "ticks") > before, "the JVM runs on");
    }
}
