package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.headless.ft.CommState;
import io.mpilens.headless.ft.CommunicatorView;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.text.FaultBoxes;
import io.mpilens.headless.text.MemberCell;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cominfo: one box per communicator of the job's fault-tolerance model
 * ({@link CommunicatorView}: identity across ranks, state, lineage), one cell per member
 * process. This class only lays the model out; the states come from {@code headless.ft}.
 */
public final class CommunicatorBoxes {
    private CommunicatorBoxes() {
    }

    public static List<Box.LegendEntry> legend() {
        List<Box.LegendEntry> out = new ArrayList<>();
        for (ProcessState s : ProcessState.values()) out.add(new Box.LegendEntry(s.name(), StatePalette.fill(s), false));
        for (CommState s : CommState.values()) out.add(new Box.LegendEntry("comm " + s.name(), StatePalette.border(s), true));
        return out;
    }

    public static List<Box> of(JobView job) {
        List<CommunicatorView> comms = job.model().communicators();
        Map<String, String> labelOf = new HashMap<>();
        for (CommunicatorView c : comms) labelOf.put(c.key(), c.label());
        List<Box> boxes = new ArrayList<>();
        for (CommunicatorView c : comms) boxes.add(box(job, c, labelOf));
        return boxes;
    }

    private static Box box(JobView job, CommunicatorView c, Map<String, String> labelOf) {
        List<Box.Cell> cells = new ArrayList<>();
        for (int m : c.members()) {
            // a replacement (REBUILD) is marked by the same rule as in the SVG (MemberCell)
            MemberCell cell = MemberCell.of(job.model(), c, m);
            cells.add(new Box.Cell(cell.label(), cell.detail(), StatePalette.fill(cell.state()), cell.tooltip()));
        }
        Map<Integer, HandleInfo> handles = handles(job, c);
        HandleInfo any = handles.isEmpty() ? null : handles.values().iterator().next();
        StringBuilder sub = new StringBuilder("size ").append(c.members().size());
        if (c.inter()) sub.append(", inter: ").append(c.groups().get(0)).append(" | ").append(c.groups().get(1));
        else if (any != null && any.inter()) sub.append(", inter");
        if (any != null && any.topology() != null) sub.append(", ").append(any.topology().type().name().toLowerCase());
        if (c.parent() != null) sub.append(", from ").append(labelOf.getOrDefault(c.parent(), c.parent()));
        List<Integer> freedOn = new ArrayList<>();
        for (Map.Entry<Integer, HandleInfo> e : handles.entrySet()) {
            if (e.getValue().state() == Lifecycle.FREED) freedOn.add(e.getKey());
        }
        if (!freedOn.isEmpty()) sub.append(", orphan on ").append(freedOn.size() == handles.size() ? "all ranks" : "ranks " + freedOn);
        List<String> shrunkBy = new ArrayList<>();
        for (String k : c.recoveredBy()) if (!c.rebuiltBy().contains(k)) shrunkBy.add(labelOf.getOrDefault(k, k));
        if (!shrunkBy.isEmpty()) sub.append(", recovered by ").append(String.join(", ", shrunkBy));
        if (c.rebuilt()) {
            sub.append(", rebuilt with replacements as ")
                    .append(String.join(", ", c.rebuiltBy().stream().map(k -> labelOf.getOrDefault(k, k)).toList()));
        }
        List<InFlightCall> inside = job.model().recovering(c.key());
        if (!inside.isEmpty()) sub.append(", inside ").append(String.join("; ", FaultBoxes.recoveringCalls(inside)));
        if (!c.raisedOn().isEmpty()) sub.append(", MPI exception on ranks ").append(c.raisedOn());
        StringBuilder tip = new StringBuilder(c.label()).append(" (").append(c.stateName()).append(")\n").append(sub);
        if (any != null) {
            tip.append("\ncreated by ").append(any.creatingCall() == null ? "(predefined)" : any.creatingCall());
            if (any.createdAt() != null) tip.append(" at ").append(any.createdAt());
        }
        tip.append("\nheld on ranks ").append(c.seenBy());
        if (!c.failed().isEmpty()) tip.append("\nfailed members ").append(c.failed());
        if (!c.unavailable().isEmpty()) tip.append("\nunavailable members (not answering, not known dead) ").append(c.unavailable());
        return new Box(c.label(), sub.toString(), c.stateName(), StatePalette.border(c.state()), cells, tip.toString());
    }

    /** Each rank's own handle of the communicator, from the rank's last snapshot. */
    private static Map<Integer, HandleInfo> handles(JobView job, CommunicatorView c) {
        Map<Integer, HandleInfo> out = new java.util.TreeMap<>();
        for (Map.Entry<Integer, Long> e : c.handles().entrySet()) {
            job.rank(e.getKey()).map(RankView::process).flatMap(p -> p.handle(e.getValue()))
                    .ifPresent(h -> out.put(e.getKey(), h));
        }
        return out;
    }
}
