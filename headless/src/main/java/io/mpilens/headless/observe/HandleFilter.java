package io.mpilens.headless.observe;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Which handles of a snapshot to show: of these kinds, in these states ({@code FREED}: the orphans;
 * {@code RELEASED}: the history). Applies to both {@code handles} and {@code released}; a reference
 * ({@code heldBy}, {@code group}, ...) may then name a handle left out.
 *
 * @param kinds  null or empty: every kind
 * @param states null or empty: every state
 */
public record HandleFilter(Set<HandleKind> kinds, Set<Lifecycle> states) {
    public static final HandleFilter ALL = new HandleFilter(null, null);

    public HandleFilter {
        kinds = kinds == null || kinds.isEmpty() ? null : Set.copyOf(EnumSet.copyOf(kinds));
        states = states == null || states.isEmpty() ? null : Set.copyOf(EnumSet.copyOf(states));
    }

    public boolean keeps(HandleInfo h) {
        return (kinds == null || kinds.contains(h.kind())) && (states == null || states.contains(h.state()));
    }

    /** {@code job} with only the handles this filter keeps; the same object when it keeps all. */
    public JobSnapshot apply(JobSnapshot job) {
        if (kinds == null && states == null) return job;
        List<JobSnapshot.Rank> ranks = new ArrayList<>();
        for (JobSnapshot.Rank r : job.ranks()) ranks.add(new JobSnapshot.Rank(r.address(), apply(r.process())));
        return new JobSnapshot(ranks, job.failures());
    }

    private ProcessSnapshot apply(ProcessSnapshot p) {
        return new ProcessSnapshot(p.rank(), p.worldSize(), p.pid(), p.host(), p.binding(), p.mpiState(),
                p.layoutVersion(), p.agentHealth(), p.handles().stream().filter(this::keeps).toList(),
                p.released().stream().filter(this::keeps).toList(), p.tornRows(), p.errors());
    }
}
