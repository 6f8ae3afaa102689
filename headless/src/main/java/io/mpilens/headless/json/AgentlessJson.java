package io.mpilens.headless.json;

import io.mpilens.headless.agentless.AgentlessProcess;
import io.mpilens.headless.agentless.BindingObject;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The top-level {@code agentless} array of schema {@value SnapshotJson#SCHEMA} (an additive
 * member): processes read without the agent, each marked {@code "reduced":true} with the list of
 * what is missing. Documented in {@code docs/json-schema.md}.
 */
public final class AgentlessJson {
    /** How to get what is missing, in the JSON as in the text banner. */
    public static final String FULL_PICTURE = "start the ranks with -javaagent:mpilens-agent.jar"
            + " (or attach it: java -jar mpilens-agent.jar attach PID)";

    private AgentlessJson() {
    }

    /** Writes {@code "agentless":[...]} into an open top-level object. */
    static void write(JsonWriter w, List<AgentlessProcess> processes) {
        w.name("agentless").beginArray();
        for (AgentlessProcess p : processes) process(w, p);
        w.endArray();
    }

    private static void process(JsonWriter w, AgentlessProcess p) {
        w.beginObject().field("source", p.source()).field("reduced", true);
        w.name("missing").beginArray();
        for (String m : AgentlessProcess.MISSING) w.value(m);
        w.endArray();
        w.field("fullPicture", FULL_PICTURE);
        w.field("binding", p.binding());
        if (p.rank() >= 0) w.field("rank", p.rank());
        if (p.worldSize() >= 0) w.field("worldSize", p.worldSize());
        if (p.rankFrom() != null) w.field("rankFrom", p.rankFrom());
        w.field("mpiState", p.mpiState().name());
        w.field("objectsNotRead", p.notRead());
        w.name("objects").beginArray();
        for (BindingObject o : p.objects()) object(w, o);
        w.endArray();
        w.endObject();
    }

    private static void object(JsonWriter w, BindingObject o) {
        w.beginObject().field("kind", o.kind().name()).field("bindingClass", o.type());
        if (o.name() != null) w.field("name", o.name());
        if (o.cHandle() != null) {
            w.field("cHandle", "0x" + Long.toHexString(o.cHandle())).field("nullHandle", o.nullHandle());
        }
        if (!o.contexts().isEmpty()) ints(w, "contexts", o.contexts());
        if (o.rank() >= 0) w.field("rank", o.rank());
        if (o.size() >= 0) w.field("size", o.size());
        if (!o.members().isEmpty()) ints(w, "members", o.members());
        w.name("fields").beginObject();
        for (Map.Entry<String, String> e : new TreeMap<>(o.details()).entrySet()) w.field(e.getKey(), e.getValue());
        w.endObject();
        w.endObject();
    }

    private static void ints(JsonWriter w, String name, List<Integer> values) {
        w.name(name).beginArray();
        for (int v : values) w.value(v);
        w.endArray();
    }
}
