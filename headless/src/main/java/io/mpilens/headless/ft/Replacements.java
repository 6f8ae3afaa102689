package io.mpilens.headless.ft;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.RankRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * FT-MPI's REBUILD: processes spawned by the job ({@code MPI_Comm_spawn}) take the places of its
 * failed ranks. Pure: the observer hands over the launcher's ranks, the spawned processes (as read,
 * numbered by their own COMM_WORLD) and the views; out come one list of ranks in which each
 * replacement is the next epoch of the rank it replaces, and views in which every communicator
 * member is a rank of the job.
 *
 * <p>Which rank a replacement takes: the k-th spawned process (in the order they started)
 * replaces the k-th failed rank (ascending) — the order in which survivors spawn them. A
 * replacement joins communicators of the job through the intercommunicator its
 * {@code getParent} returns: that is the survivors' {@code spawn} intercommunicator (same group
 * sizes), so the parents' side of it names its remote group, and every communicator derived from
 * it on both sides (same creating call, size and position among its siblings) pairs members
 * position by position: where one side's binding says "not in my COMM_WORLD" (a negative rank),
 * the other side knows who it is.
 */
public final class Replacements {
    /** Calls that start processes: the parents' side of the intercommunicator to the new ones. */
    static final Set<String> SPAWN_CALLS = Set.of("spawn", "spawnMultiple", "Spawn", "Spawn_multiple");
    static final String GET_PARENT = "getParent";

    /** Whether {@code call} (may be null) starts processes. */
    static boolean isSpawn(String call) {
        return call != null && SPAWN_CALLS.contains(call);
    }

    private Replacements() {
    }

    /**
     * Whether a process was started by {@code MPI_Comm_spawn}, from its registry alone (a heap dump
     * has no job record): it holds its parents' intercommunicator ({@code getParent}). Before MPI
     * init this cannot be told.
     */
    public static boolean spawnedProcess(ProcessSnapshot p) {
        return p.handles().stream().anyMatch(h -> h.kind() == HandleKind.COMMUNICATOR && h.inter()
                && GET_PARENT.equals(h.creatingCall()));
    }

    /** A spawned process as read: its status numbered by its own COMM_WORLD, and the namespace of its own launch. */
    public record Spawned(RankStatus status, String namespace) {
    }

    /** The job's ranks with the replacements placed, and the views rewritten to the job's ranks. */
    public record Placed(List<RankStatus> ranks, Map<Integer, ProcessSnapshot> views) {
    }

    /**
     * The rank each spawned process replaces, from the records alone (what {@code handles --job}
     * needs): the k-th spawned record (in start order, as {@code JobDirectory} lists them) for the
     * k-th launcher's rank that {@code ended} before finalizing MPI. Unplaced ones are left out.
     */
    public static <R extends RankRecord> Map<R, Integer> replacing(List<R> records, Predicate<? super R> ended) {
        List<Integer> failed = new ArrayList<>();
        for (R r : records) if (!r.spawned() && !r.finalized() && ended.test(r)) failed.add(r.rank());
        return pair(failed, records.stream().filter(RankRecord::spawned).toList());
    }

    /** The k-th of {@code spawned} for the k-th of the {@code failed} ranks (ascending); the rest unplaced. */
    private static <T> Map<T, Integer> pair(List<Integer> failed, List<T> spawned) {
        List<Integer> ranks = failed.stream().distinct().sorted().toList();
        Map<T, Integer> out = new LinkedHashMap<>();
        for (int k = 0; k < spawned.size() && k < ranks.size(); k++) out.put(spawned.get(k), ranks.get(k));
        return out;
    }

    public static Placed place(List<RankStatus> ranks, Map<Integer, ProcessSnapshot> views, List<Spawned> spawned) {
        if (spawned.isEmpty()) return new Placed(ranks, views);
        List<Integer> failed = new ArrayList<>();
        Map<Integer, Integer> epochOf = new HashMap<>();
        for (RankStatus r : ranks) {
            epochOf.merge(r.rank(), r.epoch(), Math::max);
            if (r.state() == ProcessState.FAILED) failed.add(r.rank());
        }
        List<RankStatus> out = new ArrayList<>(ranks);
        Map<Integer, ProcessSnapshot> outViews = new TreeMap<>(views);
        // namespace -> (own COMM_WORLD rank -> the job's rank it replaces)
        Map<String, Map<Integer, Integer>> logical = new LinkedHashMap<>();
        List<Spawned> placed = new ArrayList<>();
        for (Map.Entry<Spawned, Integer> e : pair(failed, spawned).entrySet()) {
            Spawned s = e.getKey();
            int rank = e.getValue();
            logical.computeIfAbsent(s.namespace(), n -> new TreeMap<>()).put(s.status().rank(), rank);
            RankStatus st = s.status();
            out.add(new RankStatus(rank, epochOf.getOrDefault(rank, 0) + 1, st.pid(), st.parentPid(), st.host(),
                    st.address(), st.state(), st.evidence() + "; spawned, replaces rank " + rank, st.answerMillis(),
                    st.snapshot(), st.processAlive()));
            placed.add(s);
        }
        List<ProcessSnapshot> parents = new ArrayList<>(new TreeMap<>(views).values());
        int spawnIndex = 0;
        for (String ns : logical.keySet()) {
            Map<Integer, Integer> toJob = logical.get(ns);
            for (Spawned s : placed) {
                if (!s.namespace().equals(ns) || s.status().snapshot() == null) continue;
                int rank = toJob.get(s.status().rank());
                ProcessSnapshot child = rewrite(s.status().snapshot(), toJob, parents, outViews, spawnIndex);
                outViews.put(rank, child);
            }
            spawnIndex++;
        }
        return new Placed(List.copyOf(out), Map.copyOf(outViews));
    }

    /**
     * The child's view in the job's ranks (its own one-process COMM_WORLD and COMM_SELF left out:
     * they are not communicators of the job), filling the parents' unknown members in {@code views}
     * as it goes.
     */
    private static ProcessSnapshot rewrite(ProcessSnapshot child, Map<Integer, Integer> toJob, List<ProcessSnapshot> parents,
                                           Map<Integer, ProcessSnapshot> views, int spawnIndex) {
        Map<Long, HandleInfo> mine = communicators(child);
        HandleInfo toParents = mine.values().stream().filter(h -> GET_PARENT.equals(h.creatingCall()) && h.inter())
                .findFirst().orElse(null);
        Map<Long, HandleInfo> rewritten = new LinkedHashMap<>();
        for (HandleInfo h : mine.values()) {
            if (h.predefined() && ("MPI_COMM_WORLD".equals(h.name()) || "MPI_COMM_SELF".equals(h.name()))) continue;
            rewritten.put(h.id(), h.toBuilder().members(mapOwn(h.members(), toJob)).remoteMembers(mapOwn(h.remoteMembers(), toJob)).build());
        }
        if (toParents != null) {
            for (ProcessSnapshot p : parents) {
                Map<Long, HandleInfo> theirs = communicators(views.get(p.rank())); // with what earlier children filled in
                HandleInfo spawn = spawnOf(theirs, toParents, spawnIndex);
                if (spawn == null) continue;
                Map<Long, HandleInfo> filled = new HashMap<>();
                // the pair: their spawn intercommunicator, my getParent one
                Map<Long, Long> pair = new HashMap<>();
                pair.put(toParents.id(), spawn.id());
                HandleInfo mineX = rewritten.get(toParents.id());
                rewritten.put(toParents.id(), mineX.toBuilder().remoteMembers(fill(mineX.remoteMembers(), spawn.members())).build());
                filled.put(spawn.id(), spawn.toBuilder().remoteMembers(fill(spawn.remoteMembers(), mineX.members())).build());
                for (HandleInfo h : mine.values()) {
                    Long from = pair.get(h.derivedFrom());
                    if (from == null || !rewritten.containsKey(h.id())) continue;
                    HandleInfo twin = twin(theirs, mine, h, from);
                    if (twin == null) continue;
                    pair.put(h.id(), twin.id());
                    HandleInfo me = rewritten.get(h.id());
                    rewritten.put(h.id(), me.toBuilder().members(fill(me.members(), twin.members())).build());
                    filled.put(twin.id(), twin.toBuilder().members(fill(twin.members(), me.members())).build());
                }
                views.put(p.rank(), withHandles(views.get(p.rank()), filled));
            }
        }
        return withHandles(new ProcessSnapshot(toJob.getOrDefault(child.rank(), child.rank()), child.worldSize(), child.pid(),
                child.host(), child.binding(), child.mpiState(), child.layoutVersion(), child.agentHealth(),
                child.handles().stream().filter(h -> h.kind() != HandleKind.COMMUNICATOR || rewritten.containsKey(h.id())).toList(),
                child.released(), child.tornRows(), child.errors()), rewritten);
    }

    /** The parents' spawn intercommunicator that my getParent one is: same group sizes, the spawnIndex-th such (creation order). */
    private static HandleInfo spawnOf(Map<Long, HandleInfo> theirs, HandleInfo toParents, int spawnIndex) {
        List<HandleInfo> candidates = theirs.values().stream()
                .filter(h -> h.inter() && isSpawn(h.creatingCall())
                        && h.members().length == toParents.remoteMembers().length
                        && h.remoteMembers().length == toParents.members().length)
                .toList();
        if (candidates.isEmpty()) return null;
        return candidates.get(Math.min(spawnIndex, candidates.size() - 1));
    }

    /** Their communicator derived from {@code from} by the same call, of the same size, at the same position among such siblings. */
    private static HandleInfo twin(Map<Long, HandleInfo> theirs, Map<Long, HandleInfo> mine, HandleInfo h, long from) {
        int position = siblings(mine, h.derivedFrom(), h).indexOf(h);
        List<HandleInfo> candidates = siblings(theirs, from, h);
        return position >= 0 && position < candidates.size() ? candidates.get(position) : null;
    }

    private static List<HandleInfo> siblings(Map<Long, HandleInfo> comms, long parent, HandleInfo like) {
        return comms.values().stream().filter(c -> c.derivedFrom() == parent
                && Objects.equals(c.creatingCall(), like.creatingCall()) && c.inter() == like.inter()
                && c.members().length == like.members().length).toList();
    }

    private static Map<Long, HandleInfo> communicators(ProcessSnapshot p) {
        Map<Long, HandleInfo> out = new TreeMap<>();
        if (p == null) return out;
        for (HandleInfo h : p.handles()) {
            if (h.kind() == HandleKind.COMMUNICATOR && h.state() != Lifecycle.RELEASED) out.put(h.id(), h);
        }
        return out;
    }

    /** The spawned job's own COMM_WORLD ranks as the job's; a process outside it (negative) stays unknown. */
    private static int[] mapOwn(int[] members, Map<Integer, Integer> toJob) {
        int[] out = members.clone();
        for (int i = 0; i < out.length; i++) out[i] = out[i] < 0 ? out[i] : toJob.getOrDefault(out[i], HandleInfo.UNKNOWN);
        return out;
    }

    /** {@code members} with each unknown (negative) position taken from {@code other} where it knows it. */
    private static int[] fill(int[] members, int[] other) {
        if (members.length != other.length) return members;
        int[] out = members.clone();
        for (int i = 0; i < out.length; i++) if (out[i] < 0 && other[i] >= 0) out[i] = other[i];
        return out;
    }

    private static ProcessSnapshot withHandles(ProcessSnapshot p, Map<Long, HandleInfo> replaced) {
        if (p == null || replaced.isEmpty()) return p;
        List<HandleInfo> handles = new ArrayList<>();
        for (HandleInfo h : p.handles()) handles.add(replaced.getOrDefault(h.id(), h));
        return new ProcessSnapshot(p.rank(), p.worldSize(), p.pid(), p.host(), p.binding(), p.mpiState(), p.layoutVersion(),
                p.agentHealth(), handles, p.released(), p.tornRows(), p.errors());
    }
}
