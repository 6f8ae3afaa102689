package io.mpilens.headless.ft;

import io.mpilens.api.binding.BindingCalls;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.MemberList;
import io.mpilens.api.model.ProcessSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which ranks cannot make progress, from the MPI calls their threads are inside at one look: a
 * wait-for analysis over blocking calls (AND for collectives and {@code waitAll}, OR for receives
 * from any source and {@code waitAny}). Pure, like {@link FaultModel}.
 *
 * <p>A rank can progress when it is not inside a blocking MPI call (or was not read, or is not
 * known: nothing is claimed about what was not seen), or when one of its calls can complete:
 * a receive whose peer can progress or is sending to it, a send whose peer can progress or is
 * receiving from it, a collective whose every other member can progress or is inside the same
 * collective on the same communicator. A receive from any source needs one member of its
 * communicator that can progress or sends to it (OR). A send pairs with a receive only on the same
 * communicator (when both are placed in the model) with a matching tag ({@code ANY_TAG} matches
 * every tag, an unknown tag or communicator matches anything): a receive for tag 7 while the peer
 * sits in a synchronous send of tag 8 is stuck. FAILED and FINALIZED ranks never send again. The ranks
 * left over are stuck: each waits for ranks that are stuck too, or (directly or through others)
 * for a FAILED or FINALIZED rank.
 *
 * Waits over request arrays need all ({@code waitAll}) or one ({@code waitAny}, {@code waitSome})
 * of their pending requests; a rank's pending requests count as offered to their peers (MPI can
 * complete them while the rank waits elsewhere).
 *
 * <p>What is not understood is assumed to complete, so the analysis errs towards "can progress":
 * buffered sends, the send half of a send-receive ({@code sendRecv} waits for its receive half and
 * offers its send), a {@code waitAny} element not found pending, a receive from any source on a
 * communicator whose group (an intercommunicator's: its remote group) is not known. Threads outside MPI
 * calls are not seen: a rank whose only MPI calls are stuck is taken as stuck, although another
 * of its threads might still post the send a stuck one waits for (not in MPI_THREAD_SINGLE or
 * FUNNELED programs). One look cannot tell a deadlock from a
 * message still in flight (a ping-pong looks stuck most of the time); {@link #compare} confirms
 * over two looks with the agents' progress counters.
 *
 * <p>Why this file is long: the wait-for rules of every blocking call kind (point-to-point with
 * and without wildcards, collectives, completions over request arrays, intercommunicators) and
 * the cycle search over them are one analysis; each rule is a method of its own.
 */
public final class WaitFor {
    private WaitFor() {
    }

    /**
     * A call of a stuck rank and the ranks it still waits for.
     *
     * @param on the ranks the call waits for that cannot progress (stuck, FAILED or FINALIZED)
     */
    public record Wait(InFlightCall call, List<Integer> on) {
    }

    /**
     * @param stuck          ranks that cannot progress (sorted)
     * @param deadlocked     stuck ranks that wait only for stuck ranks (no FAILED or FINALIZED one at the end)
     * @param onCycles       the deadlocked ranks on a wait-for cycle; the other deadlocked ranks only wait for them
     * @param cycle          one wait-for cycle among the deadlocked ranks, first rank repeated at the end; empty if none
     * @param behindFailed   stuck ranks waiting, directly or through others, for a FAILED rank
     * @param behindFinalized stuck ranks waiting, directly or through others, for a FINALIZED rank (and no FAILED one)
     * @param waits          each stuck rank's blocking calls and whom they wait for, by rank then thread
     * @param progress       per stuck rank, its agent's count of blocking calls left ({@code -1} unknown)
     */
    public record Analysis(List<Integer> stuck, List<Integer> deadlocked, List<Integer> onCycles, List<Integer> cycle,
                           List<Integer> behindFailed, List<Integer> behindFinalized, List<Wait> waits,
                           Map<Integer, Long> progress) {
        public boolean any() {
            return !stuck.isEmpty();
        }
    }

    /**
     * What two looks showed ({@link #compare}), or one look ({@link #ONE}).
     *
     * @param secondsApart the time between the looks; NaN when it says nothing of how long the job ran
     *                  (two suspensions in a debugger)
     * @param confirmed deadlocked at both looks in the same calls, their agents counting no blocking
     *                  call returned in between, and waiting only for each other: a deadlock
     * @param behind    stuck at the second look in calls that each wait for a confirmed rank (or one
     *                  behind it): they can never complete either, whatever else they wait for
     * @param moved     deadlocked at the second look but neither confirmed nor behind: something
     *                  moved, or a counter is unknown
     * @param counted   every rank in question has an agent that counts blocking calls
     */
    public record Looks(int count, double secondsApart, List<Integer> confirmed, List<Integer> behind,
                        List<Integer> moved, boolean counted) {
        public static final Looks ONE = new Looks(1, 0, List.of(), List.of(), List.of(), true);
    }

    /**
     * What the looks say of one rank, as {@code calls} words it: on the confirmed cycle
     * ({@code DEADLOCK}) or stuck behind it, on a cycle seen at one look ({@code POSSIBLE}) or behind
     * one, stuck at one look but progress in between ({@code PROGRESS}), stuck but an agent does not
     * count blocking calls ({@code UNCONFIRMED}), waiting (directly or through others) for a FAILED
     * or a FINALIZED rank, or not stuck ({@code NONE}).
     */
    public enum Verdict {
        DEADLOCK(false), BEHIND_DEADLOCK(true), POSSIBLE(false), BEHIND_POSSIBLE(true), PROGRESS(false),
        UNCONFIRMED(false), NEVER_COMPLETES(false), BEHIND_FINALIZED(false), NONE(false);

        private final boolean behind;

        Verdict(boolean behind) {
            this.behind = behind;
        }

        /** Stuck only because it waits for the ranks of a cycle. */
        public boolean behind() {
            return behind;
        }
    }

    /** The verdict on {@code rank} from the analysis of the last look and what the looks showed. */
    public static Verdict verdict(int rank, Analysis a, Looks looks) {
        if (!a.stuck().contains(rank)) return Verdict.NONE;
        if (looks.confirmed().contains(rank)) return Verdict.DEADLOCK;
        if (looks.behind().contains(rank)) return Verdict.BEHIND_DEADLOCK;
        if (a.behindFailed().contains(rank)) return Verdict.NEVER_COMPLETES;
        if (a.behindFinalized().contains(rank)) return Verdict.BEHIND_FINALIZED;
        if (looks.count() < 2) return a.onCycles().contains(rank) ? Verdict.POSSIBLE : Verdict.BEHIND_POSSIBLE;
        if (looks.moved().contains(rank)) return looks.counted() ? Verdict.PROGRESS : Verdict.UNCONFIRMED;
        return Verdict.NONE;
    }

    enum Dir { RECEIVE, SEND, COLLECTIVE, ALL_OF, ANY_OF, NONE }

    /**
     * What one call needs from other ranks: a receive from or send to {@code peer}, a collective,
     * or all / any of {@code parts} (the requests of a {@code waitAll} / {@code waitAny}).
     */
    private record Need(Dir dir, int peer, String comm, String method, List<Integer> members, List<Need> parts,
                        boolean anySource, int tag, boolean offerOnly) {
        static final Need NONE = new Need(Dir.NONE, -1, null, null, List.of(), List.of(), false, HandleInfo.UNKNOWN, false);

        Need(Dir dir, int peer, String comm, String method, List<Integer> members, List<Need> parts, boolean anySource,
             int tag) {
            this(dir, peer, comm, method, members, parts, anySource, tag, false);
        }

        /** The same send, offered to its peer but not waited for (the send half of a send-receive). */
        Need offered() {
            return new Need(dir, peer, comm, method, members, parts, anySource, tag, true);
        }

        /**
         * A send to or receive from {@code peer} (COMM_WORLD), or with {@code anySource} a receive
         * from any of {@code members}; on communicator {@code comm} (cross-rank key, null when not
         * placed) with {@code tag} ({@link InFlightCall#ANY_TAG}, or UNKNOWN: matches every tag).
         */
        static Need p2p(Dir dir, int peer, String comm, int tag) {
            return new Need(dir, peer, comm, null, List.of(), List.of(), false, tag);
        }

        static Need fromAny(List<Integer> members, String comm, int tag) {
            return new Need(Dir.RECEIVE, -1, comm, null, List.copyOf(members), List.of(), true, tag);
        }

        /** Whether this p2p need pairs with one of rank {@code from} on {@code comm} with {@code tag}. */
        boolean pairs(int from, String onComm, int withTag) {
            return (anySource ? members.contains(from) : peer == from) && sameTag(tag, withTag)
                    && (comm == null || onComm == null || comm.equals(onComm));
        }
    }

    /** Tags match when equal, when either is {@code ANY_TAG} (only a receive has it), or when either is unknown. */
    private static boolean sameTag(int a, int b) {
        return a == HandleInfo.UNKNOWN || b == HandleInfo.UNKNOWN || a == InFlightCall.ANY_TAG
                || b == InFlightCall.ANY_TAG || a == b;
    }

    /**
     * What the ranks offer besides their calls: per rank, its pending send and receive requests
     * as needs (peer, communicator, tag). MPI can complete those while the rank is inside any
     * call, so a peer waiting for one of them is not stuck on this rank.
     */
    private record Offers(Map<Integer, List<Need>> byRank) {
        boolean has(int rank, Dir dir, int peer, String comm, int tag) {
            for (Need n : byRank.getOrDefault(rank, List.of())) if (n.dir() == dir && n.pairs(peer, comm, tag)) return true;
            return false;
        }
    }

    /** What {@link #awaited} consults, built once per analysis. */
    private record Ctx(Set<Integer> progress, Set<Integer> known, Map<Integer, List<InFlightCall>> byRank,
                       Map<InFlightCall, Need> needs, Offers offers, Map<String, Set<Integer>> inside,
                       Map<String, List<Integer>> awaitedByCollective) {
    }

    /**
     * @param read the ranks whose threads were read ({@code JobObserver.frames().keySet()}); the
     *             others are not known to be in any call and count as able to progress
     */
    public static Analysis of(JobModel m, List<InFlightCall> calls, Set<Integer> read) {
        Set<Integer> known = new HashSet<>();
        Set<Integer> never = new TreeSet<>();
        Set<Integer> failed = new HashSet<>();
        for (RankStatus r : m.processes()) {
            if (r.rank() < 0) continue;
            known.add(r.rank());
            if (r.state() == ProcessState.FAILED || r.state() == ProcessState.FINALIZED) never.add(r.rank());
            if (r.state() == ProcessState.FAILED) failed.add(r.rank());
        }
        Map<Integer, ProcessSnapshot> snapshots = new HashMap<>();
        for (RankStatus r : m.processes()) if (r.snapshot() != null) snapshots.put(r.rank(), r.snapshot());
        Map<Integer, List<InFlightCall>> byRank = new TreeMap<>();
        Map<InFlightCall, Need> needs = new java.util.IdentityHashMap<>();
        Map<Integer, Map<Long, CommunicatorView>> comms = communicators(m);
        // the ranks inside each collective, by communicator key and method
        Map<String, Set<Integer>> inside = new HashMap<>();
        for (InFlightCall c : calls) {
            byRank.computeIfAbsent(c.rank(), k -> new ArrayList<>()).add(c);
            Need n = need(comms, snapshots.get(c.rank()), c);
            needs.put(c, n);
            if (n.dir() == Dir.COLLECTIVE) inside.computeIfAbsent(n.comm() + "\n" + n.method(), k -> new HashSet<>()).add(c.rank());
        }
        Offers offers = offers(m, comms);
        Set<Integer> progress = new HashSet<>();
        for (int r : known) {
            if (never.contains(r)) continue;
            if (!read.contains(r) || !byRank.containsKey(r)) progress.add(r);
        }
        // every rank inside a collective awaits the same members (itself is inside): one answer per
        // collective until the set of ranks that can progress grows
        Ctx ctx = new Ctx(progress, known, byRank, needs, offers, inside, new HashMap<>());
        Set<Integer> waiting = new TreeSet<>();
        for (int r : byRank.keySet()) if (known.contains(r) && !never.contains(r) && !progress.contains(r)) waiting.add(r);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int r : waiting) {
                if (progress.contains(r)) continue;
                for (InFlightCall c : byRank.get(r)) {
                    if (awaited(c.rank(), needs.get(c), ctx).isEmpty()) {
                        progress.add(r);
                        ctx.awaitedByCollective().clear();
                        changed = true;
                        break;
                    }
                }
            }
        }
        List<Integer> stuck = new ArrayList<>();
        for (int r : waiting) if (!progress.contains(r)) stuck.add(r);
        List<Wait> waits = new ArrayList<>();
        Map<Integer, Set<Integer>> edges = new TreeMap<>();
        Map<Integer, Long> counters = new TreeMap<>();
        for (int r : stuck) {
            Set<Integer> on = new TreeSet<>();
            for (InFlightCall c : byRank.get(r)) {
                List<Integer> a = awaited(c.rank(), needs.get(c), ctx);
                waits.add(new Wait(c, a));
                on.addAll(a);
            }
            edges.put(r, on);
            ProcessSnapshot snapshot = snapshots.get(r);
            counters.put(r, snapshot == null ? -1L : blockingReturns(snapshot));
        }
        List<Integer> behindFailed = new ArrayList<>();
        List<Integer> behindFinalized = new ArrayList<>();
        List<Integer> deadlocked = new ArrayList<>();
        Set<Integer> reachFailed = reaching(failed, edges);
        Set<Integer> reachNever = reaching(never, edges);
        for (int r : stuck) {
            if (reachFailed.contains(r)) behindFailed.add(r);
            else if (reachNever.contains(r)) behindFinalized.add(r);
            else deadlocked.add(r);
        }
        return new Analysis(List.copyOf(stuck), List.copyOf(deadlocked), onCycles(deadlocked, edges), cycle(deadlocked, edges),
                List.copyOf(behindFailed), List.copyOf(behindFinalized), List.copyOf(waits), Map.copyOf(counters));
    }

    /**
     * Compares two looks {@code secondsApart} apart. A rank is confirmed when it is deadlocked at
     * both, in the same calls waiting for the same ranks, and its agent's count of blocking calls
     * left did not move (an unknown count confirms nothing: a call left and entered again looks the
     * same as one never left); then ranks waiting for an unconfirmed one are dropped until the rest
     * wait only for each other.
     */
    public static Looks compare(Analysis first, Analysis second, double secondsApart) {
        Map<Integer, List<String>> before = signatures(first);
        Map<Integer, List<String>> after = signatures(second);
        Set<Integer> confirmed = new TreeSet<>();
        boolean counted = true;
        for (int r : second.deadlocked()) {
            // not stuck at the first look: it moved, whatever its counter says (it has none in the first look)
            if (!first.deadlocked().contains(r)) continue;
            long a = first.progress().getOrDefault(r, -1L);
            long b = second.progress().getOrDefault(r, -1L);
            if (a < 0 || b < 0) counted = false;
            else if (a == b && after.get(r).equals(before.get(r))) confirmed.add(r);
        }
        Map<Integer, Set<Integer>> edges = edges(second);
        boolean dropped = true;
        while (dropped) {
            dropped = confirmed.removeIf(r -> !confirmed.containsAll(edges.getOrDefault(r, Set.of())));
        }
        // the deadlock is the ranks on cycles; the others of the closed set only wait for them, and
        // every call of a rank waiting for a rank that never moves again never completes either
        List<Integer> core = onCycles(List.copyOf(confirmed), edges);
        Set<Integer> doomed = new TreeSet<>(confirmed);
        Set<Integer> behind = new TreeSet<>(confirmed);
        behind.removeAll(core);
        boolean added = !confirmed.isEmpty();
        while (added) {
            added = false;
            for (int r : second.stuck()) {
                if (doomed.contains(r)) continue;
                boolean all = true;
                for (Wait w : second.waits()) {
                    if (w.call().rank() == r && w.on().stream().noneMatch(doomed::contains)) all = false;
                }
                if (all) {
                    doomed.add(r);
                    behind.add(r);
                    added = true;
                }
            }
        }
        List<Integer> moved = new ArrayList<>(second.deadlocked());
        moved.removeAll(doomed);
        return new Looks(2, secondsApart, core, List.copyOf(behind), List.copyOf(moved), counted);
    }

    /** One wait-for cycle among {@code ranks} (each waiting only for ranks among them), first rank repeated last. */
    public static List<Integer> cycle(Analysis a, List<Integer> ranks) {
        return cycle(ranks, edges(a));
    }

    private static Map<Integer, Set<Integer>> edges(Analysis a) {
        Map<Integer, Set<Integer>> out = new TreeMap<>();
        for (Wait w : a.waits()) out.computeIfAbsent(w.call().rank(), k -> new TreeSet<>()).addAll(w.on());
        return out;
    }

    private static Map<Integer, List<String>> signatures(Analysis a) {
        Map<Integer, List<String>> out = new HashMap<>();
        for (Wait w : a.waits()) {
            InFlightCall c = w.call();
            // request ids are never reused: the same ones pending in a wait over an array mean the
            // same wait (the counter does not count the static waitAll family)
            out.computeIfAbsent(c.rank(), k -> new ArrayList<>()).add(c.thread() + "|" + c.call() + "|" + c.receiver()
                    + "|" + c.handleId() + "|" + c.peer() + "|" + c.requests() + "|" + w.on());
        }
        return out;
    }

    private static long blockingReturns(ProcessSnapshot p) {
        return p.agentHealth() == null ? -1 : p.agentHealth().blockingReturns();
    }

    /** The ranks need {@code n} of rank {@code me} still waits for that cannot progress; empty when it can complete. */
    private static List<Integer> awaited(int me, Need n, Ctx ctx) {
        Set<Integer> progress = ctx.progress();
        Set<Integer> known = ctx.known();
        switch (n.dir()) {
            case RECEIVE:
            case SEND: {
                if (!n.anySource()) return awaitedPeer(me, n, n.peer(), ctx);
                // from any source: one member that can send it is enough
                Set<Integer> out = new TreeSet<>();
                for (int p : n.members()) {
                    if (p == me) continue;
                    List<Integer> a = awaitedPeer(me, n, p, ctx);
                    if (a.isEmpty()) return List.of();
                    out.addAll(a);
                }
                return List.copyOf(out);
            }
            case COLLECTIVE: {
                String key = n.comm() + "\n" + n.method();
                Set<Integer> there = ctx.inside().getOrDefault(key, Set.of());
                if (there.contains(me)) {
                    List<Integer> cached = ctx.awaitedByCollective().get(key);
                    if (cached != null) return cached;
                }
                List<Integer> out = new ArrayList<>();
                for (int member : n.members()) {
                    if (member != me && known.contains(member) && !progress.contains(member) && !there.contains(member)) {
                        out.add(member);
                    }
                }
                if (there.contains(me)) ctx.awaitedByCollective().put(key, List.copyOf(out));
                return out;
            }
            case ALL_OF: {
                Set<Integer> out = new TreeSet<>();
                for (Need part : n.parts()) if (!part.offerOnly()) out.addAll(awaited(me, part, ctx));
                return List.copyOf(out);
            }
            case ANY_OF: {
                Set<Integer> out = new TreeSet<>();
                for (Need part : n.parts()) {
                    List<Integer> a = awaited(me, part, ctx);
                    if (a.isEmpty()) return List.of();
                    out.addAll(a);
                }
                return List.copyOf(out);
            }
            default:
                return List.of();
        }
    }

    /** Whether rank {@code me}'s send/receive {@code n} can be paired by peer {@code p}; else p, which cannot progress. */
    private static List<Integer> awaitedPeer(int me, Need n, int p, Ctx ctx) {
        if (!ctx.known().contains(p) || ctx.progress().contains(p)) return List.of();
        Dir opposite = n.dir() == Dir.RECEIVE ? Dir.SEND : Dir.RECEIVE;
        if (ctx.offers().has(p, opposite, me, n.comm(), n.tag())) return List.of();
        for (InFlightCall o : ctx.byRank().getOrDefault(p, List.of())) {
            if (offers(ctx.needs().get(o), opposite, me, n.comm(), n.tag())) return List.of();
        }
        return List.of(p);
    }

    /**
     * Whether need {@code n} sends to (or receives from, by {@code dir}) rank {@code to} on
     * {@code comm} with {@code tag}, itself or through a part.
     */
    private static boolean offers(Need n, Dir dir, int to, String comm, int tag) {
        if (n.dir() == dir && n.pairs(to, comm, tag)) return true;
        for (Need part : n.parts()) if (offers(part, dir, to, comm, tag)) return true;
        return false;
    }

    private static Offers offers(JobModel m, Map<Integer, Map<Long, CommunicatorView>> comms) {
        Map<Integer, List<Need>> byRank = new HashMap<>();
        for (RankStatus r : m.processes()) {
            ProcessSnapshot p = r.snapshot();
            if (p == null) continue;
            for (HandleInfo h : p.handles()) {
                if (h.kind() != HandleKind.REQUEST) continue;
                Need n = requestNeed(comms, p, h);
                if (n.dir() == Dir.SEND || n.dir() == Dir.RECEIVE) byRank.computeIfAbsent(r.rank(), x -> new ArrayList<>()).add(n);
            }
        }
        return new Offers(byRank);
    }

    /** Per rank, its registry ids of each communicator the model places across ranks. */
    private static Map<Integer, Map<Long, CommunicatorView>> communicators(JobModel m) {
        Map<Integer, Map<Long, CommunicatorView>> out = new HashMap<>();
        for (CommunicatorView v : m.communicators()) {
            for (Map.Entry<Integer, Long> e : v.handles().entrySet()) {
                out.computeIfAbsent(e.getKey(), k -> new HashMap<>()).put(e.getValue(), v);
            }
        }
        return out;
    }

    /**
     * A send or receive on communicator {@code commId} of rank {@code rank} (its registry id):
     * to/from {@code peer} (COMM_WORLD), or from any member of the communicator.
     */
    private static Need p2p(Map<Integer, Map<Long, CommunicatorView>> comms, ProcessSnapshot p, int rank, long commId,
                            Dir dir, int peer, boolean anySource, int tag) {
        CommunicatorView v = comms.getOrDefault(rank, Map.of()).get(commId);
        String key = v == null ? null : v.key();
        if (!anySource) return peer < 0 ? Need.NONE : Need.p2p(dir, peer, key, tag);
        if (dir != Dir.RECEIVE) return Need.NONE;
        // the ranks a message from any source can come from: its group, or an intercommunicator's remote group
        HandleInfo comm = p == null ? null : p.handle(commId).orElse(null);
        if (comm == null || comm.kind() != HandleKind.COMMUNICATOR || InFlightCalls.peers(comm).isEmpty()) {
            return Need.NONE;
        }
        MemberList peers = InFlightCalls.peers(comm);
        List<Integer> members = new ArrayList<>(peers.size());
        for (int i = 0; i < peers.size(); i++) members.add(peers.get(i));
        return Need.fromAny(members, key, tag);
    }

    /** A request's direction by its creating call: iRecv/recvInit receive, iSend/sendInit… send (a buffered send needs nobody). */
    static Dir direction(HandleInfo request) {
        String created = request.creatingCall() == null ? "" : request.creatingCall().toLowerCase(Locale.ROOT);
        if (created.contains("recv") && !created.contains("send")) return Dir.RECEIVE;
        if (created.contains("send") && !created.contains("recv") && !created.contains("bsend")) return Dir.SEND;
        return Dir.NONE;
    }

    /**
     * A pending request as a need: its direction, peer (COMM_WORLD) or any source, communicator
     * and tag; NONE when the direction or peer is unknown (an unknown communicator), or it is
     * persistent or complete.
     */
    private static Need requestNeed(Map<Integer, Map<Long, CommunicatorView>> comms, ProcessSnapshot p, HandleInfo h) {
        if (h == null || h.kind() != HandleKind.REQUEST || h.persistent() || h.complete() || h.peer() == HandleInfo.UNKNOWN) {
            return Need.NONE;
        }
        Dir d = direction(h);
        if (d == Dir.NONE) return Need.NONE;
        InFlightCalls.Peer peer = InFlightCalls.Peer.of(p, h);
        return p2p(comms, p, p.rank(), h.communicator(), d, peer.rank(), peer.anySource(), peer.tag());
    }

    /** What call {@code c} waits for; {@link Need#NONE} when it is not a blocking call this understands. */
    private static Need need(Map<Integer, Map<Long, CommunicatorView>> comms, ProcessSnapshot p, InFlightCall c) {
        String method = c.call().substring(c.call().lastIndexOf('.') + 1);
        BindingCalls calls = BindingCalls.spelling(method);
        if (calls != null && calls.isCollective(method)) {
            CommunicatorView v = c.handleId() == 0 ? null : comms.getOrDefault(c.rank(), Map.of()).get(c.handleId());
            return v == null ? Need.NONE : new Need(Dir.COLLECTIVE, -1, v.key(), method, v.members(), List.of(), false,
                    HandleInfo.UNKNOWN);
        }
        boolean all = calls != null && calls.waitAll().contains(method);
        // waitSome returns when one or more finished: as waitAny
        if ((all || (calls != null && calls.waitAny().contains(method))) && c.requests() != null && p != null) {
            List<Need> parts = new ArrayList<>();
            for (long id : c.requests()) {
                Need part = id == 0 ? Need.NONE : requestNeed(comms, p, p.handle(id).orElse(null));
                // waiting for all: a part that needs nobody changes nothing; for any: it may be the one
                if (part.dir() == Dir.NONE) {
                    if (all) continue;
                    return Need.NONE;
                }
                parts.add(part);
            }
            return parts.isEmpty() ? Need.NONE : new Need(all ? Dir.ALL_OF : Dir.ANY_OF, -1, null, method, List.of(),
                    List.copyOf(parts), false, HandleInfo.UNKNOWN);
        }
        if (calls != null && calls.isSendRecv(method)) {
            // waits for its receive half; its send half is offered to the peer (taken as buffered:
            // erring towards progress, a send-receive never waits for its send)
            Need receive = p2p(comms, p, c.rank(), c.handleId(), Dir.RECEIVE, c.peer(), c.anySource(), c.tag());
            if (receive.dir() == Dir.NONE && c.requests() != null && c.requests().size() == 1 && p != null) {
                // no arguments (MPJ Express): the request of the wait it is inside now (its send's, say)
                return requestNeed(comms, p, p.handle(c.requests().get(0)).orElse(null));
            }
            if (receive.dir() == Dir.NONE) return Need.NONE;
            Need send = p2p(comms, p, c.rank(), c.handleId(), Dir.SEND, c.sendTo(), false, c.sendTag());
            List<Need> parts = send.dir() == Dir.NONE ? List.of(receive) : List.of(receive, send.offered());
            return new Need(Dir.ALL_OF, -1, null, method, List.of(), parts, false, HandleInfo.UNKNOWN);
        }
        if (c.peer() < 0 && !c.anySource()) return Need.NONE;
        String lower = method.toLowerCase(Locale.ROOT);
        if (calls != null && calls.peerArgumentOf(method) >= 0) {
            Dir d = lower.equals("recv") ? Dir.RECEIVE
                    : lower.equals("send") || lower.equals("ssend") || lower.equals("rsend") ? Dir.SEND
                    : Dir.NONE; // buffered sends complete alone
            return d == Dir.NONE ? Need.NONE : p2p(comms, p, c.rank(), c.handleId(), d, c.peer(), c.anySource(), c.tag());
        }
        if (calls != null && calls.waitOne().contains(method) && c.handleId() != 0 && p != null) {
            return requestNeed(comms, p, p.handle(c.handleId()).orElse(null));
        }
        return Need.NONE;
    }

    /**
     * The ranks among {@code ranks} that lie on a wait-for cycle within them (reach themselves):
     * the strongly connected components of more than one rank, or of one that waits for itself
     * (Tarjan's algorithm, iterative: linear in ranks and edges — a master receiving from any
     * source has an edge to every worker, and a search per rank was quadratic).
     */
    private static List<Integer> onCycles(List<Integer> ranks, Map<Integer, Set<Integer>> edges) {
        Set<Integer> among = new HashSet<>(ranks);
        Map<Integer, Integer> index = new HashMap<>();
        Map<Integer, Integer> low = new HashMap<>();
        java.util.Deque<Integer> stack = new java.util.ArrayDeque<>();
        Set<Integer> onStack = new HashSet<>();
        Set<Integer> cyclic = new HashSet<>();
        java.util.Deque<Map.Entry<Integer, java.util.Iterator<Integer>>> work = new java.util.ArrayDeque<>();
        for (int start : ranks) {
            if (index.containsKey(start)) continue;
            enter(start, edges, index, low, stack, onStack, work);
            while (!work.isEmpty()) {
                int v = work.peek().getKey();
                java.util.Iterator<Integer> next = work.peek().getValue();
                if (next.hasNext()) {
                    int w = next.next();
                    if (!among.contains(w)) continue;
                    if (!index.containsKey(w)) enter(w, edges, index, low, stack, onStack, work);
                    else if (onStack.contains(w)) low.put(v, Math.min(low.get(v), index.get(w)));
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    int u = work.peek().getKey();
                    low.put(u, Math.min(low.get(u), low.get(v)));
                }
                if (low.get(v).equals(index.get(v))) {
                    List<Integer> component = new ArrayList<>();
                    int w;
                    do {
                        w = stack.pop();
                        onStack.remove(w);
                        component.add(w);
                    } while (w != v);
                    if (component.size() > 1 || edges.getOrDefault(v, Set.of()).contains(v)) cyclic.addAll(component);
                }
            }
        }
        List<Integer> out = new ArrayList<>();
        for (int r : ranks) if (cyclic.contains(r)) out.add(r);
        return List.copyOf(out);
    }

    private static void enter(int v, Map<Integer, Set<Integer>> edges, Map<Integer, Integer> index, Map<Integer, Integer> low,
                              java.util.Deque<Integer> stack, Set<Integer> onStack,
                              java.util.Deque<Map.Entry<Integer, java.util.Iterator<Integer>>> work) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        work.push(Map.entry(v, edges.getOrDefault(v, Set.of()).iterator()));
    }

    /** The ranks that reach one of {@code targets} along {@code edges} in one step or more (one backward search). */
    private static Set<Integer> reaching(Set<Integer> targets, Map<Integer, Set<Integer>> edges) {
        Map<Integer, List<Integer>> back = new HashMap<>();
        for (Map.Entry<Integer, Set<Integer>> e : edges.entrySet()) {
            for (int to : e.getValue()) back.computeIfAbsent(to, k -> new ArrayList<>()).add(e.getKey());
        }
        Set<Integer> out = new HashSet<>();
        java.util.Deque<Integer> todo = new java.util.ArrayDeque<>(targets);
        while (!todo.isEmpty()) {
            for (int from : back.getOrDefault(todo.pop(), List.of())) if (out.add(from)) todo.push(from);
        }
        return out;
    }

    /**
     * One cycle among the deadlocked ranks: from the lowest, always to the lowest rank awaited,
     * until a rank repeats. Each deadlocked rank waits only for deadlocked ones, so there is one.
     */
    private static List<Integer> cycle(List<Integer> deadlocked, Map<Integer, Set<Integer>> edges) {
        if (deadlocked.isEmpty()) return List.of();
        List<Integer> path = new ArrayList<>();
        int r = deadlocked.get(0);
        while (!path.contains(r)) {
            path.add(r);
            Integer next = null;
            for (int o : edges.getOrDefault(r, Set.of())) {
                if (deadlocked.contains(o)) {
                    next = o;
                    break;
                }
            }
            if (next == null) return List.of();
            r = next;
        }
        List<Integer> out = new ArrayList<>(path.subList(path.indexOf(r), path.size()));
        out.add(r);
        return List.copyOf(out);
    }
}
