package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.ProcessSnapshot;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The MPI Handles tree: job → rank → kind → handle, indexed so a lazy (virtual) viewer asks
 * only for what it shows. Nodes are value objects keyed by job, target, rank and handle id,
 * so a refreshed tree keeps the viewer's expansion and selection.
 */
public final class HandleTree {
    public record JobNode(String name) {
    }

    public record RankNode(String target, int rank) {
    }

    public record KindNode(RankNode owner, HandleKind kind) {
    }

    /** A handle row; equal to the same handle in a later snapshot. */
    public record HandleRow(KindNode parent, HandleInfo handle) {
        @Override
        public boolean equals(Object o) {
            return o instanceof HandleRow r && r.parent.equals(parent) && r.handle.id() == handle.id();
        }

        @Override
        public int hashCode() {
            return Objects.hash(parent, handle.id());
        }
    }

    private final JobView job;
    private final JobNode root;
    private final List<RankNode> ranks = new ArrayList<>();
    private final Map<RankNode, RankView> rankViews = new HashMap<>();
    private final Map<RankNode, List<KindNode>> kinds = new HashMap<>();
    private final Map<KindNode, List<HandleRow>> rows = new HashMap<>();
    private final Map<RankNode, Map<Long, HandleRow>> byId = new HashMap<>();
    private final HandleFilter filter;
    private int shown;

    public HandleTree(JobView job) {
        this(job, HandleFilter.ALL);
    }

    /** The tree of the handles of {@code job} that {@code filter} accepts; kinds with none are left out. */
    public HandleTree(JobView job, HandleFilter filter) {
        this.job = job;
        this.filter = filter;
        this.root = new JobNode(job.name());
        for (RankView r : job.ranks()) {
            RankNode rn = new RankNode(r.target(), r.rank());
            ranks.add(rn);
            rankViews.put(rn, r);
            Map<HandleKind, List<HandleInfo>> byKind = new EnumMap<>(HandleKind.class);
            if (r.process() != null) {
                for (HandleInfo h : r.process().handles()) {
                    if (filter.accepts(h)) byKind.computeIfAbsent(h.kind(), k -> new ArrayList<>()).add(h);
                }
            }
            Map<Long, HandleRow> ids = new HashMap<>();
            List<KindNode> kindNodes = new ArrayList<>();
            for (Map.Entry<HandleKind, List<HandleInfo>> e : byKind.entrySet()) {
                KindNode kn = new KindNode(rn, e.getKey());
                kindNodes.add(kn);
                List<HandleRow> list = new ArrayList<>(e.getValue().size());
                for (HandleInfo h : e.getValue()) {
                    HandleRow row = new HandleRow(kn, h);
                    list.add(row);
                    ids.put(h.id(), row);
                }
                shown += list.size();
                list.sort((a, b) -> Long.compare(a.handle().id(), b.handle().id()));
                rows.put(kn, list);
            }
            kinds.put(rn, kindNodes);
            byId.put(rn, ids);
        }
    }

    public HandleFilter filter() {
        return filter;
    }

    /** Handle rows in the tree (those the filter accepts). */
    public int shownCount() {
        return shown;
    }

    /** The snapshot of a rank, null when it could not be read. */
    public ProcessSnapshot process(RankNode rank) {
        RankView r = rankViews.get(rank);
        return r == null ? null : r.process();
    }

    /** The row of handle {@code id} of a rank, null if it has none or the filter hides it. */
    public HandleRow row(RankNode rank, long id) {
        return byId.getOrDefault(rank, Map.of()).get(id);
    }

    /** What keeps {@code row} alive: the rows of its {@code heldBy} ids that the tree shows. */
    public List<HandleRow> holders(HandleRow row) {
        List<HandleRow> out = new ArrayList<>();
        for (long id : row.handle().heldBy()) {
            HandleRow h = row(row.parent().owner(), id);
            if (h != null) out.add(h);
        }
        return out;
    }

    /** The nodes from the job down to {@code element}, for selecting it in a tree viewer. */
    public List<Object> path(Object element) {
        List<Object> path = new ArrayList<>();
        for (Object e = element; e != null && e != this; e = parent(e)) path.add(0, e);
        return path;
    }

    public JobView job() {
        return job;
    }

    public JobNode root() {
        return root;
    }

    public RankView rankView(RankNode n) {
        return rankViews.get(n);
    }

    public List<RankNode> ranks() {
        return List.copyOf(ranks);
    }

    public List<KindNode> kinds(RankNode rank) {
        return kinds.getOrDefault(rank, List.of());
    }

    public List<HandleRow> rows(KindNode kind) {
        return rows.getOrDefault(kind, List.of());
    }

    /** Children of the tree's input ({@code this}) or of a node; handle rows have none. */
    public int childCount(Object parent) {
        if (parent == this) return job.ranks().isEmpty() ? 0 : 1;
        if (parent instanceof JobNode) return ranks.size();
        if (parent instanceof RankNode r) return kinds(r).size();
        if (parent instanceof KindNode k) return rows(k).size();
        return 0;
    }

    /** The child at {@code index}, or null if the tree changed and it is gone. */
    public Object child(Object parent, int index) {
        List<?> list;
        if (parent == this) list = job.ranks().isEmpty() ? List.of() : List.of(root);
        else if (parent instanceof JobNode) list = ranks;
        else if (parent instanceof RankNode r) list = kinds(r);
        else if (parent instanceof KindNode k) list = rows(k);
        else return null;
        return index >= 0 && index < list.size() ? list.get(index) : null;
    }

    public Object parent(Object element) {
        if (element instanceof HandleRow h) return h.parent();
        if (element instanceof KindNode k) return k.owner();
        if (element instanceof RankNode) return root;
        if (element instanceof JobNode) return this;
        return null;
    }
}
