package io.mpilens.plugin.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hostinfo: one box per host, one cell per MPI process on it. Launcher daemons are not known
 * yet (job discovery, issue 4), so hosts hold only the processes the debugger sees.
 */
public final class HostBoxes {
    private HostBoxes() {
    }

    public static List<Box.LegendEntry> legend() {
        List<Box.LegendEntry> out = new ArrayList<>();
        for (ProcessState s : ProcessState.values()) out.add(new Box.LegendEntry(s.name(), StatePalette.fill(s), false));
        for (HostState s : HostState.values()) out.add(new Box.LegendEntry("host " + s.name(), StatePalette.border(s), true));
        return out;
    }

    public static List<Box> of(JobView job) {
        Map<String, List<RankView>> byHost = new LinkedHashMap<>();
        for (RankView r : job.ranks()) byHost.computeIfAbsent(r.host(), h -> new ArrayList<>()).add(r);
        List<Box> boxes = new ArrayList<>();
        for (Map.Entry<String, List<RankView>> e : byHost.entrySet()) {
            List<ProcessState> states = new ArrayList<>();
            List<Box.Cell> cells = new ArrayList<>();
            for (RankView r : e.getValue()) {
                states.add(r.state());
                String pid = r.process() == null ? "pid ?" : "pid " + r.process().pid();
                String tip = r.label() + ": " + r.state() + (r.suspended() ? " (suspended)" : "") + " \u2014 " + pid
                        + ", " + r.handleCount() + " handles, debug target " + r.target()
                        + (r.problem() == null ? "" : "\n" + r.problem());
                cells.add(new Box.Cell(r.label(), pid, StatePalette.fill(r.state()), tip));
            }
            HostState state = HostState.of(states);
            String sub = e.getValue().size() + (e.getValue().size() == 1 ? " process" : " processes");
            boxes.add(new Box(e.getKey(), sub, state.name(), StatePalette.border(state), cells, e.getKey() + ": " + state + ", " + sub));
        }
        return boxes;
    }
}
