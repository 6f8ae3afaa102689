package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.plugin.model.HandleTree.HandleRow;
import io.mpilens.plugin.model.HandleTree.JobNode;
import io.mpilens.plugin.model.HandleTree.KindNode;
import io.mpilens.plugin.model.HandleTree.RankNode;
import java.util.List;
import java.util.Locale;

/** The columns of the MPI Handles view and the text of each cell. */
public enum HandleColumn {
    NAME("Name", 250), STATE("State", 170), REFS("Refs", 90), RANK_SIZE("Rank/Size", 80),
    C_HANDLE("C handle", 130), CREATED_AT("Created at", 300);

    private final String title;
    private final int width;

    HandleColumn(String title, int width) {
        this.title = title;
        this.width = width;
    }

    public String title() {
        return title;
    }

    /** Initial width in pixels. */
    public int width() {
        return width;
    }

    public String text(HandleTree tree, Object element) {
        if (element instanceof HandleRow r) return text(r.handle());
        if (element instanceof KindNode k) return kindText(tree.rows(k));
        if (element instanceof RankNode n) return rankText(tree.rankView(n));
        if (element instanceof JobNode) return jobText(tree.job());
        return "";
    }

    public String text(HandleInfo h) {
        switch (this) {
            case NAME: return displayName(h);
            case STATE: return state(h);
            case REFS:
                if (h.refCount() == 0) return "0";
                StringBuilder sb = new StringBuilder().append(h.refCount()).append(" \u2190");
                for (long id : h.heldBy()) sb.append(' ').append(HandleIds.label(id));
                return sb.toString();
            case RANK_SIZE:
                if (h.kind() != HandleKind.COMMUNICATOR && h.kind() != HandleKind.GROUP) return "";
                if (h.size() == HandleInfo.UNKNOWN) return "";
                return (h.rank() < 0 || h.rank() == HandleInfo.UNKNOWN ? "-" : String.valueOf(h.rank())) + "/" + h.size();
            case C_HANDLE: return h.hasCHandle() ? "0x" + Long.toHexString(h.cHandle()) : "";
            case CREATED_AT: return h.createdAt() == null ? (h.predefined() ? "(predefined)" : "") : withoutPackage(h.createdAt());
            default: throw new AssertionError(this);
        }
    }

    /** The name, or what created it: {@code iRecv #31}, {@code iRecv #r2} (a request of the ring). */
    public static String displayName(HandleInfo h) {
        if (h.name() != null && !h.name().isEmpty()) return h.name();
        String what = h.creatingCall() != null ? h.creatingCall() : simpleName(h.bindingClass());
        return (what == null ? h.kind().name().toLowerCase(Locale.ROOT) : what) + " " + HandleIds.label(h.id());
    }

    /** {@code FREED (orphan)} stands out from {@code ACTIVE}; leaked wrappers are marked too. */
    public static String state(HandleInfo h) {
        if (h.isOrphan()) return "FREED (orphan)";
        if (h.leaked()) return h.state() + " (leaked)";
        if (h.state() == Lifecycle.ACTIVE && h.predefined()) return "ACTIVE (predefined)";
        return h.state().name();
    }

    private String kindText(List<HandleRow> rows) {
        switch (this) {
            case NAME: return kindName(rows) + " (" + rows.size() + ")";
            case STATE:
                long orphans = rows.stream().filter(r -> r.handle().isOrphan()).count();
                long leaked = rows.stream().filter(r -> r.handle().leaked()).count();
                String s = orphans == 0 ? "" : orphans + (orphans == 1 ? " orphan" : " orphans");
                if (leaked > 0) s += (s.isEmpty() ? "" : ", ") + leaked + " leaked";
                return s;
            default: return "";
        }
    }

    private static String kindName(List<HandleRow> rows) {
        if (rows.isEmpty()) return "";
        String k = rows.get(0).handle().kind().name().toLowerCase(Locale.ROOT);
        return Character.toUpperCase(k.charAt(0)) + k.substring(1) + "s";
    }

    private String rankText(RankView r) {
        if (r == null) return "";
        switch (this) {
            case NAME:
                return r.process() == null ? r.label() : r.label() + "  (pid " + r.process().pid() + " on " + r.host() + ")";
            case STATE: return r.state() + (r.suspended() ? " (suspended)" : "");
            case RANK_SIZE: return r.rank() == HandleInfo.UNKNOWN ? "" : r.rank() + "/" + r.worldSize();
            case REFS: return r.handleCount() + " handles";
            case CREATED_AT: return r.problem() == null ? "" : r.problem();
            default: return "";
        }
    }

    private String jobText(JobView job) {
        switch (this) {
            case NAME: return job.name();
            case STATE: return job.ranks().size() + (job.ranks().size() == 1 ? " rank" : " ranks");
            case REFS: return job.handleCount() + " handles";
            default: return "";
        }
    }

    /** {@code io.mpilens.examples.HandleTour.main(HandleTour.java:46)} → {@code HandleTour.main(HandleTour.java:46)}. */
    public static String withoutPackage(String frame) {
        int open = frame.indexOf('(');
        int method = frame.lastIndexOf('.', open < 0 ? frame.length() : open);
        int cls = method <= 0 ? -1 : frame.lastIndexOf('.', method - 1);
        return frame.substring(cls + 1);
    }

    private static String simpleName(String cls) {
        if (cls == null) return null;
        int dot = cls.lastIndexOf('.');
        return dot < 0 ? cls : cls.substring(dot + 1);
    }
}
