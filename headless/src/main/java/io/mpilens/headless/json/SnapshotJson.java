package io.mpilens.headless.json;

import io.mpilens.api.model.AgentHealth;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MemberList;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.Topology;
import io.mpilens.api.model.TypeArgument;
import io.mpilens.api.model.TypeMap;
import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.observe.JobSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Snapshots in the public JSON schema {@value #SCHEMA}, documented field by field in
 * {@code docs/json-schema.md}. Additive changes keep the schema name; removing or renaming a
 * field bumps it.
 */
public final class SnapshotJson {
    public static final String SCHEMA = "mpilens/1";
    /** Keys of the members as ranges, written only on the collectors' wire ({@link #process(JsonWriter, ProcessSnapshot, boolean)}). */
    static final String MEMBER_RANGES = "memberRanges";
    static final String REMOTE_MEMBER_RANGES = "remoteMemberRanges";

    private SnapshotJson() {
    }

    /** A job: its ranks (sorted by rank, with the address each was read from) and the failures. */
    public static String write(JobSnapshot job) {
        return write(job, List.of());
    }

    /**
     * A job plus the processes read without the agent (agentless mode), in a top-level
     * {@code agentless} array that is written only when there are any.
     */
    public static String write(JobSnapshot job, List<AgentlessProcess> agentless) {
        JsonWriter w = new JsonWriter();
        w.beginObject().field("schema", SCHEMA);
        w.name("processes").beginArray();
        for (JobSnapshot.Rank r : job.ranks()) process(w, r.process(), r.address(), false);
        w.endArray();
        w.name("errors").beginArray();
        for (JobSnapshot.Failure f : job.failures()) {
            w.beginObject().field("address", f.address()).field("message", f.message()).endObject();
        }
        w.endArray();
        if (!agentless.isEmpty()) AgentlessJson.write(w, agentless);
        return w.endObject().toString();
    }

    /** Processes read from one place (a JVM, a heap dump): no addresses, no errors. */
    public static String write(List<ProcessSnapshot> processes) {
        List<JobSnapshot.Rank> ranks = new ArrayList<>();
        for (ProcessSnapshot p : processes) ranks.add(new JobSnapshot.Rank(null, p));
        return write(new JobSnapshot(ranks, List.of()));
    }

    /**
     * One process as an element of {@code processes} (no address), for other writers that carry
     * snapshots ({@code CollectorJson}); {@link SnapshotJsonReader#process} reads it back.
     *
     * @param memberRanges members and remote members as ranges ({@value #MEMBER_RANGES},
     *        {@value #REMOTE_MEMBER_RANGES}: {@code "0-3,5,7-9"}) where a list is ascending, instead of
     *        an array of every rank: for the collectors' wire ({@code mpilens-collect/2}) only, where
     *        every rank's COMM_WORLD would otherwise list the whole job; {@code mpilens/1} never has them
     */
    public static void process(JsonWriter w, ProcessSnapshot p, boolean memberRanges) {
        process(w, p, null, memberRanges);
    }

    private static void process(JsonWriter w, ProcessSnapshot p, String address, boolean memberRanges) {
        w.beginObject();
        if (p.rank() >= 0) w.field("rank", p.rank());
        if (p.worldSize() >= 0) w.field("worldSize", p.worldSize());
        w.field("pid", p.pid());
        optional(w, "host", p.host());
        optional(w, "binding", p.binding());
        w.field("mpiState", p.mpiState().name());
        w.field("layoutVersion", p.layoutVersion());
        optional(w, "address", address);
        AgentHealth a = p.agentHealth();
        if (a != null) {
            w.name("agent").beginObject()
                    .field("version", a.agentVersion())
                    .field("healthy", a.healthy())
                    .field("internalErrors", a.internalErrors())
                    .field("lastError", a.lastError())
                    .field("untrackedEvents", a.untrackedEvents())
                    .field("requestsTracked", a.requestsTracked())
                    .field("blockingReturns", a.blockingReturns())
                    .endObject();
        }
        w.field("tornRows", p.tornRows());
        w.name("handles").beginArray();
        Map<Long, HandleInfo> byId = TypeMap.index(p);
        for (HandleInfo h : p.handles()) {
            handle(w, h, true, p.rank(), memberRanges);
            if (TypeMap.shownFor(h)) typeMap(w, TypeMap.of(h, p.binding(), byId));
            w.endObject();
        }
        w.endArray();
        w.name("released").beginArray();
        for (HandleInfo h : p.released()) {
            handle(w, h, false, p.rank(), memberRanges);
            w.endObject();
        }
        w.endArray();
        w.name("mpiErrors").beginArray();
        for (MpiError e : p.errors()) mpiError(w, e, p.rank());
        w.endArray();
        w.endObject();
    }

    private static void mpiError(JsonWriter w, MpiError e, int processRank) {
        w.beginObject();
        if (e.rank() != processRank) rankOrNull(w, "rank", e.rank());
        optional(w, "call", e.call());
        ref(w, "handle", e.handleId());
        known(w, "peer", e.peer());
        known(w, "errorClass", e.errorClass());
        known(w, "errorCode", e.errorCode());
        optional(w, "cause", e.causeClass());
        optional(w, "message", e.message());
        w.field("nanoTime", e.nanoTime());
        w.endObject();
    }

    /**
     * A derived datatype's flattened map: {@code unit}, {@code lowerBound}, {@code extent},
     * {@code size}, {@code runs} (type, displacement, count, length; in type map order),
     * {@code holes} (displacement, length), {@code cut}; or {@code {"unknown": why}}.
     */
    private static void typeMap(JsonWriter w, TypeMap m) {
        w.name("typeMap").beginObject();
        if (!m.known()) {
            w.field("unknown", m.whyUnknown()).endObject();
            return;
        }
        w.field("unit", m.unit().label()).field("lowerBound", m.lowerBound()).field("extent", m.extent())
                .field("size", m.size());
        w.name("runs").beginArray();
        for (TypeMap.Run r : m.runs()) {
            w.beginObject().field("type", r.type()).field("displacement", r.displacement()).field("count", r.count())
                    .field("length", r.length()).endObject();
        }
        w.endArray();
        w.name("holes").beginArray();
        for (TypeMap.Hole h : m.holes()) w.beginObject().field("displacement", h.displacement()).field("length", h.length()).endObject();
        w.endArray();
        w.field("cut", m.cut());
        w.endObject();
    }

    /** Opens the handle's object (the caller closes it). Kind-specific fields only for live handles: the history of released ones does not keep them. */
    private static void handle(JsonWriter w, HandleInfo h, boolean withKindFields, int processRank, boolean memberRanges) {
        w.beginObject();
        w.field("id", Long.toString(h.id()));
        w.field("kind", h.kind().name());
        // written only where it is not the process's rank (a row whose owner the agent could not tell)
        if (h.ownerRank() != processRank) rankOrNull(w, "ownerRank", h.ownerRank());
        optional(w, "name", h.name());
        w.field("predefined", h.predefined());
        w.field("state", h.state().name());
        w.field("refCount", h.refCount());
        ids(w, "heldBy", h.heldBy());
        if (h.hasCHandle()) w.field("cHandle", "0x" + Long.toHexString(h.cHandle()));
        w.field("leaked", h.leaked());
        optional(w, "bindingClass", h.bindingClass());
        optional(w, "creatingCall", h.creatingCall());
        optional(w, "createdAt", h.createdAt());
        w.name("creationStack").beginArray();
        for (String frame : h.creationStack()) w.value(frame);
        w.endArray();
        if (withKindFields) kindFields(w, h, memberRanges);
    }

    private static void kindFields(JsonWriter w, HandleInfo h, boolean memberRanges) {
        switch (h.kind()) {
            case COMMUNICATOR:
                known(w, "rank", h.rank());
                known(w, "size", h.size());
                members(w, "members", MEMBER_RANGES, h.memberList(), memberRanges);
                w.field("inter", h.inter());
                members(w, "remoteMembers", REMOTE_MEMBER_RANGES, h.remoteMemberList(), memberRanges);
                if (h.topology() != null) topology(w, h.topology());
                ref(w, "errhandler", h.errhandler());
                ref(w, "group", h.group());
                ref(w, "derivedFrom", h.derivedFrom());
                if (h.windows().length > 0) ids(w, "windows", h.windows());
                if (h.files().length > 0) ids(w, "files", h.files());
                break;
            case GROUP:
                known(w, "rank", h.rank());
                known(w, "size", h.size());
                members(w, "members", MEMBER_RANGES, h.memberList(), memberRanges);
                ref(w, "derivedFrom", h.derivedFrom());
                if (h.communicators().length > 0) ids(w, "communicators", h.communicators());
                break;
            case REQUEST:
                if (h.requestType() != null) w.field("requestType", h.requestType().label());
                known(w, "peer", h.peer());
                known(w, "tag", h.tag());
                ref(w, "communicator", h.communicator());
                w.field("persistent", h.persistent());
                w.field("complete", h.complete());
                break;
            case DATATYPE:
                optional(w, "constructor", h.constructor());
                w.field("committed", h.committed());
                known(w, "size", h.typeSize());
                known(w, "extent", h.extent());
                known(w, "lowerBound", h.lowerBound());
                ids(w, "parents", h.parents());
                if (!h.typeArguments().isEmpty()) typeArguments(w, h.typeArguments());
                break;
            case WINDOW:
                ref(w, "communicator", h.communicator());
                ref(w, "errhandler", h.errhandler());
                known(w, "size", h.windowSize());
                known(w, "displacementUnit", h.displacementUnit());
                break;
            case FILE:
                ref(w, "communicator", h.communicator());
                ref(w, "errhandler", h.errhandler());
                optional(w, "fileName", h.fileName());
                known(w, "accessMode", h.accessMode());
                optional(w, "accessModeFlags", h.accessModeFlags());
                break;
            case ERRHANDLER:
                ids(w, "attachedTo", h.attachedTo());
                break;
            default:
                break;
        }
        // info pairs: an info's own; a window's, file's or communicator's as its info had them then
        ref(w, "createdWithInfo", h.createdWithInfo());
        if (h.hasInfoPairs()) {
            w.name("infoPairs").beginObject();
            for (Map.Entry<String, String> e : h.infoPairs().entrySet()) w.field(String.valueOf(e.getKey()), e.getValue());
            w.endObject();
            w.field("infoPairCount", h.infoPairCount());
        }
        if (h.kind() == HandleKind.INFO && h.usedBy().length > 0) ids(w, "usedBy", h.usedBy());
        if (!h.attributes().isEmpty()) {
            w.name("attributes").beginArray();
            for (Map.Entry<Integer, String> e : h.attributes().entrySet()) {
                w.beginObject().field("keyval", e.getKey()).field("value", e.getValue()).endObject();
            }
            w.endArray();
        }
    }

    private static void topology(JsonWriter w, Topology t) {
        w.name("topology").beginObject().field("type", t.type().name());
        if (t.type() == Topology.Type.CARTESIAN) {
            ints(w, "dims", t.dims());
            w.name("periods").beginArray();
            for (boolean p : t.periods()) w.value(p);
            w.endArray();
        } else if (t.type() == Topology.Type.DIST_GRAPH) {
            // absent when the agent could not learn this rank's neighbours without a risky MPI call
            if (t.sources() != null) ints(w, "sources", t.sources());
            if (t.destinations() != null) ints(w, "destinations", t.destinations());
        } else {
            ints(w, "index", t.index());
            ints(w, "edges", t.edges());
        }
        w.endObject();
    }

    private static void rankOrNull(JsonWriter w, String name, int rank) {
        if (rank == HandleInfo.UNKNOWN) w.field(name, (String) null);
        else w.field(name, rank);
    }

    private static void optional(JsonWriter w, String name, String v) {
        if (v != null) w.field(name, v);
    }

    private static void known(JsonWriter w, String name, long v) {
        if (v != HandleInfo.UNKNOWN) w.field(name, v);
    }

    private static void ref(JsonWriter w, String name, long id) {
        if (id != HandleInfo.NONE) w.field(name, Long.toString(id));
    }

    /**
     * A datatype constructor's arguments in order: a number, an array of numbers, {@code {"type": id}},
     * an array of those; an array cut by the agent's bound as {@code {"values"|"types": [...], "length": N}};
     * an argument not recorded as {@code {"unrecorded": true}}.
     */
    private static void typeArguments(JsonWriter w, List<TypeArgument> args) {
        w.name("typeArguments").beginArray();
        for (TypeArgument a : args) {
            long[] v = a.values();
            switch (a.kind()) {
                case INT:
                case LONG:
                    if (v.length > 0) w.value(v[0]);
                    else w.beginObject().field("unrecorded", true).endObject();
                    break;
                case TYPE:
                    w.beginObject().field("type", Long.toString(v.length > 0 ? v[0] : 0)).endObject();
                    break;
                case INTS:
                case TYPES: {
                    boolean types = a.kind() == TypeArgument.Kind.TYPES;
                    if (a.cut()) w.beginObject().name(types ? "types" : "values");
                    w.beginArray();
                    for (long x : v) {
                        if (types) w.beginObject().field("type", Long.toString(x)).endObject();
                        else w.value(x);
                    }
                    w.endArray();
                    if (a.cut()) w.field("length", a.length()).endObject();
                    break;
                }
                default:
                    w.beginObject().field("unrecorded", true).endObject();
            }
        }
        w.endArray();
        // what the shapes above do not tell apart (int or long, an empty array's element type, an empty value)
        w.name("typeArgumentKinds").beginArray();
        for (TypeArgument a : args) w.value(a.kind().name() + (a.values().length == 0 ? ":empty" : ""));
        w.endArray();
    }

    private static void ids(JsonWriter w, String name, long[] ids) {
        w.name(name).beginArray();
        for (long id : ids) w.value(Long.toString(id));
        w.endArray();
    }

    /** A non-empty member list: as ranges when asked and the list is ascending, else as an array of ranks. */
    private static void members(JsonWriter w, String name, String rangesName, MemberList m, boolean asRanges) {
        if (m.isEmpty()) return;
        String ranges = asRanges ? ranges(m) : null;
        if (ranges != null) {
            w.field(rangesName, ranges);
            return;
        }
        w.name(name).beginArray();
        for (int i = 0; i < m.size(); i++) w.value(m.get(i));
        w.endArray();
    }

    /**
     * Strictly ascending non-negative ranks as runs, {@code "0-3,5,7-9"} ({@link SnapshotJsonReader}
     * reads them back); null for any other list (it is written as an array, in its order).
     */
    static String ranges(MemberList m) {
        StringBuilder b = new StringBuilder();
        int n = m.size();
        for (int i = 0; i < n; ) {
            int first = m.get(i);
            if (first < 0 || (i > 0 && first <= m.get(i - 1))) return null;
            int j = i;
            while (j + 1 < n && (long) m.get(j + 1) == m.get(j) + 1L) j++;
            if (b.length() > 0) b.append(',');
            b.append(first);
            if (j > i) b.append('-').append(m.get(j));
            i = j + 1;
        }
        return b.toString();
    }

    private static void ints(JsonWriter w, String name, int[] v) {
        w.name(name).beginArray();
        for (int x : v) w.value(x);
        w.endArray();
    }
}
