package io.mpilens.headless.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jdi.ClassType;
import com.sun.jdi.LongValue;
import com.sun.jdi.ObjectReference;
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
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The share in front of a real JVM (not MPI: {@link ShareTarget}), with JDI clients attached to
 * its port as debuggers attach: each sees its own events only, one client's leaving (Dispose or
 * a dropped socket while stopped) clears only its breakpoints and resumes only what it suspended,
 * and the JVM is held all along (its listener never moves). A client's {@code HoldEvents} holds
 * its own events only and goes with it; the objects it pinned ({@code DisableCollection}) are
 * collectable once it leaves, unless another client pinned them too.
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

    @Test
    void aClientsHeldEventsWaitForItAloneAndTheirSuspensionsGoWhenItIsDropped() throws Exception {
        try (JdiTargetReader b = client(); RawJdwp a = new RawJdwp(share.address().port())) {
            VirtualMachine vb = b.virtualMachine();
            long base = field(vb, "ticks") >= 0 ? share.vm().ownedRequests() : -1; // b's own (JDI's internal ones)
            String target = ShareTarget.class.getName();
            a.ask(SharedVm.VM, SharedVm.VM_HOLD_EVENTS, new byte[0]);
            int exits = a.request(RawJdwp.METHOD_EXIT, RawJdwp.SUSPEND_NONE, target);
            // a holds its events: b's come to b as ever
            BreakpointRequest onTock = breakpoint(vb, "tock");
            for (int i = 0; i < 2; i++) {
                EventSet s = next(vb);
                assertSame(onTock, s.iterator().next().request(), "b's own breakpoint, while a holds its events");
                s.resume();
            }
            onTock.disable();
            assertNull(a.event(Duration.ofMillis(300)), "a holds its events: none sent to it");
            a.ask(SharedVm.VM, SharedVm.VM_RELEASE_EVENTS, new byte[0]);
            JdwpPacket released = a.event(WAIT);
            assertNotNull(released, "a's held events, once it released them");
            for (int[] e : RawJdwp.kindsAndRequests(released)) {
                assertEquals(RawJdwp.METHOD_EXIT, e[0]);
                assertEquals(exits, e[1], "a's own request");
            }
            a.clear(RawJdwp.METHOD_EXIT, exits);
            while (a.event(Duration.ofMillis(200)) != null) {
                // the rest of what it held, and what came before the request was cleared
            }

            // held events that suspended the JVM, then a dropped: their suspensions go with it
            a.ask(SharedVm.VM, SharedVm.VM_HOLD_EVENTS, new byte[0]);
            a.request(RawJdwp.METHOD_ENTRY, RawJdwp.SUSPEND_ALL, target);
            long stoppedAt = awaitStopped(vb);
            assertNull(a.event(Duration.ofMillis(300)), "the event that stopped the JVM is held for a");
            assertEquals(stoppedAt, field(vb, "ticks"), "stopped while a holds the event");
            a.close();
            awaitTicksPast(vb, stoppedAt);
            awaitTrue(() -> share.vm().ownedRequests() == base, "a's requests cleared, b's kept");
        }
    }

    @Test
    void objectsAClientPinnedAreCollectableOnceItLeavesUnlessAnotherClientPinnedThem() throws Exception {
        try (JdiTargetReader b = client(); Forwarder cut = new Forwarder(share.address().port())) {
            VirtualMachine vb = b.virtualMachine();
            JdiTargetReader a = JdiTargetReader.attach(new JdwpAddress("127.0.0.1", cut.port()), Duration.ofSeconds(20));
            try {
                VirtualMachine va = a.virtualMachine();
                ObjectReference one = object(va, "pinnedByOne"), twoByA = object(va, "pinnedByTwo");
                one.disableCollection();
                twoByA.disableCollection();
                ObjectReference oneSeenByB = object(vb, "pinnedByOne"), two = object(vb, "pinnedByTwo");
                two.disableCollection(); // pinned by a and b: the JVM (JDK 17's counts pins) must end with none once both let go
                ClassType t = target(vb);
                t.setValue(t.fieldByName("pinnedByOne"), null);
                t.setValue(t.fieldByName("pinnedByTwo"), null);
                t.setValue(t.fieldByName("collect"), vb.mirrorOf(true));
                awaitCollections(vb, 3);
                assertFalse(oneSeenByB.isCollected(), "pinned by a");
                assertFalse(two.isCollected(), "pinned by a and b");

                cut.cut(); // a is gone without a word
                awaitTrue(oneSeenByB::isCollected, "what a alone pinned is collected once it is gone");
                awaitCollections(vb, 3);
                assertFalse(two.isCollected(), "b's pin stays");
                two.enableCollection();
                awaitTrue(two::isCollected, "collected once b unpins it: nothing of a's pin is left");

                try (JdiTargetReader c = client()) {
                    ObjectReference pinned = object(c.virtualMachine(), "pinnedThenDisposed");
                    ObjectReference seenByB = object(vb, "pinnedThenDisposed");
                    pinned.disableCollection();
                    t.setValue(t.fieldByName("pinnedThenDisposed"), null);
                    awaitCollections(vb, 3);
                    assertFalse(seenByB.isCollected(), "pinned by c");
                    c.close(); // Dispose
                    awaitTrue(seenByB::isCollected, "what c pinned is collected once it disposed");
                }
            } finally {
                a.close();
            }
        }
    }

    private static ObjectReference object(VirtualMachine vm, String name) {
        ClassType t = target(vm);
        return (ObjectReference) t.getValue(t.fieldByName(name));
    }

    /** Waits until the JVM ran {@code n} more collections. */
    private static void awaitCollections(VirtualMachine vm, int n) throws InterruptedException {
        long from = field(vm, "collections");
        awaitTrue(() -> field(vm, "collections") >= from + n, n + " more collections");
    }

    /** Waits until the JVM's ticks stand still (it is suspended); returns them. */
    private static long awaitStopped(VirtualMachine vm) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            long before = field(vm, "ticks");
            Thread.sleep(200);
            if (field(vm, "ticks") == before) return before;
        }
        throw new AssertionError("the JVM did not stop within " + WAIT);
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) Thread.sleep(20);
        assertTrue(condition.getAsBoolean(), what);
    }

    private static void awaitTicksPast(VirtualMachine vm, long before) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (field(vm, "ticks") <= before && System.nanoTime() < deadline) Thread.sleep(20);
        assertTrue(field(vm, "ticks") > before, "the JVM runs on");
    }
}
