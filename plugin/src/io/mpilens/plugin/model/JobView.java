package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.FaultModel;
import io.mpilens.headless.ft.HostView;
import io.mpilens.headless.ft.InFlightCall;
import io.mpilens.headless.ft.InFlightCalls;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.ft.JobModel;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.headless.ft.RankStatus;
import io.mpilens.headless.ft.Replacements;
import io.mpilens.headless.ft.Timeline;
import io.mpilens.headless.job.JobRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.LongUnaryOperator;
import java.util.function.ToLongBiFunction;

/**
 * All ranks of one job (one launch), sorted by rank, with the job's fault-tolerance model
 * ({@code headless.ft}: communicators, hosts, timeline) computed from them. Immutable.
 *
 * @param resumes how many times a target or thread of the launch had been resumed when it was read:
 *                two reads of a suspended job with the same count saw no running in between
 */
public record JobView(String name, List<RankView> ranks, JobModel model, int resumes) {
    public static final JobView NONE = new JobView("no MPI job selected", List.of());

    private static final Comparator<RankView> BY_RANK = Comparator
            .comparingInt((RankView r) -> r.rank() < 0 ? Integer.MAX_VALUE : r.rank())
            .thenComparing(RankView::target);

    public JobView(String name, List<RankView> ranks, JobModel model) {
        this(name, ranks, model, 0);
    }

    public JobView {
        List<RankView> sorted = new ArrayList<>(ranks);
        sorted.sort(BY_RANK);
        ranks = List.copyOf(sorted);
    }

    /** A job without launcher daemons or history (tests, synthetic jobs). */
    public JobView(String name, List<RankView> ranks) {
        this(name, ranks, model(name, ranks, (host, pid) -> 0, null, null));
    }

    /**
     * @param parentOf pid of a rank's parent process (its launcher daemon), 0 when unknown
     * @param daemons  a launcher daemon by host and pid, or null when not known
     * @param timeline the job's history, fed one round per read; null for none
     */
    public static JobView of(String name, List<RankView> ranks, LongUnaryOperator parentOf,
                             BiFunction<String, Long, HostView.Daemon> daemons, Timeline timeline) {
        return of(name, ranks, parentOf, daemons, timeline, 0);
    }

    /** @param resumes how many times the launch was resumed before this read (tells two suspensions apart) */
    public static JobView of(String name, List<RankView> ranks, LongUnaryOperator parentOf,
                             BiFunction<String, Long, HostView.Daemon> daemons, Timeline timeline, int resumes) {
        return of(name, ranks, (host, pid) -> parentOf.applyAsLong(pid), daemons, timeline, resumes);
    }

    /**
     * @param parentOf pid of a rank's parent process by the rank's host and pid (ranks of several
     *                 hosts: each looked up where it runs), 0 when unknown
     */
    public static JobView of(String name, List<RankView> ranks, ToLongBiFunction<String, Long> parentOf,
                             BiFunction<String, Long, HostView.Daemon> daemons, Timeline timeline, int resumes) {
        return new JobView(name, ranks, model(name, ranks, parentOf, daemons, timeline), resumes);
    }

    private static JobModel model(String name, List<RankView> ranks, ToLongBiFunction<String, Long> parentOf,
                                  BiFunction<String, Long, HostView.Daemon> daemons, Timeline timeline) {
        List<RankStatus> statuses = new ArrayList<>();
        List<Replacements.Spawned> spawned = new ArrayList<>();
        Map<Integer, ProcessSnapshot> views = new HashMap<>();
        Map<Integer, List<BindingFrame>> frames = new HashMap<>();
        boolean framesRead = false;
        for (RankView r : ranks) {
            ProcessSnapshot p = r.process();
            String evidence = r.problem() == null ? "answered" : r.problem();
            if (r.spawned() != null) { // numbered by its own COMM_WORLD (before MPI init: by its record)
                JobRecord rec = r.spawned();
                int own = p != null && p.rank() >= 0 ? p.rank() : rec.rank();
                long pid = p != null ? p.pid() : rec.pid();
                String host = p != null ? p.host() : rec.host();
                spawned.add(new Replacements.Spawned(new RankStatus(own, 0, pid, parentOf.applyAsLong(host, pid),
                        host, r.target(), r.state(), evidence, -1, p), rec.namespace()));
                continue;
            }
            if (p == null || p.rank() == HandleInfo.UNKNOWN) continue; // not an MPI rank yet
            views.put(p.rank(), p);
            if (r.frames() != null) {
                frames.put(p.rank(), r.frames());
                framesRead = true;
            }
            statuses.add(new RankStatus(p.rank(), 0, p.pid(), parentOf.applyAsLong(p.host(), p.pid()), p.host(), r.target(),
                    r.state(), evidence, -1, p));
        }
        // the threads' calls are read while ranks are suspended: then RECOVERING (who is inside which call) too
        return FaultModel.observed(name, Instant.now(), statuses, views, spawned, daemons, timeline,
                framesRead ? frames : null);
    }

    /** The frames read from suspended ranks, by COMM_WORLD rank (ranks not read are absent). */
    public Map<Integer, List<BindingFrame>> frames() {
        Map<Integer, List<BindingFrame>> out = new HashMap<>();
        for (RankView r : ranks) if (r.frames() != null && r.rank() >= 0) out.put(r.rank(), r.frames());
        return out;
    }

    /** The MPI call each thread of each suspended rank is inside. */
    public List<InFlightCall> calls() {
        return InFlightCalls.of(model, frames());
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
        long spawned = ranks.stream().filter(r -> r.spawned() != null).count();
        long launched = ranks.size() - spawned;
        StringBuilder sb = new StringBuilder(name).append(" \u2014 ").append(launched).append(launched == 1 ? " rank" : " ranks")
                .append(spawned == 0 ? "" : " + " + spawned + " spawned").append(", ").append(handleCount()).append(" handles");
        for (RankView r : ranks) {
            if (r.state() != ProcessState.OK) sb.append("; ").append(r.label()).append(' ').append(r.state());
            if (r.problem() != null) sb.append(" (").append(r.problem()).append(')');
        }
        return sb.toString();
    }
}
