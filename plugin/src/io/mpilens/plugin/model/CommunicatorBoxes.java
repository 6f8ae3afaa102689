package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Cominfo: one box per communicator of the job, one cell per member process. Each rank holds
 * its own handle of a communicator; handles of different ranks are the same communicator when
 * name, creating call, creation site and members agree (the registry has no job-wide id).
 */
public final class CommunicatorBoxes {
    private CommunicatorBoxes() {
    }

    public static List<Box.LegendEntry> legend() {
        List<Box.LegendEntry> out = new ArrayList<>();
        for (ProcessState s : ProcessState.values()) out.add(new Box.LegendEntry(s.name(), StatePalette.fill(s), false));
        for (CommunicatorState s : CommunicatorState.values()) {
            out.add(new Box.LegendEntry("comm " + s.name(), StatePalette.border(s), true));
        }
        return out;
    }

    public static List<Box> of(JobView job) {
        Map<List<Object>, Group> groups = new LinkedHashMap<>();
        Map<String, List<Object>> keyOfHandle = new HashMap<>(); // "rank:id" -> key
        for (RankView r : job.ranks()) {
            ProcessSnapshot p = r.process();
            if (p == null) continue;
            for (HandleInfo h : p.handles()) {
                if (h.kind() != HandleKind.COMMUNICATOR) continue;
                int[] members = members(h);
                if (members.length == 0) continue; // MPI_COMM_NULL and the like
                List<Object> key = List.of(String.valueOf(h.name()), String.valueOf(h.creatingCall()),
                        String.valueOf(h.createdAt()), h.predefined(), Arrays.toString(members));
                groups.computeIfAbsent(key, k -> new Group(members)).add(r, h);
                keyOfHandle.put(p.rank() + ":" + h.id(), key);
            }
        }
        List<Box> boxes = new ArrayList<>();
        for (Group g : groups.values()) {
            String from = null;
            for (Map.Entry<RankView, HandleInfo> e : g.handles.entrySet()) {
                HandleInfo h = e.getValue();
                if (h.derivedFrom() == HandleInfo.NONE) continue;
                List<Object> parent = keyOfHandle.get(e.getKey().rank() + ":" + h.derivedFrom());
                if (parent != null) {
                    from = groups.get(parent).title();
                    break;
                }
            }
            boxes.add(g.box(job, from));
        }
        // every rank has its own MPI_COMM_SELF: after the communicators ranks share
        boxes.sort(java.util.Comparator.comparing(b -> b.title().equals("MPI_COMM_SELF")));
        return boxes;
    }

    private static int[] members(HandleInfo h) {
        TreeSet<Integer> all = new TreeSet<>();
        for (int m : h.members()) all.add(m);
        for (int m : h.remoteMembers()) all.add(m);
        return all.stream().mapToInt(Integer::intValue).toArray();
    }

    private static final class Group {
        final int[] members;
        final Map<RankView, HandleInfo> handles = new LinkedHashMap<>();

        Group(int[] members) {
            this.members = members;
        }

        void add(RankView r, HandleInfo h) {
            handles.put(r, h);
        }

        HandleInfo first() {
            return handles.values().iterator().next();
        }

        String title() {
            HandleInfo h = first();
            if (h.name() != null && !h.name().isEmpty()) return h.name();
            String call = h.creatingCall() == null ? "communicator" : h.creatingCall();
            return h.createdAt() == null ? call + " #" + h.id() : call + " @ " + shortSite(h.createdAt());
        }

        Box box(JobView job, String from) {
            List<ProcessState> states = new ArrayList<>();
            List<Box.Cell> cells = new ArrayList<>();
            for (int m : members) {
                ProcessState s = job.stateOf(m);
                states.add(s);
                RankView rv = job.rank(m).orElse(null);
                String where = rv == null || rv.process() == null ? ""
                        : " \u2014 pid " + rv.process().pid() + " on " + rv.host();
                String problem = rv == null ? " \u2014 no debug target for this rank"
                        : rv.problem() == null ? "" : " \u2014 " + rv.problem();
                cells.add(new Box.Cell("r" + m, s.name(), StatePalette.fill(s), "rank " + m + ": " + s + where + problem));
            }
            CommunicatorState state = CommunicatorState.of(states);
            StringBuilder sub = new StringBuilder("size ").append(members.length);
            if (first().inter()) sub.append(", inter");
            if (first().topology() != null) sub.append(", ").append(first().topology().type().name().toLowerCase());
            if (from != null) sub.append(", from ").append(from);
            List<Integer> freedOn = new ArrayList<>();
            for (Map.Entry<RankView, HandleInfo> e : handles.entrySet()) {
                if (e.getValue().state() == Lifecycle.FREED) freedOn.add(e.getKey().rank());
            }
            if (!freedOn.isEmpty()) sub.append(", orphan on ").append(freedOn.size() == handles.size() ? "all ranks" : "ranks " + freedOn);
            HandleInfo h = first();
            String tip = title() + " (" + state + ")\n" + sub + "\ncreated by " + h.creatingCall()
                    + (h.createdAt() == null ? "" : " at " + h.createdAt()) + "\nheld on " + handles.size() + " rank(s)";
            return new Box(title(), sub.toString(), state.name(), StatePalette.border(state), cells, tip);
        }
    }

    /** {@code io.mpilens.examples.openmpi.HandleTour.main(HandleTour.java:46)} → {@code HandleTour.java:46}. */
    static String shortSite(String frame) {
        int open = frame.lastIndexOf('(');
        int close = frame.lastIndexOf(')');
        return open >= 0 && close > open ? frame.substring(open + 1, close) : frame;
    }
}
