package io.mpilens.headless.json;

import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.JobEnd;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.PendingOnFailedPeer;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.StatusWord;
import io.mpilens.headless.ft.Transition;
import io.mpilens.headless.ft.WaitFor;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Function;

/** JSON of the job model ({@code cominfo}/{@code hostinfo}) and of the job list ({@code jobs}), schema {@value #SCHEMA}. */
public final class FaultJson {
    public static final String SCHEMA = "mpilens-ft/1";

    private FaultJson() {
    }

    public static String model(JobModel m, boolean communicators, boolean hosts) {
        JsonWriter w = new JsonWriter().beginObject().field("schema", SCHEMA).field("job", m.job())
                .field("at", m.at().toString());
        status(w, m.status());
        w.name("processes").beginArray();
        for (RankStatus r : m.processes()) rank(w, r);
        w.endArray();
        if (communicators) {
            w.name("communicators").beginArray();
            for (CommunicatorView c : m.communicators()) {
                w.beginObject().field("key", c.key()).field("label", c.label()).field("state", c.state().name());
                ints(w, "members", c.members());
                if (c.inter()) {
                    w.name("groups").beginArray();
                    for (List<Integer> g : c.groups()) ints(w, g);
                    w.endArray();
                }
                ints(w, "failed", c.failed());
                ints(w, "unavailable", c.unavailable());
                w.field("derivedFrom", c.parent());
                w.name("recoveredBy").beginArray();
                for (String k : c.recoveredBy()) w.value(k);
                w.endArray();
                w.name("rebuiltBy").beginArray();
                for (String k : c.rebuiltBy()) w.value(k);
                w.endArray();
                w.name("replacements").beginArray();
                c.epochs().forEach((r, e) -> w.beginObject().field("rank", r).field("epoch", e)
                        .field("pid", m.member(c, r).map(RankStatus::pid).orElse(0L)).endObject());
                w.endArray();
                ints(w, "seenBy", c.seenBy());
                ints(w, "raisedOn", c.raisedOn());
                ints(w, "failedOn", m.failedOn(c.key()));
                w.name("recovering").beginArray();
                for (InFlightCall call : m.recovering(c.key())) {
                    w.beginObject().field("rank", call.rank()).field("thread", call.thread()).field("call", call.call())
                            .field("on", call.receiver()).endObject();
                }
                w.endArray();
                w.endObject();
            }
            w.endArray();
        }
        if (hosts) {
            w.name("hosts").beginArray();
            for (HostView h : m.hosts()) {
                w.beginObject().field("host", h.host()).field("state", h.state().name());
                w.name("daemons").beginArray();
                for (HostView.Daemon d : h.daemons()) {
                    w.beginObject().field("pid", d.pid()).field("command", d.command()).field("alive", d.alive()).endObject();
                }
                w.endArray();
                ints(w, "ranks", h.ranks().stream().map(RankStatus::rank).toList());
                w.endObject();
            }
            w.endArray();
        }
        pending(w, m);
        w.name("timeline").beginArray();
        for (Transition t : m.timeline()) {
            w.beginObject().field("at", t.at().toString()).field("subject", t.subject()).field("from", t.from())
                    .field("to", t.to()).field("why", t.why()).endObject();
        }
        return w.endArray().endObject().toString();
    }

    /**
     * {@code calls --json}: the ranks' states, the MPI call each of their threads is inside, and the
     * wait-for analysis ({@code waitFor}; omitted when {@code a} is null): the stuck ranks, how they
     * are stuck, and what the looks showed.
     */
    public static String calls(JobModel m, List<InFlightCall> calls, WaitFor.Analysis a, WaitFor.Looks looks) {
        JsonWriter w = new JsonWriter().beginObject().field("schema", SCHEMA).field("job", m.job())
                .field("at", m.at().toString());
        status(w, m.status());
        w.name("processes").beginArray();
        for (RankStatus r : m.processes()) rank(w, r);
        w.endArray();
        w.name("calls").beginArray();
        for (InFlightCall c : calls) {
            w.beginObject().field("rank", c.rank()).field("thread", c.thread()).field("call", c.call())
                    .field("receiver", c.receiver());
            if (c.handleId() != 0) w.field("handle", Long.toString(c.handleId()));
            if (c.peer() >= 0) w.field("peer", c.peer());
            if (c.anySource()) w.field("anySource", true);
            if (c.tag() == InFlightCall.ANY_TAG) w.field("anyTag", true);
            else if (c.tag() >= 0) w.field("tag", c.tag());
            if (c.sendTo() >= 0) w.field("sendTo", c.sendTo());
            if (c.sendTag() >= 0) w.field("sendTag", c.sendTag());
            if (c.requests() != null) {
                w.name("requests").beginArray();
                for (long id : c.requests()) w.value(id == 0 ? null : Long.toString(id));
                w.endArray();
            }
            ints(w, "failedPeers", c.failedPeers());
            w.field("neverCompletes", c.neverCompletes()).endObject();
        }
        w.endArray();
        pending(w, m);
        if (a != null) waitFor(w, a, looks == null ? WaitFor.Looks.ONE : looks);
        return w.endObject().toString();
    }

    private static void waitFor(JsonWriter w, WaitFor.Analysis a, WaitFor.Looks looks) {
        w.name("waitFor").beginObject().field("looks", looks.count());
        if (looks.count() > 1) {
            w.field("millisApart", Math.round(looks.secondsApart() * 1000))
                    .field("counted", looks.counted());
            ints(w, "confirmed", looks.confirmed());
            ints(w, "behindConfirmed", looks.behind());
            ints(w, "moved", looks.moved());
        }
        ints(w, "stuck", a.stuck());
        ints(w, "deadlocked", a.deadlocked());
        ints(w, "onCycles", a.onCycles());
        ints(w, "cycle", a.cycle());
        ints(w, "behindFailed", a.behindFailed());
        ints(w, "behindFinalized", a.behindFinalized());
        w.name("waits").beginArray();
        for (WaitFor.Wait x : a.waits()) {
            w.beginObject().field("rank", x.call().rank()).field("thread", x.call().thread())
                    .field("call", x.call().call());
            ints(w, "waitsFor", x.on());
            w.endObject();
        }
        w.endArray().endObject();
    }

    /** {@code alive}: whether a record's process still runs, null when this machine cannot tell (the observer layer answers it). */
    public static String jobs(List<JobDirectory.JobEntry> jobs, Function<JobRecord, Boolean> alive) {
        JsonWriter w = new JsonWriter().beginObject().field("schema", SCHEMA).name("jobs").beginArray();
        for (JobDirectory.JobEntry j : jobs) {
            w.beginObject().field("id", j.id()).field("dir", j.dir().toString()).name("ranks").beginArray();
            for (JobRecord r : j.records()) {
                w.beginObject().field("rank", r.rank()).field("size", r.size()).field("pid", r.pid())
                        .field("parentPid", r.parentPid()).field("host", r.host()).field("jdwp", r.jdwp())
                        .field("share", r.share()).field("binding", r.binding()).field("epoch", r.epoch())
                        .field("startTime", r.startTime().toString()).field("updated", r.updated().toString())
                        .field("mpiState", r.mpiState()).field("exited", r.exited() == null ? null : r.exited().toString())
                        .field("spawnedBy", r.spawnedBy()).field("namespace", r.namespace())
                        .name("alive");
                Boolean running = alive.apply(r);
                if (running == null) w.value((String) null);
                else w.value(running.booleanValue());
                w.endObject();
            }
            w.endArray();
            status(w, StatusWord.ofRecords(j.records(), alive));
            JobEnd end = JobEnd.of(j.records(), alive);
            w.name("end").beginObject().field("state", end.state().name());
            if (end.state() == JobEnd.State.ABORTED) {
                ints(w, "firstFailed", end.firstFailed());
                if (end.firstAt() != null) w.field("firstAt", end.firstAt().toString());
                ints(w, "endedAfter", end.endedAfter());
                if (end.endedAt() != null) w.field("endedAt", end.endedAt().toString());
                w.field("ambiguous", end.ambiguous()).field("summary", end.summary(ZoneOffset.UTC));
            }
            w.endObject();
            w.name("refused").beginArray();
            for (String s : j.refused()) w.value(s);
            w.endArray().endObject();
        }
        return w.endArray().endObject().toString();
    }



    /**
     * {@code "status":{"word":8,"name":"ER_OTH","reasons":[{"kind":"ERROR","bit":8,"rank":2,"epoch":0,
     * "what":"FAILED","detail":"process gone before MPI_Finalize"}]}}: the job's {@link StatusWord}.
     */
    public static void status(JsonWriter w, StatusWord s) {
        w.name("status").beginObject().field("word", s.bits()).field("name", s.name()).name("reasons").beginArray();
        for (StatusWord.Reason r : s.reasons()) {
            w.beginObject().field("kind", r.kind().name()).field("bit", r.bit()).field("rank", r.rank())
                    .field("epoch", r.epoch()).field("what", r.what()).field("detail", r.detail()).endObject();
        }
        w.endArray().endObject();
    }

    private static void pending(JsonWriter w, JobModel m) {
        w.name("pendingOnFailed").beginArray();
        for (PendingOnFailedPeer p : m.pendingOnFailed()) {
            w.beginObject().field("rank", p.rank()).field("request", Long.toString(p.requestId())).field("call", p.call())
                    .field("peer", p.peer()).field("tag", p.tag()).field("communicator", p.communicator())
                    .field("communicatorLabel", p.communicatorLabel()).endObject();
        }
        w.endArray();
    }

    private static void rank(JsonWriter w, RankStatus r) {
        w.beginObject().field("rank", r.rank()).field("epoch", r.epoch()).field("pid", r.pid())
                .field("host", r.host()).field("address", r.address()).field("state", r.state().name())
                .field("evidence", r.evidence()).field("answerMillis", r.answerMillis()).endObject();
    }

    private static void ints(JsonWriter w, String name, List<Integer> xs) {
        w.name(name);
        ints(w, xs);
    }

    private static void ints(JsonWriter w, List<Integer> xs) {
        w.beginArray();
        for (int x : xs) w.value(x);
        w.endArray();
    }
}
