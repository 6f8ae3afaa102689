package io.mpilens.plugin.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** All ranks of one job (one launch), sorted by rank. Immutable. */
public record JobView(String name, List<RankView> ranks) {
    public static final JobView NONE = new JobView("no MPI job selected", List.of());

    private static final Comparator<RankView> BY_RANK = Comparator
            .comparingInt((RankView r) -> r.rank() < 0 ? Integer.MAX_VALUE : r.rank())
            .thenComparing(RankView::target);

    public JobView {
        List<RankView> sorted = new ArrayList<>(ranks);
        sorted.sort(BY_RANK);
        ranks = List.copyOf(sorted);
    }

    public Optional<RankView> rank(int worldRank) {
        for (RankView r : ranks) {
            if (r.rank() == worldRank) return Optional.of(r);
        }
        return Optional.empty();
    }

    /** State of a COMM_WORLD rank; a member no snapshot mentions is UNAVAILABLE. */
    public ProcessState stateOf(int worldRank) {
        return rank(worldRank).map(RankView::state).orElse(ProcessState.UNAVAILABLE);
    }

    public int handleCount() {
        int n = 0;
        for (RankView r : ranks) n += r.handleCount();
        return n;
    }

    /** One line for a view's header: name, ranks, handles, unhealthy ranks. */
    public String summary() {
        if (ranks.isEmpty()) return name;
        StringBuilder sb = new StringBuilder(name).append(" \u2014 ").append(ranks.size())
                .append(ranks.size() == 1 ? " rank, " : " ranks, ").append(handleCount()).append(" handles");
        for (RankView r : ranks) {
            if (r.state() != ProcessState.OK) sb.append("; ").append(r.label()).append(' ').append(r.state());
            if (r.problem() != null) sb.append(" (").append(r.problem()).append(')');
        }
        return sb.toString();
    }
}
