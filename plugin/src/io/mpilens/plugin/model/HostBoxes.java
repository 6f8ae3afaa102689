package io.mpilens.plugin.model;

import io.mpilens.headless.ft.HostState;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * Hostinfo: one box per host of the job's fault-tolerance model ({@link HostView}), its
 * launcher daemons in the subtitle, one cell per MPI process on it.
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
        List<Box> boxes = new ArrayList<>();
        for (HostView h : job.model().hosts()) {
            List<Box.Cell> cells = new ArrayList<>();
            for (RankStatus r : h.ranks()) {
                // a replacement (REBUILD: a later epoch of the rank) is read from its own debug target
                RankView rv = r.epoch() == 0 ? job.rank(r.rank()).orElse(null) : job.ranks().stream()
                        .filter(v -> v.spawned() != null && v.target().equals(r.address())).findFirst().orElse(null);
                String suspended = rv != null && rv.suspended() ? " (suspended)" : "";
                String who = "rank " + r.rank() + (r.epoch() > 0 ? " epoch " + r.epoch() : "");
                String tip = who + ": " + r.state() + suspended + " \u2014 pid " + r.pid()
                        + (r.parentPid() > 0 ? ", started by pid " + r.parentPid() : "")
                        + ", " + (rv == null ? 0 : rv.handleCount()) + " handles, debug target " + r.address()
                        + "\n" + r.evidence();
                cells.add(new Box.Cell(who, "pid " + r.pid(), StatePalette.fill(r.state()), tip));
            }
            StringBuilder sub = new StringBuilder().append(h.ranks().size()).append(h.ranks().size() == 1 ? " process" : " processes");
            for (HostView.Daemon d : h.daemons()) {
                sub.append("; ").append(d.command()).append(" pid ").append(d.pid()).append(d.alive() ? "" : " GONE");
            }
            boxes.add(new Box(h.host(), sub.toString(), h.state().name(), StatePalette.border(h.state()), cells,
                    h.host() + ": " + h.state() + ", " + sub));
        }
        return boxes;
    }
}
