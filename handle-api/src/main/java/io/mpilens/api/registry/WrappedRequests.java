package io.mpilens.api.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The requests that live in their wrappers: read from the agent's request ring
 * ({@link RegistryLayout#REQUEST_RING}) and its overflow, a few array reads whatever the size of
 * the heap. A slot whose sequence changed while it was read (a request created meanwhile) is not
 * shown; an overflow that changed while it was read is read again.
 */
final class WrappedRequests {
    private final TargetReader reader;

    WrappedRequests(TargetReader reader) {
        this.reader = reader;
    }

    /** A pending request of the ring. */
    static final class Request {
        long id, peerTag, holder, handle;
        String call;
    }

    private static final List<String> RING_FIELDS = List.of(REQUEST_RING_SEQ, REQUEST_RING_DONE, REQUEST_RING_CALL,
            REQUEST_RING_PEER_TAG, REQUEST_RING_HOLDER, REQUEST_RING_HANDLE);
    private static final List<String> OVERFLOW_FIELDS = List.of(REQUEST_OVERFLOW_STAMP, REQUEST_OVERFLOW_COUNT,
            REQUEST_OVERFLOW_SEQ, REQUEST_OVERFLOW_CALL, REQUEST_OVERFLOW_PEER_TAG, REQUEST_OVERFLOW_HOLDER,
            REQUEST_OVERFLOW_HANDLE);

    /** The pending requests of the ring, in creation order; empty when requests are all in tables. */
    List<Request> read(Map<String, Object> f) {
        if (!(f.get(REQUEST_RING) instanceof TargetObject)) return List.of();
        TargetObject ring = (TargetObject) f.get(REQUEST_RING);
        Map<TargetObject, String> calls = new HashMap<>();
        List<Request> out = new ArrayList<>();
        Map<String, Object> r = reader.fields(ring, RING_FIELDS);
        TargetObject seqArray = (TargetObject) r.get(REQUEST_RING_SEQ);
        int n = reader.arrayLength(seqArray);
        long[] seq = reader.longs(seqArray, 0, n);
        TargetObject[] call = reader.objects((TargetObject) r.get(REQUEST_RING_CALL), 0, n);
        long[] peerTag = reader.longs((TargetObject) r.get(REQUEST_RING_PEER_TAG), 0, n);
        long[] holder = reader.longs((TargetObject) r.get(REQUEST_RING_HOLDER), 0, n);
        long[] handle = reader.longs((TargetObject) r.get(REQUEST_RING_HANDLE), 0, n);
        long[] done = reader.longs((TargetObject) r.get(REQUEST_RING_DONE), 0, n);
        long[] seqAfter = reader.longs(seqArray, 0, n);
        for (int i = 0; i < n; i++) {
            long s = seq[i];
            if (s <= 0 || s != seqAfter[i] || done[i] == s) continue;
            out.add(request(s, call[i], peerTag[i], holder[i], handle[i], calls));
        }
        // the overflow: requests still pending when their slot came round again
        for (int attempt = 0; attempt < 3; attempt++) {
            Map<String, Object> o = reader.fields(ring, OVERFLOW_FIELDS);
            int stamp = asInt(o.get(REQUEST_OVERFLOW_STAMP));
            int count = asInt(o.get(REQUEST_OVERFLOW_COUNT));
            if (count == 0) break;
            if ((stamp & 1) != 0) continue;
            long[] os = reader.longs((TargetObject) o.get(REQUEST_OVERFLOW_SEQ), 0, count);
            TargetObject[] oc = reader.objects((TargetObject) o.get(REQUEST_OVERFLOW_CALL), 0, count);
            long[] opt = reader.longs((TargetObject) o.get(REQUEST_OVERFLOW_PEER_TAG), 0, count);
            long[] oh = reader.longs((TargetObject) o.get(REQUEST_OVERFLOW_HOLDER), 0, count);
            long[] ohandle = reader.longs((TargetObject) o.get(REQUEST_OVERFLOW_HANDLE), 0, count);
            if (asInt(reader.fields(ring, List.of(REQUEST_OVERFLOW_STAMP)).get(REQUEST_OVERFLOW_STAMP)) != stamp) continue;
            for (int j = 0; j < count; j++) out.add(request(os[j], oc[j], opt[j], oh[j], ohandle[j], calls));
            break;
        }
        // in creation order (live and dump agree); the sequence is racy by design: a rare
        // duplicate gets a distinct id, in handle order
        out.sort(Comparator.comparingLong((Request w) -> w.id).thenComparingLong(w -> w.handle));
        Set<Long> ids = new HashSet<>();
        for (Request w : out) {
            long id = RegistryDecoder.WRAPPED_REQUEST_ID + w.id;
            while (!ids.add(id)) id += 1L << 56;
            w.id = id;
        }
        return out;
    }

    private Request request(long seq, TargetObject call, long peerTag, long holder, long handle,
                            Map<TargetObject, String> calls) {
        Request w = new Request();
        w.id = seq; // the sequence for now; the id in read()
        w.call = call == null ? null : calls.computeIfAbsent(call, reader::string);
        w.peerTag = peerTag;
        w.holder = holder;
        w.handle = handle;
        return w;
    }

    private static int asInt(Object v) {
        return v instanceof Number ? ((Number) v).intValue() : 0;
    }
}
