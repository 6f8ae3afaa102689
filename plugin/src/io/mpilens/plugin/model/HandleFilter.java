package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import java.util.Locale;

/**
 * What the MPI Handles view shows: one kind or all, a lifecycle choice, and a text that the
 * name, state, creating call, creation site or binding class must contain (case-insensitive), or
 * that names the handle's id ({@code #41}, a request of the ring as {@code r2} or {@code #r2}, or
 * its full id as JSON has it; {@link HandleIds#parse}). Immutable.
 *
 * @param kind  null for every kind
 * @param lifecycle which lifecycles pass
 * @param text  empty for any
 */
public record HandleFilter(HandleKind kind, LifecycleChoice lifecycle, String text) {
    public static final HandleFilter ALL = new HandleFilter(null, LifecycleChoice.ALL, "");

    /** The lifecycle choices of the filter bar, in the order it lists them. */
    public enum LifecycleChoice {
        ALL("All lifecycles"), ACTIVE("Only active"), ORPHANS("Only orphans"), LEAKED("Only leaked"),
        ORPHANS_OR_LEAKED("Orphans or leaked"), RELEASED("Only released");

        private final String label;

        LifecycleChoice(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        public boolean accepts(HandleInfo h) {
            switch (this) {
                case ALL: return true;
                case ACTIVE: return h.state() == Lifecycle.ACTIVE;
                case ORPHANS: return h.isOrphan();
                case LEAKED: return h.leaked();
                case ORPHANS_OR_LEAKED: return h.isOrphan() || h.leaked();
                case RELEASED: return h.state() == Lifecycle.RELEASED;
                default: throw new AssertionError(this);
            }
        }
    }

    public HandleFilter {
        lifecycle = lifecycle == null ? LifecycleChoice.ALL : lifecycle;
        text = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    }

    public boolean isAll() {
        return kind == null && lifecycle == LifecycleChoice.ALL && text.isEmpty();
    }

    public boolean accepts(HandleInfo h) {
        if (kind != null && h.kind() != kind) return false;
        if (!lifecycle.accepts(h)) return false;
        return text.isEmpty() || matchesText(h);
    }

    private boolean matchesText(HandleInfo h) {
        return contains(HandleColumn.displayName(h)) || contains(HandleColumn.state(h)) || contains(h.creatingCall())
                || contains(h.createdAt()) || contains(h.bindingClass()) || namesId(h);
    }

    /** {@code #41}, {@code r2}, {@code #r2} or a ring request's full id name {@code h}; a bare {@code 41} stays text. */
    private boolean namesId(HandleInfo h) {
        long id = HandleIds.parseOrNone(text);
        return id == h.id() && (text.startsWith("#") || text.startsWith("r") || HandleIds.inRing(id));
    }

    private boolean contains(String s) {
        return s != null && s.toLowerCase(Locale.ROOT).contains(text);
    }

    /** For the view's header: {@code only orphans, kind COMMUNICATOR, text "split"}; empty for none. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        if (lifecycle != LifecycleChoice.ALL) sb.append(lifecycle.label().toLowerCase(Locale.ROOT));
        if (kind != null) sb.append(sb.length() == 0 ? "" : ", ").append("kind ").append(kind.name());
        if (!text.isEmpty()) sb.append(sb.length() == 0 ? "" : ", ").append("text \"").append(text).append('"');
        return sb.toString();
    }
}
