package io.mpilens.headless.leaks;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MpiState;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.json.JsonWriter;
import io.mpilens.headless.observe.JobSnapshot;
import io.mpilens.headless.text.RankRanges;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Handles a program lost track of, grouped by where they were created, biggest group first:
 * wrappers garbage-collected without {@code free()} (always), and — once a rank has ended (MPI
 * finalized, or its heap dump taken at death) — requests never completed and handles still
 * active. A running rank's active handles are in use, not leaked, so they are not counted.
 */
public record LeakReport(List<Group> groups, int ranksEnded, int ranksRunning) {
    /**
     * /2: problem and kind as upper-case names, ids as strings, unread ranks under {@code errors},
     * as in {@code mpilens/1} (/1 had lower case, numbers and {@code failures}).
     */
    public static final String SCHEMA = "mpilens-leaks/2";
    static final String NO_SITE = "(creation site not recorded: agent option requestStacks=true)";

    public enum Problem {
        LEAKED_WRAPPER("collected without free()"),
        REQUEST_NEVER_COMPLETED("request never completed"),
        STILL_ACTIVE("still active at the end");

        final String text;

        Problem(String text) {
            this.text = text;
        }
    }

    /** Handles with the same problem, kind and creation site. */
    public record Group(Problem problem, HandleKind kind, String site, TreeSet<Integer> ranks, List<Long> ids) {
        public int count() {
            return ids.size();
        }
    }

    /** @param postMortem the snapshots come from heap dumps: every rank has ended */
    public static LeakReport of(JobSnapshot job, boolean postMortem) {
        Map<List<Object>, Group> groups = new LinkedHashMap<>();
        int ended = 0, running = 0;
        for (JobSnapshot.Rank r : job.ranks()) {
            ProcessSnapshot p = r.process();
            boolean end = postMortem || p.mpiState() == MpiState.FINALIZED;
            if (end) ended++;
            else running++;
            for (HandleInfo h : p.handles()) {
                if (h.predefined()) continue;
                Problem problem = h.leaked() ? Problem.LEAKED_WRAPPER
                        : !end ? null
                        : h.kind() == HandleKind.REQUEST && !h.complete() ? Problem.REQUEST_NEVER_COMPLETED
                        : h.state() == Lifecycle.ACTIVE && h.kind() != HandleKind.REQUEST ? Problem.STILL_ACTIVE
                        : null;
                if (problem != null) add(groups, problem, h, p.rank());
            }
            for (HandleInfo h : p.released()) {
                if (h.leaked() && !h.predefined()) add(groups, Problem.LEAKED_WRAPPER, h, p.rank());
            }
        }
        List<Group> sorted = new ArrayList<>(groups.values());
        sorted.sort(Comparator.comparingInt(Group::count).reversed().thenComparing(Group::problem)
                .thenComparing(g -> g.kind().name()).thenComparing(Group::site));
        return new LeakReport(sorted, ended, running);
    }

    private static void add(Map<List<Object>, Group> groups, Problem problem, HandleInfo h, int rank) {
        String site = h.createdAt() == null ? NO_SITE : h.createdAt();
        groups.computeIfAbsent(List.of(problem, h.kind(), site),
                k -> new Group(problem, h.kind(), site, new TreeSet<>(), new ArrayList<>())).ranks().add(rank);
        groups.get(List.of(problem, h.kind(), site)).ids().add(h.id());
    }

    public int total() {
        return groups.stream().mapToInt(Group::count).sum();
    }

    /** At most 80 columns; the creation site on its own line. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "%d leaked handle%s in %d place%s (%d rank%s ended%s)", total(),
                total() == 1 ? "" : "s", groups.size(), groups.size() == 1 ? "" : "s", ranksEnded,
                ranksEnded == 1 ? "" : "s", ranksRunning == 0 ? "" : ", " + ranksRunning + " still running"));
        if (ranksRunning > 0) {
            out.add("  (of running ranks only wrappers garbage-collected without free() count)");
        }
        if (groups.isEmpty()) return out;
        out.add(String.format(Locale.ROOT, "%6s  %-26s %-12s %s", "COUNT", "PROBLEM", "KIND", "RANKS"));
        for (Group g : groups) {
            out.add(String.format(Locale.ROOT, "%6d  %-26s %-12s %s", g.count(), g.problem().text,
                    g.kind().name().toLowerCase(Locale.ROOT), ranks(g.ranks())));
            out.add("        at " + g.site());
        }
        return out;
    }

    /** {@code 0-63}, {@code ?,1,3-5} ({@code ?}: a rank not known), cut after a comma to the 32 columns left of 80. */
    static String ranks(TreeSet<Integer> ranks) {
        String known = RankRanges.format(new ArrayList<>(ranks.tailSet(0)), ",");
        String b = ranks.isEmpty() || ranks.first() >= 0 ? known : known.isEmpty() ? "?" : "?," + known;
        return b.length() > 30 ? b.substring(0, b.lastIndexOf(',', 26) + 1) + "..." : b; // never half a rank
    }

    public String json(List<JobSnapshot.Failure> failures) {
        JsonWriter w = new JsonWriter().beginObject().field("schema", SCHEMA).field("total", total())
                .field("ranksEnded", ranksEnded).field("ranksRunning", ranksRunning).name("groups").beginArray();
        for (Group g : groups) {
            w.beginObject().field("problem", g.problem().name())
                    .field("kind", g.kind().name()).field("site", g.site())
                    .field("count", g.count()).name("ranks").beginArray();
            for (int r : g.ranks()) w.value(r);
            w.endArray().name("ids").beginArray();
            for (long id : g.ids()) w.value(Long.toString(id));
            w.endArray().endObject();
        }
        w.endArray().name("errors").beginArray();
        for (JobSnapshot.Failure f : failures) {
            w.beginObject().field("address", f.address()).field("message", f.message()).endObject();
        }
        return w.endArray().endObject().toString();
    }
}
