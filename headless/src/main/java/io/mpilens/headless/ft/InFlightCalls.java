package io.mpilens.headless.ft;

import io.mpilens.api.binding.BindingCalls;
import io.mpilens.api.model.HandleIds;
import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.HandleKind;
import io.mpilens.api.model.Lifecycle;
import io.mpilens.api.model.MemberList;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.api.model.BindingFrame;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns the binding frames read from each rank into {@link InFlightCall}s: maps the receiver to
 * the registry's handle (by its identity in the agent's wrapper index when the frame carries the
 * id, which covers MPJ Express communicators and requests; else Open MPI by native handle, MPJ
 * predefined handles by the {@code mpi.MPI} field that holds them, other MPJ communicators by their
 * group when exactly one communicator of the rank has it) and
 * flags calls that wait for a FAILED rank. Pure, like {@link FaultModel}.
 */
public final class InFlightCalls {
    private static final int ANY_SOURCE_MAX = -1;

    private InFlightCalls() {
    }

    public static List<InFlightCall> of(JobModel m, Map<Integer, List<BindingFrame>> framesByRank) {
        List<Integer> failedRanks = new ArrayList<>();
        for (RankStatus r : m.processes()) if (r.state() == ProcessState.FAILED) failedRanks.add(r.rank());
        // an unnamed communicator is called what cominfo calls it (split(MPI_COMM_WORLD)), not by
        // its registry id: ids differ between ranks of one JVM, so the ranks of one call group
        Map<Integer, Map<Long, String>> labels = new java.util.HashMap<>();
        for (CommunicatorView c : m.communicators()) {
            c.handles().forEach((r, id) -> labels.computeIfAbsent(r, k -> new java.util.HashMap<>()).put(id, c.label()));
        }
        List<InFlightCall> out = new ArrayList<>();
        for (Map.Entry<Integer, List<BindingFrame>> e : new TreeMap<>(framesByRank).entrySet()) {
            ProcessSnapshot p = m.rank(e.getKey()).map(RankStatus::snapshot).orElse(null);
            Map<Long, String> named = labels.getOrDefault(e.getKey(), Map.of());
            for (BindingFrame f : e.getValue()) out.add(classify(e.getKey(), f, p, failedRanks, named));
        }
        out.sort(Comparator.comparingInt(InFlightCall::rank).thenComparing(InFlightCall::thread));
        return out;
    }

    /**
     * The frames of one JVM by rank. A JVM of one rank: all of them. Several (MPJ Express
     * multicore): each frame goes to the rank whose COMM_WORLD has the frame's
     * {@link BindingFrame#worldId()} (its class loader's); frames without one are left out. Every
     * rank of the JVM is in the map, with no frames when none of its threads is in a call — unless
     * there were frames and none could be placed (no agent ids: attached late, or no agent): then
     * the map is empty, since nothing is known of any rank.
     */
    public static Map<Integer, List<BindingFrame>> byRank(List<BindingFrame> frames, List<ProcessSnapshot> snapshots) {
        Map<Integer, List<BindingFrame>> out = new TreeMap<>();
        if (snapshots.size() == 1) {
            if (snapshots.get(0).rank() >= 0) out.put(snapshots.get(0).rank(), frames);
            return out;
        }
        Map<Long, Integer> rankOfWorld = new java.util.HashMap<>();
        for (ProcessSnapshot p : snapshots) {
            if (p.rank() < 0) continue;
            out.put(p.rank(), new ArrayList<>());
            for (HandleInfo h : p.handles()) {
                if (h.kind() == HandleKind.COMMUNICATOR && h.predefined() && "MPI_COMM_WORLD".equals(h.name())) {
                    rankOfWorld.put(h.id(), p.rank());
                }
            }
        }
        boolean placed = false;
        for (BindingFrame f : frames) {
            Integer r = f.worldId() == null ? null : rankOfWorld.get(f.worldId());
            if (r != null) {
                out.get(r).add(f);
                placed = true;
            }
        }
        if (!placed && !frames.isEmpty()) return new TreeMap<>();
        out.replaceAll((r, l) -> List.copyOf(l));
        return out;
    }

    /** @param labels the rank's communicators by registry id: what cominfo calls them */
    static InFlightCall classify(int rank, BindingFrame f, ProcessSnapshot p, List<Integer> failedRanks,
                                 Map<Long, String> labels) {
        HandleInfo h = receiver(f, p);
        String call = f.declaringClass() + "." + f.method();
        String receiver = h != null ? (h.name() != null ? h.name() : labels.getOrDefault(h.id(), HandleIds.label(h.id())))
                : f.receiverMembers() != null ? f.receiverClass() + " " + f.receiverMembers() : f.receiverClass();
        List<Integer> failed = new ArrayList<>();
        int peer = -1;
        boolean anySource = false;
        int tag = HandleInfo.UNKNOWN;
        int sendTo = -1;
        int sendTag = HandleInfo.UNKNOWN;
        HandleInfo comm = h == null ? null : h.kind() == HandleKind.COMMUNICATOR ? h
                : p.handle(h.communicator()).orElse(null);
        BindingCalls calls = BindingCalls.spelling(f.method());
        if (h != null && h.kind() == HandleKind.COMMUNICATOR && calls != null && calls.isCollective(f.method())) {
            for (MemberList l : List.of(h.memberList(), h.remoteMemberList())) {
                for (int i = 0; i < l.size(); i++) if (failedRanks.contains(l.get(i))) failed.add(l.get(i));
            }
        } else if (h == null && f.receiverMembers() != null && calls != null && calls.isCollective(f.method())) {
            // an MPJ communicator not told apart from another with the same group: its members still decide
            for (int member : f.receiverMembers()) if (failedRanks.contains(member)) failed.add(member);
        } else if (h != null && h.kind() == HandleKind.COMMUNICATOR && calls != null && calls.isSendRecv(f.method())) {
            // a send-receive: peer, anySource and tag are its receive half's
            int[] at = calls.sendRecvArguments(f.method());
            Integer dest = argument(f, at[0]);
            Integer source = argument(f, at[2]);
            sendTo = dest == null ? -1 : worldRank(comm, dest);
            sendTag = tag(calls, argument(f, at[1]));
            peer = source == null ? -1 : worldRank(comm, source);
            anySource = source != null && source == calls.anySource();
            tag = tag(calls, argument(f, at[3]));
            HandleInfo inner = source == null ? innerReceive(f, p) : null;
            if (inner != null) {
                // no arguments (MPJ Express): the receive it waits for now says whom it receives from
                Peer from = Peer.of(p, inner);
                peer = from.rank();
                anySource = from.anySource();
                tag = from.tag();
            }
            if (sendTo >= 0 && failedRanks.contains(sendTo)) failed.add(sendTo);
        } else if (h != null && h.kind() == HandleKind.COMMUNICATOR && calls != null
                && calls.peerArgumentOf(f.method()) >= 0) {
            int at = calls.peerArgumentOf(f.method());
            Integer local = at < f.intArguments().size() ? f.intArguments().get(at) : null;
            peer = local == null ? -1 : worldRank(comm, local);
            anySource = local != null && local == calls.anySource();
            tag = tag(calls, at + 1 < f.intArguments().size() ? f.intArguments().get(at + 1) : null);
        } else if (h != null && h.kind() == HandleKind.REQUEST && h.peer() != HandleInfo.UNKNOWN) {
            Peer of = Peer.of(p, h);
            peer = of.rank();
            anySource = of.anySource();
            tag = of.tag();
        }
        if (peer >= 0 && failedRanks.contains(peer) && !failed.contains(peer)) failed.add(peer);
        List<Long> requests = requests(f, p);
        if (requests != null && calls != null && calls.waitAll().contains(f.method()) && p != null) {
            // waiting for all of them: one on a FAILED peer is enough never to complete
            for (long id : requests) {
                HandleInfo r = id == 0 ? null : p.handle(id).orElse(null);
                int w = r == null || r.peer() == HandleInfo.UNKNOWN ? -1 : worldRank(p.handle(r.communicator()).orElse(null), r.peer());
                if (w >= 0 && failedRanks.contains(w) && !failed.contains(w)) failed.add(w);
            }
        }
        return new InFlightCall(rank, f.thread(), call, receiver, h == null ? 0 : h.id(), peer, List.copyOf(failed),
                !failed.isEmpty(), requests, anySource, tag, sendTo, sendTag);
    }

    /**
     * A request's peer as COMM_WORLD rank (-1 when a wildcard or unknown), whether it receives from
     * any source, and its tag ({@link #tag}), by the values of the binding of the snapshot that holds it.
     */
    record Peer(int rank, boolean anySource, int tag) {
        static Peer of(ProcessSnapshot p, HandleInfo request) {
            BindingCalls binding = BindingCalls.of(p.binding());
            return new Peer(worldRank(p.handle(request.communicator()).orElse(null), request.peer()),
                    binding != null && request.peer() == binding.anySource(), InFlightCalls.tag(binding, request.tag()));
        }
    }

    /** The one pending receive request of a frame's {@link BindingFrame#requests()} (see there), or null. */
    private static HandleInfo innerReceive(BindingFrame f, ProcessSnapshot p) {
        List<Long> ids = requests(f, p);
        if (ids == null || ids.size() != 1 || ids.get(0) == 0) return null;
        HandleInfo r = p.handle(ids.get(0)).orElse(null);
        return r != null && r.peer() != HandleInfo.UNKNOWN && WaitFor.direction(r) == WaitFor.Dir.RECEIVE ? r : null;
    }

    private static Integer argument(BindingFrame f, int at) {
        return at < f.intArguments().size() ? f.intArguments().get(at) : null;
    }

    /** A tag as the binding passed it: {@link InFlightCall#ANY_TAG} for its {@code MPI.ANY_TAG}, UNKNOWN for none. */
    static int tag(BindingCalls binding, Integer raw) {
        if (raw == null || raw == HandleInfo.UNKNOWN || binding == null) return HandleInfo.UNKNOWN;
        if (raw == binding.anyTag()) return InFlightCall.ANY_TAG;
        return raw >= 0 ? raw : HandleInfo.UNKNOWN;
    }

    /**
     * The registry ids of the pending requests in the frame's request array, 0 for an element not
     * found pending (finished already, or not tracked); null elements are left out. Null when the
     * frame has no request array (or it was not read).
     */
    private static List<Long> requests(BindingFrame f, ProcessSnapshot p) {
        if (f.requests() == null || p == null) return null;
        Map<Long, Long> byHandle = new java.util.HashMap<>();
        for (HandleInfo x : p.handles()) {
            if (x.kind() == HandleKind.REQUEST && x.hasCHandle() && !x.complete() && x.state() == Lifecycle.ACTIVE) {
                byHandle.put(x.cHandle(), x.id());
            }
        }
        List<Long> out = new ArrayList<>();
        for (BindingFrame.Element e : f.requests()) {
            if (e.handle() == null && e.registryId() == null) continue;
            Long id = null;
            if (e.registryId() != null) {
                id = p.handle(e.registryId()).filter(x -> x.kind() == HandleKind.REQUEST && !x.complete()
                        && x.state() == Lifecycle.ACTIVE).map(HandleInfo::id).orElse(null);
            }
            if (id == null && e.handle() != null) id = byHandle.get(e.handle());
            out.add(id == null ? 0L : id);
        }
        return List.copyOf(out);
    }

    /**
     * The registry handle of the frame's receiver: by the id its identity maps to, else matched by
     * native handle value (Open MPI), or, for a receiver without one (MPJ Express), by the
     * predefined handle it is or its group.
     */
    private static HandleInfo receiver(BindingFrame f, ProcessSnapshot p) {
        if (p == null) return null;
        if (f.receiverId() != null) {
            Optional<HandleInfo> byIdentity = p.handle(f.receiverId()).filter(x -> x.kind() == HandleKind.COMMUNICATOR
                    || x.kind() == HandleKind.REQUEST || x.kind() == HandleKind.WINDOW);
            if (byIdentity.isPresent()) return byIdentity.get();
        }
        if (f.receiverHandle() == null && f.receiverPredefined() != null) {
            return p.handles().stream().filter(x -> x.predefined() && f.receiverPredefined().equals(x.name()))
                    .filter(x -> x.kind() == HandleKind.COMMUNICATOR || x.kind() == HandleKind.REQUEST
                            || x.kind() == HandleKind.WINDOW)
                    .findFirst().orElse(null);
        }
        if (f.receiverHandle() == null && f.receiverMembers() != null) {
            // MPJ: the one communicator of this rank (not predefined: those are matched by name) with that group
            int[] members = f.receiverMembers().stream().mapToInt(Integer::intValue).toArray();
            List<HandleInfo> same = p.handles().stream()
                    .filter(x -> x.kind() == HandleKind.COMMUNICATOR && !x.predefined() && x.state() != Lifecycle.RELEASED)
                    .filter(x -> java.util.Arrays.equals(x.members(), members)).toList();
            return same.size() == 1 ? same.get(0) : null;
        }
        if (f.receiverHandle() == null) return null;
        long value = f.receiverHandle();
        Optional<HandleInfo> h = p.handles().stream()
                .filter(x -> x.hasCHandle() && x.cHandle() == value)
                .filter(x -> x.kind() == HandleKind.COMMUNICATOR || x.kind() == HandleKind.REQUEST
                        || x.kind() == HandleKind.WINDOW)
                .findFirst();
        return h.orElse(null);
    }

    /**
     * A peer rank on a communicator as a COMM_WORLD rank: of its group, or for an
     * intercommunicator of its remote group (where point-to-point peers are); wildcards, unknown
     * communicators and an intercommunicator whose remote group is not known give -1.
     */
    static int worldRank(HandleInfo comm, int local) {
        if (local <= ANY_SOURCE_MAX) return -1;
        if (comm == null) return -1;
        MemberList members = peers(comm);
        return local < members.size() ? members.get(local) : -1;
    }

    /** The COMM_WORLD ranks a point-to-point call on {@code comm} can name: its group, or an intercommunicator's remote group. */
    static MemberList peers(HandleInfo comm) {
        return comm.inter() || !comm.remoteMemberList().isEmpty() ? comm.remoteMemberList() : comm.memberList();
    }
}
