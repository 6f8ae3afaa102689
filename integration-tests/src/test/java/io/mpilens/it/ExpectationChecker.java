package io.mpilens.it;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Compares what mpilens decoded for one rank with what the binding itself answered (the
 * example's expectation lines). Every key of an expectation is checked; an unknown key fails,
 * so an expectation can never be silently ignored.
 */
final class ExpectationChecker {
    private final ProcessSnapshot process;
    private final String sourceFile;
    private final List<String> problems = new ArrayList<>();

    ExpectationChecker(ProcessSnapshot process, String sourceFile) {
        this.process = process;
        this.sourceFile = sourceFile;
    }

    List<String> problems() {
        return problems;
    }

    void check(Expectation e) {
        if ("true".equals(e.values().get("absent"))) {
            // MPI gave no object at this line (a null handle): mpilens must not show one
            find(e, process.handles()).ifPresent(h -> problems.add("rank " + e.owner() + ": a " + e.kind()
                    + " is shown for a null handle: " + e.text() + "   [" + h + "]"));
            return;
        }
        boolean released = "RELEASED".equals(e.values().get("state"));
        Optional<HandleInfo> found = find(e, released ? process.released() : process.handles());
        if (found.isEmpty()) {
            problems.add("rank " + e.owner() + ": no " + (released ? "released " : "") + e.kind() + " for: " + e.text()
                    + "\n   handles seen: " + describe(process));
            return;
        }
        if (released && find(e, process.handles()).isPresent()) {
            problems.add("rank " + e.owner() + ": still live although released: " + e.text());
        }
        check(e, found.get());
    }

    /** Every key of the expectation against this handle (found some other way than by its line). */
    void check(Expectation e, HandleInfo h) {
        for (Map.Entry<String, String> kv : e.values().entrySet()) {
            String key = kv.getKey();
            String want = kv.getValue();
            if (key.equals("parents") || key.equals("communicators") || key.equals("heldBy") || key.equals("attachedTo")
                    || key.equals("usedBy") || key.equals("windows") || key.equals("files")) {
                want = sorted(want);
            }
            String got = actual(h, key);
            if (got == null) {
                problems.add("rank " + e.owner() + ": unknown expectation key '" + key + "' in: " + e.text());
            } else if (!got.equals(want)) {
                problems.add("rank " + e.owner() + " " + e.kind() + " line " + e.line() + " (" + e.point() + "): " + key
                        + " expected " + want + " but mpilens shows " + got + "   [" + h + "]");
            }
        }
    }

    private Optional<HandleInfo> find(Expectation e, List<HandleInfo> in) {
        HandleKind kind = HandleKind.valueOf(e.kind());
        if ("name".equals(e.values().get("match"))) {
            String name = e.values().get("name");
            return in.stream().filter(h -> h.kind() == kind && name.equals(h.name())).findFirst();
        }
        return in.stream().filter(h -> h.kind() == kind && atLine(h, e.line())).findFirst();
    }

    private boolean atLine(HandleInfo h, int line) {
        String site = h.createdAt();
        return site != null && site.endsWith("(" + sourceFile + ":" + line + ")");
    }

    private String actual(HandleInfo h, String key) {
        switch (key) {
            case "match": return h.name() == null ? "?" : "name"; // how it was found, not a value
            case "state": return h.state().name();
            case "refCount": return String.valueOf(h.refCount());
            case "name": return String.valueOf(h.name());
            case "predefined": return String.valueOf(h.predefined());
            case "leaked": return String.valueOf(h.leaked());
            case "cHandle": return h.hasCHandle() ? "0x" + Long.toHexString(h.cHandle()).toLowerCase(Locale.ROOT) : "none";
            case "rank": return String.valueOf(h.rank());
            case "size": return String.valueOf(h.size());
            case "members": return join(h.members());
            case "topology": return h.topology() == null ? "none" : h.topology().type().name();
            case "dims": return h.topology() == null ? "none" : join(h.topology().dims());
            case "periods": return h.topology() == null ? "none" : join(h.topology().periods());
            case "index": return h.topology() == null ? "none" : join(h.topology().index());
            case "edges": return h.topology() == null ? "none" : join(h.topology().edges());
            case "sources": return h.topology() == null || h.topology().sources() == null ? "none" : join(h.topology().sources());
            case "destinations": return h.topology() == null || h.topology().destinations() == null ? "none"
                    : join(h.topology().destinations());
            case "typeSize": return String.valueOf(h.typeSize());
            case "extent": return String.valueOf(h.extent());
            case "lowerBound": return String.valueOf(h.lowerBound());
            case "committed": return String.valueOf(h.committed());
            case "constructor": return String.valueOf(h.constructor());
            // the arguments as the example passed them, types by the names the examples use
            case "typeArguments": return io.mpilens.api.model.TypeArgument.describe(h.typeArguments(), this::label)
                    .replace(" ", "");
            case "typeMap": return typeMap(io.mpilens.api.model.TypeMap.of(h, process));
            case "infoPairs": return joined(h.infoPairs(), "=", ";");
            case "usedBy": return labels(h.usedBy());
            case "windows": return labels(h.windows());
            case "files": return labels(h.files());
            case "createdWithInfo": return label(h.createdWithInfo());
            case "fileName": return String.valueOf(h.fileName());
            case "accessMode": return String.valueOf(h.accessMode());
            case "accessModeFlags": return String.valueOf(h.accessModeFlags());
            case "attributes": return joined(h.attributes(), "=", ";");
            case "peer": return String.valueOf(h.peer());
            case "tag": return String.valueOf(h.tag());
            case "persistent": return String.valueOf(h.persistent());
            case "complete": return String.valueOf(h.complete());
            case "creatingCall": return String.valueOf(h.creatingCall());
            case "requestType": return h.requestType() == null ? "none" : h.requestType().label();
            case "windowSize": return String.valueOf(h.windowSize());
            case "displacementUnit": return String.valueOf(h.displacementUnit());
            case "errhandler": return label(h.errhandler());
            case "derivedFrom": return label(h.derivedFrom());
            case "communicator": return label(h.communicator());
            case "group": return label(h.group());
            case "parents": return labels(h.parents());
            case "communicators": return labels(h.communicators());
            case "heldBy": return labels(h.heldBy());
            case "attachedTo": return labels(h.attachedTo());
            default: return null;
        }
    }

    private static String joined(Map<?, ?> m, String between, String separator) {
        StringBuilder s = new StringBuilder();
        for (Map.Entry<?, ?> e : m.entrySet()) s.append(s.length() == 0 ? "" : separator).append(e.getKey()).append(between).append(e.getValue());
        return s.toString();
    }

    /**
     * The map as the examples observe it from MPI: data intervals in send order (runs merged
     * where one ends at the next's start), then the bounds.
     */
    static String typeMap(io.mpilens.api.model.TypeMap m) {
        if (!m.known()) return "unknown: " + m.whyUnknown();
        StringBuilder s = new StringBuilder();
        long from = 0, to = 0;
        boolean open = false;
        for (io.mpilens.api.model.TypeMap.Run r : m.runs()) {
            if (open && r.displacement() == to) {
                to = r.end();
                continue;
            }
            if (open) s.append(s.length() > 0 ? "," : "").append(from).append('-').append(to);
            from = r.displacement();
            to = r.end();
            open = true;
        }
        if (open) s.append(s.length() > 0 ? "," : "").append(from).append('-').append(to);
        if (m.cut()) s.append(",cut");
        return s + ";lb=" + m.lowerBound() + ";extent=" + m.extent();
    }

    /** A referenced handle as the examples name it: its predefined name, or "line:N" of its creation. */
    private String label(long id) {
        if (id == HandleInfo.NONE) return "none";
        Optional<HandleInfo> h = process.handle(id);
        if (h.isEmpty()) h = process.released().stream().filter(r -> r.id() == id).findFirst();
        if (h.isEmpty()) return "unknown#" + id;
        HandleInfo r = h.get();
        if (r.predefined() && r.name() != null) return r.name();
        String site = r.createdAt();
        if (site != null && site.contains("(" + sourceFile + ":")) {
            return "line:" + site.substring(site.lastIndexOf(':') + 1, site.length() - 1);
        }
        return r.name() != null ? r.name() : "#" + id;
    }

    private String labels(long[] ids) {
        List<String> out = new ArrayList<>();
        for (long id : ids) out.add(label(id));
        out.sort(null);
        return String.join(",", out);
    }

    private static String join(int[] v) {
        StringBuilder b = new StringBuilder();
        for (int x : v) b.append(b.length() == 0 ? "" : ",").append(x);
        return b.toString();
    }

    private static String join(boolean[] v) {
        StringBuilder b = new StringBuilder();
        for (boolean x : v) b.append(b.length() == 0 ? "" : ",").append(x);
        return b.toString();
    }

    static String describe(ProcessSnapshot p) {
        StringBuilder b = new StringBuilder();
        for (HandleInfo h : p.handles()) {
            if (h.predefined()) continue;
            b.append("\n     ").append(h).append(" at ").append(h.createdAt());
        }
        return b.toString();
    }

    static boolean orphan(HandleInfo h) {
        return h.state() == Lifecycle.FREED;
    }

    static String sorted(String commaList) {
        String[] parts = commaList.split(",");
        Arrays.sort(parts);
        return String.join(",", parts);
    }
}
