package io.mpilens.api.registry;

import static io.mpilens.api.registry.RegistryLayout.*;

import io.mpilens.api.target.HeapInstances;
import io.mpilens.api.target.TargetClass;
import io.mpilens.api.target.TargetObject;
import io.mpilens.api.target.TargetReadException;
import io.mpilens.api.target.TargetReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The requests that live in their wrappers (agent option {@code requestsInWrappers=true}):
 * found by a heap walk of the binding's request class, read field by field, and the walk
 * remembered per reader so a look with no request created since does not walk again.
 */
final class WrappedRequests {
    private final TargetReader reader;

    WrappedRequests(TargetReader reader) {
        this.reader = reader;
    }

    /** At most this many request wrappers are read (pending and complete ones alike). */
    static final int WRAPPED_REQUEST_LIMIT = 1_000_000;

    /** A request found in its wrapper ({@link RegistryLayout#REQUEST_WRAPPER_CLASS}). */
    static final class Request {
        long id, peerTag, holder, handle;
        String call, bindingClass;
        boolean pending;
    }

    /**
     * The requests that live in their wrappers, when the agent put them there: the instances of the
     * binding's request class (a heap walk: JDI's {@code instances()}, or the dump's instance
     * records) and their fields. Pending: the binding's handle is neither 0 nor its null request's.
     * Empty when requests are all in tables; a reader that cannot list instances reads none (and
     * the health says requests are not tracked).
     */
    List<Request> read(Map<String, Object> f) {
        unreadable = false;
        String rootClass = str(f.get(REQUEST_WRAPPER_CLASS));
        String handleField = str(f.get(REQUEST_HANDLE_FIELD));
        if (rootClass == null || handleField == null) return List.of();
        if (!(reader instanceof HeapInstances)) {
            unreadable = true;
            return List.of();
        }
        List<TargetClass> types = reader.classesNamed(rootClass);
        if (types.isEmpty()) return List.of();
        // the heap walk is skipped when no request was created since this reader's last one: the
        // requests it found then are read again (a completed one shows it in its handle); one
        // collected meanwhile makes the read fail, and the walk is done after all
        long created = createdSoFar();
        if (created == 0) return List.of(); // none created yet: nothing to walk for
        Walk last = WALKS.get(reader);
        if (last != null && created >= 0 && last.created == created && last.types.equals(types)) {
            try {
                return wrappedRequests(f, rootClass, handleField, last.types, last.found);
            } catch (TargetReadException e) {
                WALKS.remove(reader);
            }
        }
        HeapInstances.Found found = ((HeapInstances) reader).instancesOf(types, WRAPPED_REQUEST_LIMIT);
        if (created >= 0) WALKS.put(reader, new Walk(created, types, found));
        return wrappedRequests(f, rootClass, handleField, types, found);
    }

    /** A reader's last heap walk for requests in wrappers, and the creation count it saw. */
    private static final class Walk {
        final long created;
        final List<TargetClass> types;
        final HeapInstances.Found found;

        Walk(long created, List<TargetClass> types, HeapInstances.Found found) {
            this.created = created;
            this.types = types;
            this.found = found;
        }
    }

    /** Per reader (held weakly: a closed reader's entry goes with it). */
    private static final Map<TargetReader, Walk> WALKS = Collections.synchronizedMap(new WeakHashMap<>());

    /** Forgets every reader's last walk: the next look at requests in wrappers walks the heap. */
    static void forgetWalks() {
        WALKS.clear();
    }

    /**
     * The agent's count of requests created in wrappers ({@link #WRAPPER_REQUESTS_CLASS}'s
     * sequence): 0 while that class is not loaded (the first such request loads it), -1 if its
     * field cannot be read.
     */
    private long createdSoFar() {
        List<TargetClass> classes = reader.classesNamed(WRAPPER_REQUESTS_CLASS);
        if (classes.isEmpty()) return 0;
        for (TargetClass c : classes) {
            Object v = reader.staticField(c, WRAPPER_REQUESTS_SEQ);
            if (v instanceof Long) return (Long) v;
        }
        return -1;
    }

    /** The agent class whose static {@link #WRAPPER_REQUESTS_SEQ} counts the requests created in wrappers. */
    static final String WRAPPER_REQUESTS_CLASS = "io.mpilens.agent.registry.WrapperRequests";
    static final String WRAPPER_REQUESTS_SEQ = "seq";

    private List<Request> wrappedRequests(Map<String, Object> f, String rootClass, String handleField,
                                                 List<TargetClass> types, HeapInstances.Found found) {
        long nullHandle = asLong(f.get(REQUEST_NULL_HANDLE));
        List<String> names = List.of(REQUEST_CALL_FIELD, REQUEST_PEER_TAG_FIELD, REQUEST_HOLDER_FIELD, REQUEST_SEQ_FIELD,
                handleField);
        Map<TargetObject, String> calls = new HashMap<>();
        Map<TargetObject, Long> holderIds = new HashMap<>();
        Set<Long> ids = new HashSet<>();
        List<Request> out = new ArrayList<>();
        for (TargetClass type : types) {
            List<TargetObject> objects = found.of(type);
            List<Map<String, Object>> values = reader.fieldsOfEach(objects, names);
            for (Map<String, Object> v : values) {
                if (!(v.get(REQUEST_CALL_FIELD) instanceof TargetObject)) continue; // a persistent request: in a table
                Request w = new Request();
                w.handle = asLong(v.get(handleField));
                w.pending = w.handle != 0 && w.handle != nullHandle;
                if (!w.pending) continue;
                w.call = calls.computeIfAbsent((TargetObject) v.get(REQUEST_CALL_FIELD), reader::string);
                w.bindingClass = rootClass;
                w.peerTag = asLong(v.get(REQUEST_PEER_TAG_FIELD));
                Object holder = v.get(REQUEST_HOLDER_FIELD);
                if (holder instanceof TargetObject) {
                    w.holder = holderIds.computeIfAbsent((TargetObject) holder, h -> {
                        Object id = reader.fields(h, List.of(WRAPPER_ID_FIELD)).get(WRAPPER_ID_FIELD);
                        return id instanceof Long ? Math.max(0, (Long) id) : 0L;
                    });
                }
                w.id = asLong(v.get(REQUEST_SEQ_FIELD)); // the sequence for now; the id below
                out.add(w);
            }
        }
        // in creation order, whatever order the reader listed them in (live and dump agree); the
        // sequence is racy by design: a rare duplicate gets a distinct id, in handle order
        out.sort(Comparator.comparingLong((Request w) -> w.id).thenComparingLong(w -> w.handle));
        for (Request w : out) {
            long id = RegistryDecoder.WRAPPED_REQUEST_ID + w.id;
            while (!ids.add(id)) id += 1L << 56;
            w.id = id;
        }
        return out;
    }

    /** The last read met requests in wrappers that this reader cannot list (no heap walk). */
    private boolean unreadable;

    boolean unreadable() {
        return unreadable;
    }


    private String str(Object v) {
        return v instanceof TargetObject ? reader.string((TargetObject) v) : null;
    }

    private static long asLong(Object v) {
        return v instanceof Number ? ((Number) v).longValue() : 0;
    }
}
