package io.mpilens.headless.json;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MemberList;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.Topology;
import io.mpilens.api.model.TypeArgument;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads what {@link SnapshotJson} writes (schema {@value SnapshotJson#SCHEMA}) back into
 * {@code handle-api}'s model: a snapshot read on one host and sent to another as JSON is the same
 * {@link ProcessSnapshot}, field by field ({@code SnapshotJsonRoundTripTest}). Derived fields the
 * writer adds ({@code typeMap}, {@code createdAt}, {@code requestType}, {@code healthy}) are
 * recomputed by the model, not read.
 */
public final class SnapshotJsonReader {
    private SnapshotJsonReader() {
    }

    /** The processes of a whole document ({@code {"schema":"mpilens/1","processes":[…]}}). */
    public static List<ProcessSnapshot> read(String json) throws IOException {
        Map<String, Object> doc = object(JsonReader.parse(json), "document");
        if (!SnapshotJson.SCHEMA.equals(doc.get("schema"))) {
            throw new IOException("schema " + doc.get("schema") + ", expected " + SnapshotJson.SCHEMA);
        }
        List<ProcessSnapshot> out = new ArrayList<>();
        MemberLists lists = new MemberLists();
        for (Object p : list(doc.get("processes"))) out.add(process(p, lists));
        return out;
    }

    /** One element of {@code processes}, as parsed by {@link JsonReader}. */
    public static ProcessSnapshot process(Object json) throws IOException {
        return process(json, new MemberLists());
    }

    /** The same, its member lists shared with those {@code lists} already read (one parse of many processes). */
    static ProcessSnapshot process(Object json, MemberLists lists) throws IOException {
        try {
            Map<String, Object> p = object(json, "process");
            int rank = intOr(p, "rank", HandleInfo.UNKNOWN);
            AgentHealth health = null;
            if (p.get("agent") != null) {
                Map<String, Object> a = object(p.get("agent"), "agent");
                health = new AgentHealth((String) a.get("version"), (int) num(a, "internalErrors"), (String) a.get("lastError"),
                        num(a, "untrackedEvents"), bool(a, "requestsTracked"), num(a, "blockingReturns"));
            }
            List<HandleInfo> handles = new ArrayList<>();
            for (Object h : list(p.get("handles"))) handles.add(handle(object(h, "handle"), rank, lists));
            List<HandleInfo> released = new ArrayList<>();
            for (Object h : list(p.get("released"))) released.add(handle(object(h, "handle"), rank, lists));
            List<MpiError> errors = new ArrayList<>();
            for (Object e : list(p.get("mpiErrors"))) errors.add(mpiError(object(e, "mpiError"), rank));
            return new ProcessSnapshot(rank, intOr(p, "worldSize", HandleInfo.UNKNOWN), num(p, "pid"), (String) p.get("host"),
                    (String) p.get("binding"), MpiState.valueOf((String) p.get("mpiState")), (int) num(p, "layoutVersion"),
                    health, handles, released, (int) num(p, "tornRows"), errors);
        } catch (ClassCastException | IllegalArgumentException | NullPointerException e) {
            throw new IOException("not a process of schema " + SnapshotJson.SCHEMA + ": " + e, e);
        }
    }

    private static MpiError mpiError(Map<String, Object> e, int processRank) {
        return new MpiError(num(e, "nanoTime"), e.containsKey("rank") ? intOr(e, "rank", HandleInfo.UNKNOWN) : processRank,
                (String) e.get("call"), ref(e, "handle"), intOr(e, "peer", HandleInfo.UNKNOWN),
                intOr(e, "errorClass", HandleInfo.UNKNOWN), intOr(e, "errorCode", HandleInfo.UNKNOWN),
                (String) e.get("cause"), (String) e.get("message"));
    }

    private static HandleInfo handle(Map<String, Object> h, int processRank, MemberLists lists) throws IOException {
        HandleKind kind = HandleKind.valueOf((String) h.get("kind"));
        HandleInfo.Builder b = HandleInfo.builder(Long.parseLong((String) h.get("id")), kind)
                .ownerRank(h.containsKey("ownerRank") ? intOr(h, "ownerRank", HandleInfo.UNKNOWN) : processRank)
                .bindingClass((String) h.get("bindingClass")).name((String) h.get("name"))
                .predefined(bool(h, "predefined")).state(Lifecycle.valueOf((String) h.get("state")))
                .refCount((int) num(h, "refCount")).heldBy(ids(h, "heldBy")).leaked(bool(h, "leaked"))
                .creatingCall((String) h.get("creatingCall"));
        if (h.get("cHandle") != null) b.cHandle(Long.parseUnsignedLong(((String) h.get("cHandle")).substring(2), 16));
        List<String> stack = new ArrayList<>();
        for (Object f : list(h.get("creationStack"))) stack.add((String) f);
        b.creationStack(stack);
        switch (kind) {
            case COMMUNICATOR -> {
                b.rank(intOr(h, "rank", HandleInfo.UNKNOWN)).size(intOr(h, "size", HandleInfo.UNKNOWN))
                        .members(lists.of(h, "members", SnapshotJson.MEMBER_RANGES)).inter(bool(h, "inter"))
                        .remoteMembers(lists.of(h, "remoteMembers", SnapshotJson.REMOTE_MEMBER_RANGES))
                        .errhandler(ref(h, "errhandler")).group(ref(h, "group")).derivedFrom(ref(h, "derivedFrom"))
                        .windows(ids(h, "windows")).files(ids(h, "files"));
                if (h.get("topology") != null) b.topology(topology(object(h.get("topology"), "topology")));
            }
            case GROUP -> b.rank(intOr(h, "rank", HandleInfo.UNKNOWN)).size(intOr(h, "size", HandleInfo.UNKNOWN))
                    .members(lists.of(h, "members", SnapshotJson.MEMBER_RANGES)).derivedFrom(ref(h, "derivedFrom"))
                    .communicators(ids(h, "communicators"));
            case REQUEST -> b.peer(intOr(h, "peer", HandleInfo.UNKNOWN)).tag(intOr(h, "tag", HandleInfo.UNKNOWN))
                    .communicator(ref(h, "communicator")).persistent(bool(h, "persistent")).complete(bool(h, "complete"));
            case DATATYPE -> {
                b.constructor((String) h.get("constructor")).committed(bool(h, "committed"))
                        .typeSize(longOr(h, "size", HandleInfo.UNKNOWN)).extent(longOr(h, "extent", HandleInfo.UNKNOWN))
                        .lowerBound(longOr(h, "lowerBound", HandleInfo.UNKNOWN)).parents(ids(h, "parents"));
                if (h.get("typeArguments") != null) b.typeArguments(typeArguments(h));
            }
            case WINDOW -> b.communicator(ref(h, "communicator")).errhandler(ref(h, "errhandler"))
                    .windowSize(longOr(h, "size", HandleInfo.UNKNOWN)).displacementUnit(intOr(h, "displacementUnit", HandleInfo.UNKNOWN));
            case FILE -> b.communicator(ref(h, "communicator")).errhandler(ref(h, "errhandler"))
                    .fileName((String) h.get("fileName"))
                    .accessMode(intOr(h, "accessMode", HandleInfo.UNKNOWN), (String) h.get("accessModeFlags"));
            case ERRHANDLER -> b.attachedTo(ids(h, "attachedTo"));
            default -> {
            }
        }
        b.createdWithInfo(ref(h, "createdWithInfo"));
        if (h.containsKey("infoPairs")) {
            Map<String, String> pairs = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : object(h.get("infoPairs"), "infoPairs").entrySet()) {
                pairs.put(e.getKey(), (String) e.getValue());
            }
            b.infoPairs(pairs, intOr(h, "infoPairCount", HandleInfo.UNKNOWN));
        }
        b.usedBy(ids(h, "usedBy"));
        if (h.get("attributes") != null) {
            Map<Integer, String> attributes = new TreeMap<>();
            for (Object a : list(h.get("attributes"))) {
                Map<String, Object> x = object(a, "attribute");
                attributes.put((int) num(x, "keyval"), (String) x.get("value"));
            }
            b.attributes(attributes);
        }
        return b.build();
    }

    /**
     * The member lists of one parse, each distinct one read once and shared by every handle that has
     * it: by its text when written as ranges ({@code "0-8191"}, the collectors' wire), by content
     * when written as an array ({@code mpilens/1}).
     */
    static final class MemberLists {
        /** More members than this in one list of ranges is taken for a damaged line, not allocated. */
        static final int MAX_MEMBERS = 1 << 24;
        private final Map<String, MemberList> byText = new HashMap<>();
        private final Map<MemberList, MemberList> byContent = new HashMap<>();

        /** The list under {@code name} (an array) or {@code rangesName} (ranges); empty when neither is there. */
        MemberList of(Map<String, Object> h, String name, String rangesName) {
            Object ranges = h.get(rangesName);
            if (ranges != null) {
                if (h.get(name) != null) throw new IllegalArgumentException("both " + name + " and " + rangesName);
                String text = (String) ranges;
                MemberList m = byText.get(text);
                if (m == null) {
                    m = intern(MemberList.of(ranges(text)));
                    byText.put(text, m);
                }
                return m;
            }
            if (h.get(name) == null) return MemberList.EMPTY;
            return intern(MemberList.of(ints(h, name)));
        }

        private MemberList intern(MemberList m) {
            MemberList had = byContent.putIfAbsent(m, m);
            return had != null ? had : m;
        }

        /** What {@code SnapshotJson.ranges} writes: ascending runs {@code a} or {@code a-b}, comma-separated. */
        static int[] ranges(String text) {
            if (text.isEmpty()) return new int[0];
            String[] parts = text.split(",", -1);
            long count = 0;
            int[][] runs = new int[parts.length][];
            long previous = -1;
            for (int i = 0; i < parts.length; i++) {
                String p = parts[i];
                int dash = p.indexOf('-', 1);
                int first = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(p.substring(dash + 1));
                if (first <= previous || last < first || (dash >= 0 && last == first)) {
                    throw new IllegalArgumentException("member ranges not ascending at '" + p + "': " + cut(text));
                }
                count += (long) last - first + 1;
                if (count > MAX_MEMBERS) throw new IllegalArgumentException("more than " + MAX_MEMBERS + " members: " + cut(text));
                runs[i] = new int[] {first, last};
                previous = last;
            }
            int[] out = new int[(int) count];
            int k = 0;
            for (int[] r : runs) for (int x = r[0]; ; x++) {
                out[k++] = x;
                if (x == r[1]) break;
            }
            return out;
        }

        private static String cut(String text) {
            return text.length() <= 80 ? text : text.substring(0, 80) + "...";
        }
    }

    private static Topology topology(Map<String, Object> t) {
        Topology.Type type = Topology.Type.valueOf((String) t.get("type"));
        if (type == Topology.Type.CARTESIAN) {
            List<Object> p = list(t.get("periods"));
            boolean[] periods = new boolean[p.size()];
            for (int i = 0; i < periods.length; i++) periods[i] = (Boolean) p.get(i);
            return Topology.cartesian(ints(t, "dims"), periods);
        }
        if (type == Topology.Type.DIST_GRAPH) {
            return Topology.distGraph(t.get("sources") == null ? null : ints(t, "sources"),
                    t.get("destinations") == null ? null : ints(t, "destinations"));
        }
        return Topology.graph(type, ints(t, "index"), ints(t, "edges"));
    }

    /** The shapes of {@code typeArguments}, their kinds from {@code typeArgumentKinds} (by shape when absent: older writer). */
    private static List<TypeArgument> typeArguments(Map<String, Object> h) throws IOException {
        List<Object> args = list(h.get("typeArguments"));
        List<Object> kinds = h.get("typeArgumentKinds") == null ? null : list(h.get("typeArgumentKinds"));
        if (kinds != null && kinds.size() != args.size()) throw new IOException("typeArgumentKinds: " + kinds.size()
                + " for " + args.size() + " typeArguments");
        List<TypeArgument> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            Object a = args.get(i);
            String k = kinds == null ? null : (String) kinds.get(i);
            boolean empty = k != null && k.endsWith(":empty");
            TypeArgument.Kind kind = k != null ? TypeArgument.Kind.valueOf(empty ? k.substring(0, k.length() - 6) : k) : null;
            List<Object> values = null;
            int length = -1;
            if (a instanceof Long v) {
                out.add(new TypeArgument(kind != null ? kind : TypeArgument.Kind.INT, new long[] {v}, 1));
                continue;
            }
            if (a instanceof List<?> l) {
                values = new ArrayList<>(l);
            } else {
                Map<String, Object> m = object(a, "typeArgument");
                if (m.containsKey("unrecorded")) {
                    out.add(new TypeArgument(kind != null ? kind : TypeArgument.Kind.OTHER, new long[0], 0));
                    continue;
                }
                if (m.containsKey("type") && !m.containsKey("length")) {
                    out.add(new TypeArgument(kind != null ? kind : TypeArgument.Kind.TYPE,
                            empty ? new long[0] : new long[] {Long.parseLong((String) m.get("type"))}, empty ? 0 : 1));
                    continue;
                }
                values = list(m.containsKey("types") ? m.get("types") : m.get("values"));
                length = (int) num(m, "length");
                if (kind == null) kind = m.containsKey("types") ? TypeArgument.Kind.TYPES : TypeArgument.Kind.INTS;
            }
            long[] v = new long[values.size()];
            boolean types = false;
            for (int j = 0; j < v.length; j++) {
                Object x = values.get(j);
                if (x instanceof Map<?, ?> t) {
                    types = true;
                    v[j] = Long.parseLong((String) t.get("type"));
                } else {
                    v[j] = (Long) x;
                }
            }
            if (kind == null) kind = types ? TypeArgument.Kind.TYPES : TypeArgument.Kind.INTS;
            out.add(new TypeArgument(kind, v, Math.max(length, v.length)));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object v, String what) throws IOException {
        if (!(v instanceof Map)) throw new IOException("expected an object for " + what + ", not " + v);
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object v) {
        return v == null ? List.of() : (List<Object>) v;
    }

    static long num(Map<String, Object> m, String name) {
        Object v = m.get(name);
        if (v == null) throw new IllegalArgumentException("no " + name);
        return ((Number) v).longValue();
    }

    static int intOr(Map<String, Object> m, String name, int absent) {
        Object v = m.get(name);
        return v == null ? absent : Math.toIntExact(((Number) v).longValue());
    }

    private static long longOr(Map<String, Object> m, String name, long absent) {
        Object v = m.get(name);
        return v == null ? absent : ((Number) v).longValue();
    }

    static boolean bool(Map<String, Object> m, String name) {
        return Boolean.TRUE.equals(m.get(name));
    }

    private static long ref(Map<String, Object> m, String name) {
        Object v = m.get(name);
        return v == null ? HandleInfo.NONE : Long.parseLong((String) v);
    }

    private static long[] ids(Map<String, Object> m, String name) {
        List<Object> l = list(m.get(name));
        long[] out = new long[l.size()];
        for (int i = 0; i < out.length; i++) out[i] = Long.parseLong((String) l.get(i));
        return out;
    }

    private static int[] ints(Map<String, Object> m, String name) {
        List<Object> l = list(m.get(name));
        int[] out = new int[l.size()];
        for (int i = 0; i < out.length; i++) out[i] = Math.toIntExact((Long) l.get(i));
        return out;
    }
}
