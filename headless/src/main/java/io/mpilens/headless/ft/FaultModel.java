package io.mpilens.headless.ft;

import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MemberList;
import io.mpilens.api.model.MpiError;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.BindingFrame;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;

/**
 * Computes the communicators and hosts of a job from its ranks' states and handle snapshots.
 * Pure: no I/O, so every rule is tested with hand-built snapshots.
 *
 * <p>A communicator is the same across ranks when it has the same lineage, creating call and
 * members, and the same position among its siblings that share those (creation is collective,
 * so every member creates them in the same order). {@code MPI_COMM_SELF} is left out.
 */
public final class FaultModel {
    private FaultModel() {
    }

    /**
     * @param views   the latest snapshot of each rank that was ever read (a dead rank's is gone;
     *                its communicators are known from the survivors)
     * @param daemons a launcher daemon by pid on this host, or null when it is not here / unknown
     */
    public static JobModel build(String job, Instant at, List<RankStatus> ranks, Map<Integer, ProcessSnapshot> views,
                                 BiFunction<String, Long, HostView.Daemon> daemons, Timeline timeline) {
        List<RankStatus> sorted = new ArrayList<>(ranks);
        sorted.sort(Comparator.comparingInt(RankStatus::rank).thenComparingInt(RankStatus::epoch));
        // a rank's first incarnation is the member of the communicators from before a failure; a
        // replacement (a later epoch, REBUILD) is the member of those built with it
        Map<Integer, ProcessState> state = new HashMap<>();
        Map<Integer, RankStatus> replacement = new HashMap<>();
        for (RankStatus r : sorted) {
            if (state.putIfAbsent(r.rank(), r.state()) != null) replacement.put(r.rank(), r);
        }
        Map<Integer, Map<Long, String[]>> keys = new HashMap<>();
        List<CommunicatorView> comms = communicators(views, state, replacement, keys);
        List<HostView> hosts = hosts(sorted, daemons);
        List<PendingOnFailedPeer> pending = pendingOnFailed(sorted, state, keys);
        Map<String, List<Integer>> failedOn = failedOn(views, state, keys);
        List<Transition> transitions = timeline == null ? List.of()
                : timeline.record(at, sorted, comms, hosts, pending, failedOn);
        return new JobModel(job, at, sorted, comms, hosts, transitions, pending, failedOn, Map.of(),
                timeline == null ? List.of() : timeline.grown());
    }

    /**
     * One round of a job as an observer saw it, the one sequence behind {@code JobObserver}
     * ({@code cominfo}, {@code watch}) and the Eclipse views: the spawned processes placed as the
     * failed ranks' next epochs ({@link Replacements#place}), the model built, and, when the
     * threads' frames were read ({@code frames} not null), the communicators whose survivors are
     * inside the calls that rebuild them {@code RECOVERING} ({@link Recovering#apply}; the round is
     * recorded in {@code timeline} once, after it).
     *
     * @param frames the binding frames of each rank (COMM_WORLD numbering of the job), or null when not read
     */
    public static JobModel observed(String job, Instant at, List<RankStatus> ranks, Map<Integer, ProcessSnapshot> views,
                                    List<Replacements.Spawned> spawned, BiFunction<String, Long, HostView.Daemon> daemons,
                                    Timeline timeline, Map<Integer, List<BindingFrame>> frames) {
        Replacements.Placed placed = Replacements.place(ranks, views, spawned);
        JobModel m = build(job, at, placed.ranks(), placed.views(), daemons, frames == null ? timeline : null);
        return frames == null ? m : Recovering.apply(m, InFlightCalls.of(m, frames), timeline);
    }

    /**
     * ULFM's {@code MPI_ERR_REVOKED} error class by binding profile id: Open MPI 5's {@code mpi.h} (77;
     * its Java bindings do not expose ULFM). An MPI exception of this class on a communicator makes it
     * {@link CommState#REVOKED}.
     */
    public static final Map<String, Integer> ULFM_ERR_REVOKED = Map.of("openmpi", 77);

    /**
     * Causes (innermost exception class) that mean the binding closed its transport: measured on
     * MPJ Express niodev, where a peer's closed socket makes each survivor's device close every
     * channel, so nothing can be sent on any communicator of that rank afterwards.
     */
    static final Set<String> TRANSPORT_CLOSED = Set.of("java.nio.channels.ClosedChannelException",
            "java.nio.channels.AsynchronousCloseException", "java.nio.channels.ClosedByInterruptException");

    /**
     * Per communicator key, the live ranks on which it is FAILED: a call on it raised an MPI
     * exception there whose cause says the binding's transport is closed ({@link #TRANSPORT_CLOSED}).
     */
    static Map<String, List<Integer>> failedOn(Map<Integer, ProcessSnapshot> views, Map<Integer, ProcessState> state,
                                              Map<Integer, Map<Long, String[]>> keys) {
        Map<String, Set<Integer>> out = new TreeMap<>();
        for (ProcessSnapshot p : views.values()) {
            if (state.get(p.rank()) == ProcessState.FAILED) continue;
            for (MpiError e : p.errors()) {
                if (e.causeClass() == null || !TRANSPORT_CLOSED.contains(e.causeClass())) continue;
                String[] k = keys.getOrDefault(p.rank(), Map.of()).get(communicatorOf(p, e.handleId()));
                if (k != null) out.computeIfAbsent(k[0], x -> new TreeSet<>()).add(p.rank());
            }
        }
        Map<String, List<Integer>> result = new LinkedHashMap<>();
        out.forEach((k, v) -> result.put(k, List.copyOf(v)));
        return Map.copyOf(result);
    }

    // ------------------------------------------------------------------ requests

    /**
     * Requests of the ranks read this round that are still pending on a FAILED peer. The peer
     * the agent recorded is a rank in the request's communicator; it is mapped to COMM_WORLD
     * through that communicator's members (wildcards and unknown communicators are left out).
     */
    static List<PendingOnFailedPeer> pendingOnFailed(List<RankStatus> ranks, Map<Integer, ProcessState> state,
                                                     Map<Integer, Map<Long, String[]>> keys) {
        List<PendingOnFailedPeer> out = new ArrayList<>();
        for (RankStatus r : ranks) {
            ProcessSnapshot p = r.snapshot();
            if (p == null || r.state() == ProcessState.FAILED) continue;
            for (HandleInfo h : p.handles()) {
                if (h.kind() != HandleKind.REQUEST || h.state() == Lifecycle.RELEASED || h.complete()) continue;
                if (h.peer() == HandleInfo.UNKNOWN || h.peer() < 0) continue;
                HandleInfo comm = p.handle(h.communicator()).orElse(null);
                if (comm == null || comm.kind() != HandleKind.COMMUNICATOR) continue;
                int peer = InFlightCalls.worldRank(comm, h.peer());
                if (peer < 0 || state.get(peer) != ProcessState.FAILED) continue;
                String[] key = keys.getOrDefault(p.rank(), Map.of()).get(comm.id());
                out.add(new PendingOnFailedPeer(p.rank(), h.id(), h.creatingCall(), peer, h.tag(),
                        key == null ? null : key[0], key == null ? (comm.name() != null ? comm.name() : HandleIds.label(comm.id())) : key[1]));
            }
        }
        return List.copyOf(out);
    }

    // ------------------------------------------------------------------ communicators

    private static final class Comm {
        final String key;
        final String label;
        final List<Integer> members;
        final List<List<Integer>> groups;
        final String parent;
        final Set<Integer> seenBy = new TreeSet<>();
        final Set<Integer> raisedOn = new TreeSet<>();
        /** Ranks on which a call on it raised ULFM's MPI_ERR_REVOKED. */
        final Set<Integer> revokedOn = new TreeSet<>();
        final Map<Integer, Long> handles = new TreeMap<>();
        final String call;

        Comm(String key, String label, List<Integer> members, List<List<Integer>> groups, String parent, String call) {
            this.call = call;
            this.key = key;
            this.label = label;
            this.members = members;
            this.groups = groups;
            this.parent = parent;
        }
    }

    static List<CommunicatorView> communicators(Map<Integer, ProcessSnapshot> views, Map<Integer, ProcessState> state) {
        return communicators(views, state, Map.of(), new HashMap<>());
    }

    /**
     * @param replacement a rank's later incarnation (a spawned process that took its place), by rank
     * @param keysOut filled per rank: registry id of a communicator -> {key, label}
     */
    private static List<CommunicatorView> communicators(Map<Integer, ProcessSnapshot> views, Map<Integer, ProcessState> state,
                                                        Map<Integer, RankStatus> replacement,
                                                        Map<Integer, Map<Long, String[]>> keysOut) {
        Map<String, Comm> byKey = new LinkedHashMap<>();
        MemberLists memberLists = new MemberLists();
        for (ProcessSnapshot p : new TreeMap<>(views).values()) {
            Map<Long, HandleInfo> comms = new TreeMap<>();
            for (HandleInfo h : p.handles()) {
                if (h.kind() == HandleKind.COMMUNICATOR && h.state() != Lifecycle.RELEASED) comms.put(h.id(), h);
            }
            Map<Long, String[]> keyOf = new HashMap<>(); // id -> {key, label}
            keysOut.put(p.rank(), keyOf);
            Map<String, Integer> siblings = new HashMap<>();
            for (HandleInfo h : comms.values()) { // id order is creation order: parents first
                if (h.memberList().isEmpty()) continue;
                MemberLists.Of m = memberLists.of(h);
                List<List<Integer>> groups = m.groups;
                List<Integer> members = m.members;
                if (h.predefined() && "MPI_COMM_SELF".equals(h.name())) continue;
                String[] parent = keyOf.get(h.derivedFrom());
                String key;
                String label;
                Comm spawnedBy = Replacements.GET_PARENT.equals(h.creatingCall()) ? spawnWithGroups(byKey, groups) : null;
                if (spawnedBy != null) { // a replacement's side of the survivors' spawn: one communicator
                    key = spawnedBy.key;
                    label = spawnedBy.label;
                } else if (h.predefined()) {
                    key = String.valueOf(h.name());
                    label = key;
                } else {
                    String call = h.creatingCall() == null ? "?" : h.creatingCall();
                    String base = memberLists.base(parent == null ? "?" : parent[0], call, m);
                    int n = siblings.merge(base, 1, Integer::sum);
                    key = memberLists.sibling(base, n);
                    String named = h.name() == null || h.name().isBlank() ? null : h.name();
                    label = named != null ? named : call + "(" + (parent == null ? "?" : parent[1]) + ")" + (n > 1 ? "#" + n : "");
                }
                keyOf.put(h.id(), new String[] {key, label});
                Comm c = byKey.computeIfAbsent(key, k -> new Comm(k, label, members, groups, parent == null ? null : parent[0],
                        h.creatingCall()));
                c.seenBy.add(p.rank());
                c.handles.put(p.rank(), h.id());
            }
            Integer revoked = ULFM_ERR_REVOKED.get(p.binding());
            for (MpiError e : p.errors()) {
                String[] k = keyOf.get(communicatorOf(p, e.handleId()));
                if (k == null) continue;
                byKey.get(k[0]).raisedOn.add(p.rank());
                if (revoked != null && e.errorClass() == revoked) byKey.get(k[0]).revokedOn.add(p.rank());
            }
        }
        Map<String, List<Comm>> children = new HashMap<>();
        for (Comm c : byKey.values()) if (c.parent != null) children.computeIfAbsent(c.parent, k -> new ArrayList<>()).add(c);

        // which members of each communicator are a replacement: its own view (not the last one of
        // the incarnation it replaces, kept while the replacement has not been read) holds the
        // communicator, or the communicator descends from a spawn (the first incarnation cannot be in either)
        Map<String, Map<Integer, Integer>> renewed = new HashMap<>();
        for (Comm c : byKey.values()) {
            Map<Integer, Integer> epochs = new TreeMap<>();
            boolean fromSpawn = false;
            for (Comm a = c; a != null && !fromSpawn; a = a.parent == null ? null : byKey.get(a.parent)) {
                fromSpawn = Replacements.isSpawn(a.call);
            }
            for (int m : c.members) {
                RankStatus r = replacement.get(m);
                if (r == null) continue;
                boolean itsView = c.seenBy.contains(m) && views.get(m) != null && views.get(m).pid() == r.pid();
                if (fromSpawn || itsView) epochs.put(m, r.epoch());
            }
            renewed.put(c.key, epochs);
        }
        List<CommunicatorView> out = new ArrayList<>();
        for (Comm c : byKey.values()) {
            Map<Integer, Integer> epochs = renewed.get(c.key);
            Map<Integer, ProcessState> memberState = new HashMap<>(state);
            for (int m : epochs.keySet()) memberState.put(m, replacement.get(m).state());
            List<Integer> failed = withState(c.members, memberState, ProcessState.FAILED);
            List<Integer> unavailable = withState(c.members, memberState, ProcessState.UNAVAILABLE);
            List<String> recoveredBy = new ArrayList<>();
            List<String> rebuiltBy = new ArrayList<>();
            CommState s;
            if (failed.isEmpty()) {
                // no member is known dead, but a call on it failed: the runtime detected something
                s = c.raisedOn.isEmpty() ? CommState.OK : CommState.DETECTED;
            } else if (failed.size() == c.members.size()) {
                s = CommState.FAILED;
            } else {
                // a shrink: exactly the survivors (a split that happens to leave the dead rank out is not a recovery)
                Set<Integer> survivors = new TreeSet<>(c.members);
                survivors.removeAll(failed);
                for (Comm d : descendants(c, children)) {
                    if (new TreeSet<>(d.members).equals(survivors)) recoveredBy.add(d.key);
                    // a rebuild: an intracommunicator of all its members again, each failed one by a replacement
                    if (d.groups.isEmpty() && new TreeSet<>(d.members).equals(new TreeSet<>(c.members))
                            && renewed.get(d.key).keySet().containsAll(failed)) {
                        recoveredBy.add(d.key);
                        rebuiltBy.add(d.key);
                    }
                }
                s = recoveredBy.isEmpty() ? CommState.DETECTED : CommState.RECOVERED;
            }
            // revoked, and not yet recovered by a shrink (or rebuild) of its survivors
            if (!c.revokedOn.isEmpty() && s != CommState.RECOVERED && s != CommState.FAILED) s = CommState.REVOKED;
            out.add(new CommunicatorView(c.key, c.label, c.members, s, failed, unavailable, c.parent,
                    List.copyOf(recoveredBy), List.copyOf(c.seenBy), List.copyOf(c.raisedOn), c.handles, c.groups,
                    List.copyOf(rebuiltBy), epochs));
        }
        return out;
    }

    /** The survivors' spawn intercommunicator with these two groups, or null. */
    private static Comm spawnWithGroups(Map<String, Comm> byKey, List<List<Integer>> groups) {
        if (groups.isEmpty()) return null;
        for (Comm c : byKey.values()) if (Replacements.isSpawn(c.call) && c.groups.equals(groups)) return c;
        return null;
    }

    /** The communicator a failed call was on: itself, or the one its request or window belongs to. */
    private static long communicatorOf(ProcessSnapshot p, long handleId) {
        if (handleId == 0) return 0;
        HandleInfo h = p.handle(handleId).orElse(null);
        if (h == null) return 0;
        return h.kind() == HandleKind.COMMUNICATOR ? h.id() : h.communicator();
    }

    private static List<Comm> descendants(Comm c, Map<String, List<Comm>> children) {
        List<Comm> out = new ArrayList<>();
        for (Comm d : children.getOrDefault(c.key, List.of())) {
            out.add(d);
            out.addAll(descendants(d, children));
        }
        return out;
    }

    private static List<Integer> withState(List<Integer> members, Map<Integer, ProcessState> state, ProcessState s) {
        List<Integer> out = new ArrayList<>();
        for (int m : members) if (state.get(m) == s) out.add(m);
        return out;
    }

    /**
     * One boxed member list, one pair of groups and one key per distinct member list, in one build.
     * Every rank's view of a communicator lists the same members: boxing them, and putting them
     * into a key string, again for every rank made the build quadratic in ranks (bench/run merge).
     * A member list is found by its {@link MemberList}: each instance is compared by content once
     * (ranks read from one collector's report share one; each collector's report has its own), then
     * found by identity, so a rank costs no pass over the members; the keys are those
     * {@link #communicators} always made ({@code parent/call[members]#n}).
     */
    private static final class MemberLists {
        /** A handle's members and (intercommunicator) remote members. */
        private record Key(MemberList local, MemberList remote) {
        }

        /** A handle's groups and members as {@link #communicators} uses them; its text as keys show it. */
        static final class Of {
            final List<List<Integer>> groups;
            final List<Integer> members;
            final String text;

            Of(List<List<Integer>> groups, List<Integer> members) {
                this.groups = groups;
                this.members = members;
                this.text = groups.isEmpty() ? members.toString() : groups.get(0) + "<>" + groups.get(1);
            }
        }

        private record Base(String parent, String call, Of members) {
        }

        private final Map<Key, Of> lists = new HashMap<>();
        /** Every member list met, by identity, to the first equal one met (the one in {@link #lists}' keys). */
        private final Map<MemberList, MemberList> canonical = new java.util.IdentityHashMap<>();
        private final Map<MemberList, MemberList> byContent = new HashMap<>();
        private final Map<Base, String> bases = new HashMap<>();
        private final Map<String, List<String>> siblings = new java.util.IdentityHashMap<>();

        Of of(HandleInfo h) {
            MemberList remote = h.inter() ? canonical(h.remoteMemberList()) : MemberList.EMPTY;
            return lists.computeIfAbsent(new Key(canonical(h.memberList()), remote), k -> {
                List<List<Integer>> groups = groupsOf(h);
                return new Of(groups, groups.isEmpty() ? boxed(h.memberList())
                        : java.util.stream.Stream.concat(groups.get(0).stream(), groups.get(1).stream()).toList());
            });
        }

        private MemberList canonical(MemberList m) {
            MemberList c = canonical.get(m);
            if (c == null) {
                MemberList had = byContent.putIfAbsent(m, m);
                c = had != null ? had : m;
                canonical.put(m, c);
            }
            return c;
        }

        /** {@code parent/call[members]}: one string per distinct triple (its hash computed once). */
        String base(String parent, String call, Of m) {
            return bases.computeIfAbsent(new Base(parent, call, m), b -> b.parent + "/" + b.call + b.members.text);
        }

        /** The key of the n-th sibling with this base ({@code base#n}), one string each. */
        String sibling(String base, int n) {
            List<String> keys = siblings.computeIfAbsent(base, b -> new ArrayList<>());
            while (keys.size() < n) keys.add(base + "#" + (keys.size() + 1));
            return keys.get(n - 1);
        }
    }

    /**
     * An intercommunicator's two groups, the lower first: each side's registry holds its own group
     * as local and the other as remote, and both must name one communicator alike. Empty for an
     * intracommunicator (or an intercommunicator whose remote group was not read).
     */
    private static List<List<Integer>> groupsOf(HandleInfo h) {
        if (!h.inter() || h.remoteMemberList().isEmpty()) return List.of();
        List<Integer> local = boxed(h.memberList());
        List<Integer> remote = boxed(h.remoteMemberList());
        return h.memberList().compareTo(h.remoteMemberList()) <= 0 ? List.of(local, remote) : List.of(remote, local);
    }

    private static List<Integer> boxed(MemberList m) {
        Integer[] a = new Integer[m.size()];
        for (int i = 0; i < a.length; i++) a[i] = m.get(i);
        return List.of(a);
    }

    // ------------------------------------------------------------------ hosts

    static List<HostView> hosts(List<RankStatus> ranks, BiFunction<String, Long, HostView.Daemon> daemons) {
        Map<String, List<RankStatus>> byHost = new TreeMap<>();
        for (RankStatus r : ranks) byHost.computeIfAbsent(r.host() == null ? "?" : r.host(), k -> new ArrayList<>()).add(r);
        List<HostView> out = new ArrayList<>();
        for (Map.Entry<String, List<RankStatus>> e : byHost.entrySet()) {
            Map<Long, HostView.Daemon> ds = new TreeMap<>();
            for (RankStatus r : e.getValue()) {
                if (r.parentPid() <= 0 || ds.containsKey(r.parentPid())) continue;
                HostView.Daemon d = daemons == null ? null : daemons.apply(r.host(), r.parentPid());
                if (d != null) ds.put(r.parentPid(), d);
            }
            long failed = e.getValue().stream().filter(r -> r.state() == ProcessState.FAILED).count();
            long unread = e.getValue().stream().filter(r -> r.state() == ProcessState.UNAVAILABLE).count();
            // a launcher exits once its ranks are done: gone, it means something only while one is not
            boolean allFinalized = e.getValue().stream().allMatch(r -> r.state() == ProcessState.FINALIZED);
            boolean daemonGone = !allFinalized && ds.values().stream().anyMatch(d -> !d.alive());
            HostState s = failed == e.getValue().size() ? HostState.DOWN
                    : failed > 0 || daemonGone ? HostState.PARTIAL
                    : unread == e.getValue().size() ? HostState.UNKNOWN : HostState.UP;
            out.add(new HostView(e.getKey(), s, List.copyOf(e.getValue()), List.copyOf(ds.values())));
        }
        return out;
    }
}
