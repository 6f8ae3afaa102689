package io.mpilens.headless.share;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The JVM's {@code Event.Composite} (64/100) taken apart into its events and put together again
 * per client: each event's payload is walked with the JVM's {@link IdSizes} to find where the
 * next begins, since events carry no length of their own.
 */
public final class CompositeEvents {
    public static final int COMMAND_SET = 64;
    public static final int COMMAND = 100;

    public static final int SUSPEND_NONE = 0;
    public static final int SUSPEND_EVENT_THREAD = 1;
    public static final int SUSPEND_ALL = 2;

    static final int SINGLE_STEP = 1, BREAKPOINT = 2, FRAME_POP = 3, EXCEPTION = 4, USER_DEFINED = 5,
            THREAD_START = 6, THREAD_DEATH = 7, CLASS_PREPARE = 8, CLASS_UNLOAD = 9, CLASS_LOAD = 10,
            FIELD_ACCESS = 20, FIELD_MODIFICATION = 21, EXCEPTION_CATCH = 30, METHOD_ENTRY = 40, METHOD_EXIT = 41,
            METHOD_EXIT_WITH_RETURN_VALUE = 42, MONITOR_CONTENDED_ENTER = 43, MONITOR_CONTENDED_ENTERED = 44,
            MONITOR_WAIT = 45, MONITOR_WAITED = 46, VM_START = 90, VM_DEATH = 99;

    private CompositeEvents() {
    }

    /**
     * One event of a composite: its kind, the request that asked for it (0: the JVM's own
     * VM_START/VM_DEATH, which every client gets), its thread (-1 when the kind has none) and
     * its bytes as they came, kind and request id included.
     */
    public record Event(int kind, int requestId, long thread, byte[] bytes) {
        @Override
        public String toString() {
            return "event kind " + kind + " request " + requestId + (thread < 0 ? "" : " thread " + thread);
        }
    }

    public record Composite(int suspendPolicy, List<Event> events) {
        /** The thread the events happened in, -1 when none names one. */
        public long thread() {
            for (Event e : events) if (e.thread() >= 0) return e.thread();
            return -1;
        }
    }

    public static Composite parse(byte[] data, IdSizes sizes) {
        JdwpData d = new JdwpData(data, sizes);
        try {
            int policy = d.u1();
            int n = d.int4();
            if (n < 0) throw new IllegalArgumentException("negative event count " + n);
            List<Event> events = new ArrayList<>(Math.min(n, 64));
            for (int i = 0; i < n; i++) {
                int start = d.position();
                int kind = d.u1();
                int requestId = d.int4();
                long thread = skipPayload(kind, d);
                events.add(new Event(kind, requestId, thread, Arrays.copyOfRange(data, start, d.position())));
            }
            if (d.remaining() != 0) throw new IllegalArgumentException(d.remaining() + " bytes after the last event");
            return new Composite(policy, events);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("composite event packet ends inside an event", e);
        }
    }

    /** Walks past one event's payload; returns its thread, -1 when the kind has none. */
    private static long skipPayload(int kind, JdwpData d) {
        switch (kind) {
            case VM_DEATH:
                return -1;
            case CLASS_UNLOAD:
                d.skipString();
                return -1;
            case VM_START, THREAD_START, THREAD_DEATH:
                return d.objectId();
            case SINGLE_STEP, BREAKPOINT, METHOD_ENTRY, METHOD_EXIT, FRAME_POP: {
                long t = d.objectId();
                d.skipLocation();
                return t;
            }
            case METHOD_EXIT_WITH_RETURN_VALUE: {
                long t = d.objectId();
                d.skipLocation();
                d.skipValue();
                return t;
            }
            case MONITOR_CONTENDED_ENTER, MONITOR_CONTENDED_ENTERED: {
                long t = d.objectId();
                d.skipTaggedObject();
                d.skipLocation();
                return t;
            }
            case MONITOR_WAIT: {
                long t = d.objectId();
                d.skipTaggedObject();
                d.skipLocation();
                d.skip(8); // timeout
                return t;
            }
            case MONITOR_WAITED: {
                long t = d.objectId();
                d.skipTaggedObject();
                d.skipLocation();
                d.skip(1); // timed_out
                return t;
            }
            case EXCEPTION: {
                long t = d.objectId();
                d.skipLocation();
                d.skipTaggedObject();
                d.skipLocation(); // catch location
                return t;
            }
            case CLASS_PREPARE: {
                long t = d.objectId();
                d.skip(1); // refTypeTag
                d.skipReferenceType();
                d.skipString(); // signature
                d.skip(4); // status
                return t;
            }
            case FIELD_ACCESS: {
                long t = d.objectId();
                d.skipLocation();
                d.skip(1); // refTypeTag
                d.skipReferenceType();
                d.skipField();
                d.skipTaggedObject();
                return t;
            }
            case FIELD_MODIFICATION: {
                long t = d.objectId();
                d.skipLocation();
                d.skip(1);
                d.skipReferenceType();
                d.skipField();
                d.skipTaggedObject();
                d.skipValue(); // valueToBe
                return t;
            }
            default:
                throw new IllegalArgumentException("event kind " + kind + " cannot be taken apart (not in the JDWP"
                        + " specification's Event.Composite)");
        }
    }

    /**
     * The composite's events per receiver, each list as one composite of the same suspend policy,
     * in the order the events came. An event of request 0 goes to each of {@code everyone}; one
     * whose request has no owner ({@code owner} answers null: a request of a client that left)
     * to nobody.
     */
    public static <C> Map<C, byte[]> split(Composite c, IntFunction<C> owner, List<C> everyone) {
        Map<C, List<Event>> per = new LinkedHashMap<>();
        for (Event e : c.events()) {
            if (e.requestId() == 0) {
                for (C each : everyone) per.computeIfAbsent(each, k -> new ArrayList<>()).add(e);
                continue;
            }
            C o = owner.apply(e.requestId());
            if (o != null) per.computeIfAbsent(o, k -> new ArrayList<>()).add(e);
        }
        Map<C, byte[]> out = new LinkedHashMap<>();
        for (Map.Entry<C, List<Event>> e : per.entrySet()) out.put(e.getKey(), encode(c.suspendPolicy(), e.getValue()));
        return out;
    }

    public static byte[] encode(int suspendPolicy, List<Event> events) {
        int size = 5;
        for (Event e : events) size += e.bytes().length;
        ByteBuffer b = ByteBuffer.allocate(size).put((byte) suspendPolicy).putInt(events.size());
        for (Event e : events) b.put(e.bytes());
        return b.array();
    }
}
