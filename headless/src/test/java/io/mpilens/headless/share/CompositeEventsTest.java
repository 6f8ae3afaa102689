package io.mpilens.headless.share;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A JVM's composite event packet split per client: each event to the owner of its request, VM
 * death (request 0) to everyone, the suspend policy kept, events whose request nobody owns
 * dropped; payloads are walked with the JVM's id sizes (4-byte ids here, 8 on HotSpot).
 */
class CompositeEventsTest {
    private static final IdSizes SMALL = new IdSizes(4, 4, 4, 4, 4);

    /** Builds event bytes: kind, request id, then the parts given (ints of the id size, or raw bytes). */
    private static final class Ev {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();

        Ev(int kind, int request) {
            b.write(kind);
            i4(request);
        }

        Ev i4(int v) {
            b.writeBytes(ByteBuffer.allocate(4).putInt(v).array());
            return this;
        }

        Ev i8(long v) {
            b.writeBytes(ByteBuffer.allocate(8).putLong(v).array());
            return this;
        }

        Ev u1(int v) {
            b.write(v);
            return this;
        }

        Ev location() {
            return u1(1).i4(0x100).i4(0x200).i8(42); // class type, class id, method id, index
        }

        Ev string(String s) {
            byte[] x = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            i4(x.length);
            b.writeBytes(x);
            return this;
        }

        byte[] bytes() {
            return b.toByteArray();
        }
    }

    private static byte[] composite(int policy, byte[]... events) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(policy);
        b.writeBytes(ByteBuffer.allocate(4).putInt(events.length).array());
        for (byte[] e : events) b.writeBytes(e);
        return b.toByteArray();
    }

    @Test
    void eachEventGoesToTheOwnerOfItsRequestAndVmDeathToEveryone() {
        byte[] breakpoint = new Ev(CompositeEvents.BREAKPOINT, 7).i4(0x33).location().bytes();
        byte[] step = new Ev(CompositeEvents.SINGLE_STEP, 8).i4(0x33).location().bytes();
        byte[] death = new Ev(CompositeEvents.VM_DEATH, 0).bytes();
        CompositeEvents.Composite c = CompositeEvents.parse(composite(CompositeEvents.SUSPEND_ALL, breakpoint, step, death), SMALL);
        assertEquals(0x33, c.thread());
        Map<String, byte[]> per = CompositeEvents.split(c, id -> id == 7 ? "jdb" : id == 8 ? "idea" : null, List.of("jdb", "idea", "mpilens"));
        assertEquals(List.of("jdb", "idea", "mpilens"), List.copyOf(per.keySet()));
        assertArrayEquals(composite(CompositeEvents.SUSPEND_ALL, breakpoint, death), per.get("jdb"));
        assertArrayEquals(composite(CompositeEvents.SUSPEND_ALL, step, death), per.get("idea"));
        assertArrayEquals(composite(CompositeEvents.SUSPEND_ALL, death), per.get("mpilens"));
    }

    @Test
    void anEventOfARequestNobodyOwnsGoesNowhere() {
        byte[] breakpoint = new Ev(CompositeEvents.BREAKPOINT, 9).i4(0x33).location().bytes();
        CompositeEvents.Composite c = CompositeEvents.parse(composite(CompositeEvents.SUSPEND_EVENT_THREAD, breakpoint), SMALL);
        assertEquals(Map.of(), CompositeEvents.split(c, id -> null, List.of("jdb")));
    }

    @Test
    void everyKindAJvmSendsIsWalkedToItsEnd() {
        byte[][] events = {
            new Ev(CompositeEvents.VM_START, 0).i4(1).bytes(),
            new Ev(CompositeEvents.THREAD_START, 1).i4(2).bytes(),
            new Ev(CompositeEvents.THREAD_DEATH, 2).i4(2).bytes(),
            new Ev(CompositeEvents.CLASS_PREPARE, 3).i4(1).u1(1).i4(0x400).string("Lio/mpilens/X;").i4(7).bytes(),
            new Ev(CompositeEvents.CLASS_UNLOAD, 4).string("Lio/mpilens/Y;").bytes(),
            new Ev(CompositeEvents.METHOD_ENTRY, 5).i4(1).location().bytes(),
            new Ev(CompositeEvents.METHOD_EXIT_WITH_RETURN_VALUE, 6).i4(1).location().u1('J').i8(5).bytes(),
            new Ev(CompositeEvents.METHOD_EXIT_WITH_RETURN_VALUE, 6).i4(1).location().u1('V').bytes(),
            new Ev(CompositeEvents.EXCEPTION, 7).i4(1).location().u1('L').i4(0x500).location().bytes(),
            new Ev(CompositeEvents.FIELD_ACCESS, 8).i4(1).location().u1(1).i4(0x400).i4(0x9).u1('L').i4(0x600).bytes(),
            new Ev(CompositeEvents.FIELD_MODIFICATION, 9).i4(1).location().u1(1).i4(0x400).i4(0x9).u1('L').i4(0x600).u1('I').i4(3).bytes(),
            new Ev(CompositeEvents.MONITOR_CONTENDED_ENTER, 10).i4(1).u1('L').i4(0x700).location().bytes(),
            new Ev(CompositeEvents.MONITOR_WAIT, 11).i4(1).u1('L').i4(0x700).location().i8(1000).bytes(),
            new Ev(CompositeEvents.MONITOR_WAITED, 12).i4(1).u1('L').i4(0x700).location().u1(1).bytes(),
            new Ev(CompositeEvents.VM_DEATH, 0).bytes(),
        };
        CompositeEvents.Composite c = CompositeEvents.parse(composite(CompositeEvents.SUSPEND_NONE, events), SMALL);
        assertEquals(events.length, c.events().size());
        for (int i = 0; i < events.length; i++) assertArrayEquals(events[i], c.events().get(i).bytes(), "event " + i);
        assertEquals(List.of(1L, 2L, 2L, 1L, -1L), c.events().subList(0, 5).stream().map(CompositeEvents.Event::thread).toList());
        assertArrayEquals(composite(CompositeEvents.SUSPEND_NONE, events), CompositeEvents.encode(CompositeEvents.SUSPEND_NONE, c.events()));
    }

    @Test
    void eightByteIdsAsOnHotSpot() {
        byte[] breakpoint = new Ev(CompositeEvents.BREAKPOINT, 7).i8(0x1122334455L).u1(1).i8(1).i8(2).i8(3).bytes();
        CompositeEvents.Composite c = CompositeEvents.parse(composite(CompositeEvents.SUSPEND_ALL, breakpoint), IdSizes.HOTSPOT);
        assertEquals(0x1122334455L, c.thread());
        assertThrows(IllegalArgumentException.class, () -> CompositeEvents.parse(composite(CompositeEvents.SUSPEND_ALL, breakpoint), SMALL),
                "walked with the wrong sizes, bytes are left over");
    }

    @Test
    void aKindOutsideTheSpecificationIsRefusedNotGuessed() {
        byte[] odd = new Ev(77, 1).i4(1).bytes();
        assertThrows(IllegalArgumentException.class, () -> CompositeEvents.parse(composite(0, odd), SMALL));
    }
}
