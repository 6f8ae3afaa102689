package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Topology;
import io.mpilens.api.model.TypeArgument;
import io.mpilens.api.model.TypeMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The details pane of MPI Handles: every field of one handle as label and text. Fields a kind
 * or binding does not have ({@link HandleInfo#UNKNOWN}, {@link HandleInfo#NONE}, empty) are
 * left out so the pane shows what the snapshot knows.
 */
public final class HandleDetails {
    /** One line of the pane. */
    public record Field(String label, String value) {
        @Override
        public String toString() {
            return label + ": " + value;
        }
    }

    private HandleDetails() {
    }

    public static List<Field> of(HandleInfo h) {
        return of(h, null);
    }

    /** With a datatype's map ({@code map} null: none computed): its summary and holes as text beside the strip. */
    public static List<Field> of(HandleInfo h, TypeMap map) {
        List<Field> f = new ArrayList<>();
        f.add(new Field("Name", HandleColumn.displayName(h)));
        f.add(new Field("Kind", h.kind().name()));
        // a request of the ring: its short form, and the full id that --json and the API carry
        f.add(new Field("Id", HandleIds.inRing(h.id()) ? HandleIds.label(h.id()) + "  (ring request; id " + h.id() + ")"
                : HandleIds.label(h.id())));
        f.add(new Field("State", HandleColumn.state(h)));
        f.add(new Field("Lifecycle", h.state().name()));
        f.add(new Field("Predefined", yesNo(h.predefined())));
        f.add(new Field("Leaked", yesNo(h.leaked())));
        f.add(new Field("Reference count", String.valueOf(h.refCount())));
        f.add(new Field("Held by", h.heldBy().length == 0 ? "nothing" : ids(h.heldBy())));
        number(f, "Owner rank", h.ownerRank());
        text(f, "Binding class", h.bindingClass());
        f.add(new Field("C handle", h.hasCHandle() ? "0x" + Long.toHexString(h.cHandle()) : "not known"));
        text(f, "Creating call", h.creatingCall());
        number(f, "Rank", h.rank());
        number(f, "Size", h.size());
        if (h.members().length > 0) f.add(new Field("Members", ranks(h.members())));
        if (h.kind() == HandleKind.COMMUNICATOR) f.add(new Field("Intercommunicator", yesNo(h.inter())));
        if (h.remoteMembers().length > 0) f.add(new Field("Remote members", ranks(h.remoteMembers())));
        if (h.topology() != null) f.add(new Field("Topology", topology(h.topology())));
        id(f, "Group", h.group());
        id(f, "Derived from", h.derivedFrom());
        if (h.communicators().length > 0) f.add(new Field("Communicators built on it", ids(h.communicators())));
        id(f, "Errhandler", h.errhandler());
        id(f, "Communicator", h.communicator());
        number(f, "Peer", h.peer());
        number(f, "Tag", h.tag());
        if (h.kind() == HandleKind.REQUEST) {
            if (h.requestType() != null) f.add(new Field("Request type", h.requestType().label()));
            f.add(new Field("Persistent", yesNo(h.persistent())));
            f.add(new Field("Complete", yesNo(h.complete())));
        }
        if (h.kind() == HandleKind.DATATYPE) {
            text(f, "Constructor", h.constructor());
            if (!h.typeArguments().isEmpty()) {
                f.add(new Field("Arguments", "(" + TypeArgument.describe(h.typeArguments(), HandleIds::label) + ")"));
            }
            f.add(new Field("Committed", yesNo(h.committed())));
            if (map != null) typeMap(f, map);
        }
        bytes(f, "Type size", h.typeSize());
        bytes(f, "Extent", h.extent());
        bytes(f, "Lower bound", h.lowerBound());
        if (h.parents().length > 0) f.add(new Field("Built from", ids(h.parents())));
        bytes(f, "Window size", h.windowSize());
        number(f, "Displacement unit", h.displacementUnit());
        if (h.attachedTo().length > 0) f.add(new Field("Attached to", ids(h.attachedTo())));
        text(f, "File name", h.fileName());
        if (h.accessModeFlags() != null) f.add(new Field("Access mode", h.accessModeFlags() + " (" + h.accessMode() + ")"));
        id(f, "Created with info", h.createdWithInfo());
        if (h.hasInfoPairs()) {
            StringBuilder pairs = new StringBuilder(pairs(h.infoPairs()));
            if (h.infoPairCount() > h.infoPairs().size()) pairs.append(" \u2026 (").append(h.infoPairCount()).append(" pairs)");
            f.add(new Field(h.kind() == HandleKind.INFO ? "Info pairs" : "Info pairs when created", pairs.length() == 0 ? "none" : pairs.toString()));
        }
        if (h.usedBy().length > 0) f.add(new Field("Used by", ids(h.usedBy())));
        if (h.windows().length > 0) f.add(new Field("Windows on it", ids(h.windows())));
        if (h.files().length > 0) f.add(new Field("Files on it", ids(h.files())));
        if (!h.attributes().isEmpty()) f.add(new Field("Attributes", pairs(h.attributes())));
        if (h.creationStack().isEmpty()) {
            f.add(new Field("Created at", h.predefined() ? "(predefined)" : "not recorded"));
        } else {
            f.add(new Field("Created at", h.createdAt()));
            for (String frame : h.creationStack().subList(1, h.creationStack().size())) f.add(new Field("  called from", frame));
        }
        return f;
    }

    /** The pane's text: one {@code label: value} line per field. */
    public static String text(HandleInfo h) {
        StringBuilder sb = new StringBuilder();
        for (Field f : of(h)) sb.append(f).append('\n');
        return sb.toString();
    }

    /** {@code k=v, k=v} in the map's order. */
    private static String pairs(Map<?, ?> m) {
        StringBuilder s = new StringBuilder();
        m.forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return s.toString();
    }

    private static void typeMap(List<Field> f, TypeMap m) {
        if (!m.known()) {
            f.add(new Field("Type map", "not known: " + m.whyUnknown()));
            return;
        }
        String unit = m.unit().label() + "s";
        f.add(new Field("Type map", m.runs().size() + (m.runs().size() == 1 ? " run, " : " runs, ") + m.size() + " of "
                + m.extent() + " " + unit + " data" + (m.cut() ? " (cut at " + TypeMap.MAX_RUNS + " runs)" : "")));
        if (m.cut()) return;
        StringBuilder holes = new StringBuilder();
        for (TypeMap.Hole hole : m.holes()) {
            holes.append(holes.length() == 0 ? "" : ", ").append(hole.displacement()).append("..").append(hole.end());
        }
        f.add(new Field("Holes", m.holes().isEmpty() ? "none" : m.holeTotal() + " " + unit + ": " + holes));
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }

    private static void text(List<Field> f, String label, String v) {
        if (v != null && !v.isEmpty()) f.add(new Field(label, v));
    }

    private static void number(List<Field> f, String label, int v) {
        if (v != HandleInfo.UNKNOWN) f.add(new Field(label, String.valueOf(v)));
    }

    private static void id(List<Field> f, String label, long v) {
        if (v != HandleInfo.NONE) f.add(new Field(label, HandleIds.label(v)));
    }

    private static void bytes(List<Field> f, String label, long v) {
        if (v != HandleInfo.UNKNOWN) f.add(new Field(label, String.valueOf(v)));
    }

    private static String ids(long[] ids) {
        StringBuilder sb = new StringBuilder();
        for (long id : ids) sb.append(sb.length() == 0 ? "" : ", ").append(HandleIds.label(id));
        return sb.toString();
    }

    private static String ranks(int[] ranks) {
        return Arrays.toString(ranks);
    }

    private static String topology(Topology t) {
        if (t.type() == Topology.Type.CARTESIAN) return "cartesian " + Arrays.toString(t.dims()) + " periods " + Arrays.toString(t.periods());
        if (t.type() == Topology.Type.DIST_GRAPH) {
            return t.neighboursKnown() ? "distributed graph, sources " + Arrays.toString(t.sources())
                    + " destinations " + Arrays.toString(t.destinations()) : "distributed graph (neighbours not known)";
        }
        return t.type().name().toLowerCase(java.util.Locale.ROOT) + " index " + Arrays.toString(t.index()) + " edges " + Arrays.toString(t.edges());
    }
}
