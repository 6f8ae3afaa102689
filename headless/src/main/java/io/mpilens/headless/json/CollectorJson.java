package io.mpilens.headless.json;

import io.mpilens.api.job.JobRecordLayout;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.job.JobRecord;
import io.mpilens.headless.observe.CollectorReport;
import java.util.ArrayList;
import java.util.List;

/** A collector's report on the wire ({@link CollectorReport}, schema {@value CollectorReport#SCHEMA}): JSON lines, one flat object each. */
public final class CollectorJson {
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
            out.add(kind("rank").field("rank", r.rank()).field("epoch", r.epoch()).field("pid", r.pid())
                    .field("parentPid", r.parentPid()).field("host", r.host()).field("address", r.address())
                    .field("state", r.state().name()).field("evidence", r.evidence())
                    .field("answerMillis", r.answerMillis()).endObject().toString());
        }
        for (HostView.Daemon d : report.daemons()) {
            out.add(kind("daemon").field("pid", d.pid()).field("command", d.command()).field("alive", d.alive())
                    .endObject().toString());
        }
        for (String s : report.refused()) out.add(kind("refused").field("reason", s).endObject().toString());
        return out;
    }

    private static JsonWriter kind(String kind) {
        return new JsonWriter().beginObject().field(CollectorReport.KIND, kind);
    }
}
