package io.mpilens.headless.json;

import io.mpilens.api.job.JobRecordLayout;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.CollectorReport;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.BindingFrame;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A collector's report on the wire ({@link CollectorReport}, schema {@value CollectorReport#SCHEMA}): JSON lines, one flat object each. */
public final class CollectorJson {
    static final String SNAPSHOT = "snapshot";
    static final String FRAMES = "frames";
    /** How a line that nests objects begins (the flat reader must not see it). */
    public static final String SNAPSHOT_LINE = "{\"" + CollectorReport.KIND + "\":\"" + SNAPSHOT + "\"";
    public static final String FRAMES_LINE = "{\"" + CollectorReport.KIND + "\":\"" + FRAMES + "\"";

    private CollectorJson() {
    }

    public static List<String> lines(CollectorReport report) {
        List<String> out = new ArrayList<>();
        out.add(kind("collector").field("schema", CollectorReport.SCHEMA).field("host", report.host())
                .field("job", report.job()).endObject().toString());
        for (CollectorReport.Record x : report.records()) {
            JobRecord r = x.record();
            // the record's own fields and values as the agent writes them: JobDirectory.parse reads them back
            JsonWriter w = kind("record").name("running");
            if (x.running() == null) w.value((String) null);
            else w.value(x.running().booleanValue());
            w.field("file", r.file().toString()).field(JobRecordLayout.FIELD_SCHEMA, JobRecordLayout.SCHEMA)
                    .field(JobRecordLayout.FIELD_JOB, r.job()).field(JobRecordLayout.FIELD_RANK, r.rank())
                    .field(JobRecordLayout.FIELD_SIZE, r.size()).field(JobRecordLayout.FIELD_PID, r.pid())
                    .field(JobRecordLayout.FIELD_PARENT_PID, r.parentPid()).field(JobRecordLayout.FIELD_HOST, r.host())
                    .field(JobRecordLayout.FIELD_JDWP, r.jdwp()).field(JobRecordLayout.FIELD_BINDING, r.binding())
                    .field(JobRecordLayout.FIELD_EPOCH, r.epoch())
                    .field(JobRecordLayout.FIELD_START_TIME, r.startTime().toEpochMilli())
                    .field(JobRecordLayout.FIELD_UPDATED, r.updated().toEpochMilli())
                    .field(JobRecordLayout.FIELD_MPI_STATE, r.mpiState())
                    .field(JobRecordLayout.FIELD_AGENT_VERSION, r.agentVersion()).name(JobRecordLayout.FIELD_EXITED);
            if (r.exited() == null) w.value((String) null);
            else w.value(r.exited().toEpochMilli());
            w.field(JobRecordLayout.FIELD_SPAWNED_BY, r.spawnedBy()).field(JobRecordLayout.FIELD_NAMESPACE, r.namespace());
            out.add(w.endObject().toString());
        }
        for (RankStatus r : report.ranks()) {
            JsonWriter line = kind("rank").field("rank", r.rank()).field("epoch", r.epoch()).field("pid", r.pid())
                    .field("parentPid", r.parentPid()).field("host", r.host()).field("address", r.address())
                    .field("state", r.state().name()).field("evidence", r.evidence())
                    .field("answerMillis", r.answerMillis());
            if (r.processAlive() != null) line.field("alive", r.processAlive().booleanValue()); // additive: older front ends ignore it
            out.add(line.endObject().toString());
            if (r.snapshot() != null) {
                JsonWriter w = kind(SNAPSHOT).name("process");
                SnapshotJson.process(w, r.snapshot(), true); // members as ranges: see SnapshotJson.ranges
                out.add(w.endObject().toString());
            }
        }
        for (Map.Entry<Integer, List<BindingFrame>> e : new TreeMap<>(report.frames()).entrySet()) {
            JsonWriter w = kind(FRAMES).field("rank", e.getKey()).name("frames").beginArray();
            for (BindingFrame f : e.getValue()) frame(w, f);
            out.add(w.endArray().endObject().toString());
        }
        for (HostView.Daemon d : report.daemons()) {
            out.add(kind("daemon").field("pid", d.pid()).field("command", d.command()).field("alive", d.alive())
                    .endObject().toString());
        }
        for (String s : report.refused()) out.add(kind("refused").field("reason", s).endObject().toString());
        return out;
    }

    /** A rank's thread frames, each with every field of {@link BindingFrame} (null where it has none). */
    private static void frame(JsonWriter w, BindingFrame f) {
        w.beginObject().field("thread", f.thread()).field("declaringClass", f.declaringClass()).field("method", f.method())
                .field("receiverClass", f.receiverClass());
        number(w.name("receiverHandle"), f.receiverHandle());
        w.name("intArguments");
        if (f.intArguments() == null) w.value((String) null);
        else {
            w.beginArray();
            for (Integer i : f.intArguments()) number(w, i == null ? null : i.longValue());
            w.endArray();
        }
        w.field("receiverPredefined", f.receiverPredefined()).name("receiverMembers");
        if (f.receiverMembers() == null) w.value((String) null);
        else {
            w.beginArray();
            for (Integer i : f.receiverMembers()) number(w, i == null ? null : i.longValue());
            w.endArray();
        }
        number(w.name("receiverId"), f.receiverId());
        w.name("requests");
        if (f.requests() == null) w.value((String) null);
        else {
            w.beginArray();
            for (BindingFrame.Element e : f.requests()) {
                w.beginObject();
                number(w.name("handle"), e.handle());
                number(w.name("registryId"), e.registryId());
                w.endObject();
            }
            w.endArray();
        }
        number(w.name("worldId"), f.worldId());
        w.endObject();
    }

    private static void number(JsonWriter w, Long v) {
        if (v == null) w.value((String) null);
        else w.value(v.longValue());
    }

    /**
     * Reads a collector's lines ({@link CollectorReport#parse} with the lines that nest objects). The
     * snapshots' member lists are read once per distinct list and shared (every rank's COMM_WORLD).
     */
    public static CollectorReport parse(List<String> lines) throws IOException {
        SnapshotJsonReader.MemberLists lists = new SnapshotJsonReader.MemberLists();
        return CollectorReport.parse(lines, (line, ranks, frames) -> nested(line, ranks, frames, lists));
    }

    private static boolean nested(String line, List<RankStatus> ranks, Map<Integer, List<BindingFrame>> frames,
                                  SnapshotJsonReader.MemberLists lists) throws IOException {
        if (line.startsWith(SNAPSHOT_LINE)) {
            if (ranks.isEmpty()) throw new IOException("a snapshot before any rank");
            RankStatus r = ranks.remove(ranks.size() - 1);
            ranks.add(r.withSnapshot(snapshot(line, lists)));
            return true;
        }
        if (line.startsWith(FRAMES_LINE)) {
            Map.Entry<Integer, List<BindingFrame>> e = frames(line);
            frames.put(e.getKey(), e.getValue());
            return true;
        }
        return false;
    }

    /** The snapshot of a {@value #SNAPSHOT} line. */
    public static ProcessSnapshot snapshot(String line) throws IOException {
        return snapshot(line, new SnapshotJsonReader.MemberLists());
    }

    private static ProcessSnapshot snapshot(String line, SnapshotJsonReader.MemberLists lists) throws IOException {
        return SnapshotJsonReader.process(SnapshotJsonReader.object(JsonReader.parse(line), "snapshot line").get("process"), lists);
    }

    /** A {@value #FRAMES} line: the rank and its thread frames. */
    public static Map.Entry<Integer, List<BindingFrame>> frames(String line) throws IOException {
        Map<String, Object> m = SnapshotJsonReader.object(JsonReader.parse(line), "frames line");
        List<BindingFrame> out = new ArrayList<>();
        try {
            for (Object o : SnapshotJsonReader.list(m.get("frames"))) {
                Map<String, Object> f = SnapshotJsonReader.object(o, "frame");
                List<BindingFrame.Element> requests = null;
                if (f.get("requests") != null) {
                    requests = new ArrayList<>();
                    for (Object e : SnapshotJsonReader.list(f.get("requests"))) {
                        Map<String, Object> x = SnapshotJsonReader.object(e, "request element");
                        requests.add(new BindingFrame.Element((Long) x.get("handle"), (Long) x.get("registryId")));
                    }
                }
                out.add(new BindingFrame((String) f.get("thread"), (String) f.get("declaringClass"), (String) f.get("method"),
                        (String) f.get("receiverClass"), (Long) f.get("receiverHandle"), integers(f.get("intArguments")),
                        (String) f.get("receiverPredefined"), integers(f.get("receiverMembers")), (Long) f.get("receiverId"),
                        requests, (Long) f.get("worldId")));
            }
            return Map.entry(Math.toIntExact(SnapshotJsonReader.num(m, "rank")), out);
        } catch (ClassCastException | IllegalArgumentException e) {
            throw new IOException("not a frames line: " + e, e);
        }
    }

    private static List<Integer> integers(Object v) {
        if (v == null) return null;
        List<Integer> out = new ArrayList<>();
        for (Object o : SnapshotJsonReader.list(v)) out.add(o == null ? null : Math.toIntExact((Long) o));
        return out;
    }

    private static JsonWriter kind(String kind) {
        return new JsonWriter().beginObject().field(CollectorReport.KIND, kind);
    }
}
