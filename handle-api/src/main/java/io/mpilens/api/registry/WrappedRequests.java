package io.mpilens.api.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The requests that live in their wrappers: read from the agent's request ring
 * ({@link RegistryLayout#REQUEST_RING}) and its overflow, a few array reads whatever the size of
 * the heap. A slot that changed between two reads (a request created meanwhile) is not shown; an
 * overflow that changed while it was read is read again; a request in both (moved while read) is
 * taken from the overflow.
 */
final class WrappedRequests {
    private final TargetReader reader;

    WrappedRequests(TargetReader reader) {
        this.reader = reader;
    }

    /** A pending request of the ring. */
    static final class Request {
        long id, peerTag, holder;
        String call;
    }

    private static final List<String> RING_FIELDS = List.of(REQUEST_RING_SLOTS, REQUEST_RING_CALLS);
    private static final List<String> OVERFLOW_FIELDS = List.of(REQUEST_OVERFLOW_STAMP, REQUEST_OVERFLOW_COUNT,
            REQUEST_OVERFLOW, REQUEST_OVERFLOW_LOST);

    /** Requests the last read could not show: the overflow was full when they were moved there. */
    long lost;

    /** The pending requests of the ring, in creation order; empty when requests are all in tables. */
    List<Request> read(Map<String, Object> f) {
        if (!(f.get(REQUEST_RING) instanceof TargetObject)) return List.of();
        TargetObject ring = (TargetObject) f.get(REQUEST_RING);
        Map<String, Object> r = reader.fields(ring, RING_FIELDS);
        TargetObject slotArray = (TargetObject) r.get(REQUEST_RING_SLOTS);
        int n = reader.arrayLength(slotArray);
        // twice: a slot that changed between the two reads is a request created meanwhile (not shown)
        long[] slots = reader.longs(slotArray, 0, n);
        long[] again = reader.longs(slotArray, 0, n);
        TargetObject callArray = (TargetObject) r.get(REQUEST_RING_CALLS);
        String[] calls = new String[callArray == null ? 0 : reader.arrayLength(callArray)];
        TargetObject[] callObjects = calls.length == 0 ? new TargetObject[0] : reader.objects(callArray, 0, calls.length);
        for (int i = 0; i < calls.length; i++) calls[i] = callObjects[i] == null ? null : reader.string(callObjects[i]);

        Map<Long, Request> bySeq = new HashMap<>();
        // the overflow first: a request there is never also taken from a slot it was moved out of
        for (int attempt = 0; attempt < 3; attempt++) {
            Map<String, Object> o = reader.fields(ring, OVERFLOW_FIELDS);
            int stamp = asInt(o.get(REQUEST_OVERFLOW_STAMP));
            int count = asInt(o.get(REQUEST_OVERFLOW_COUNT));
            lost = o.get(REQUEST_OVERFLOW_LOST) instanceof Number ? ((Number) o.get(REQUEST_OVERFLOW_LOST)).longValue() : 0;
            if (count == 0 || !(o.get(REQUEST_OVERFLOW) instanceof TargetObject)) break;
            if ((stamp & 1) != 0) continue;
            TargetObject array = (TargetObject) o.get(REQUEST_OVERFLOW);
            long[] moved = reader.longs(array, 0, Math.min(count * RING_STRIDE, reader.arrayLength(array)));
            if (asInt(reader.fields(ring, List.of(REQUEST_OVERFLOW_STAMP)).get(REQUEST_OVERFLOW_STAMP)) != stamp) continue;
            for (int b = 0; b + RING_STRIDE <= moved.length; b += RING_STRIDE) {
                if (moved[b] > 0) bySeq.put(moved[b], request(moved, b, calls));
            }
            break;
        }
        for (int b = 0; b + RING_STRIDE <= n; b += RING_STRIDE) {
            long s = slots[b];
            if (s <= 0 || slots[b + 1] == s) continue;
            if (again[b] != s || again[b + 2] != slots[b + 2] || again[b + 3] != slots[b + 3]) continue;
            bySeq.putIfAbsent(s, request(slots, b, calls));
        }
        List<Request> out = new ArrayList<>(bySeq.values());
        // in creation order (live and dump agree)
        out.sort(Comparator.comparingLong((Request w) -> w.id));
        for (Request w : out) w.id = RegistryDecoder.ringRequestId(w.id);
        return out;
    }

    private static Request request(long[] slots, int b, String[] calls) {
        Request w = new Request();
        w.id = slots[b]; // the sequence for now; the id in read()
        w.peerTag = slots[b + 2];
        w.holder = slots[b + 3] & RING_HOLDER_MASK;
        int call = (int) (slots[b + 3] >>> RING_CALL_SHIFT) - 1;
        w.call = call >= 0 && call < calls.length ? calls[call] : null;
        return w;
    }

    private static int asInt(Object v) {
        return v instanceof Number ? ((Number) v).intValue() : 0;
    }
}
