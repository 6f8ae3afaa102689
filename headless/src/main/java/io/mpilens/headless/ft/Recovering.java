package io.mpilens.headless.ft;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * FT-MPI's recovery in progress: a communicator with a failed member is {@code RECOVERING} while
 * live members are inside a call that builds its replacement — on it or on a communicator derived
 * from it. While it is {@code DETECTED}: any call that makes a communicator of the survivors or
 * brings processes in ({@code createGroup}, {@code create}, {@code split}, {@code dup},
 * {@code spawn}, {@code merge}, …); once a shrink {@code RECOVERED} it, only the calls that bring
 * processes in ({@code spawn}, {@code merge}): the survivors restoring its size. A rebuilt one is
 * done. Pure: the in-flight calls come from the threads' frames ({@link InFlightCalls}).
 */
public final class Recovering {
    /** Methods (both bindings' spellings) that build a communicator of the survivors or bring processes in. */
    static final Set<String> REBUILDING = Set.of("createGroup", "create", "split", "splitType", "dup", "spawn",
            "spawnMultiple", "merge", "createIntercomm", "Create", "Split", "Dup", "Create_intercomm", "Merge",
            "shrink", "Shrink");
    /** Of those, the ones that bring processes in. */
    static final Set<String> RESTORING = Set.of("spawn", "spawnMultiple", "merge", "Merge");

    private Recovering() {
    }

    /**
     * The model with its recovering communicators {@code RECOVERING} and who is inside which call
     * ({@link JobModel#recovering()}); records the round in {@code timeline} (may be null) — build
     * the model without one ({@code FaultModel.build(…, null)}) so the round is recorded once.
     */
    public static JobModel apply(JobModel m, List<InFlightCall> calls, Timeline timeline) {
        Map<String, CommunicatorView> byKey = new LinkedHashMap<>();
        for (CommunicatorView c : m.communicators()) byKey.put(c.key(), c);
        Map<String, List<InFlightCall>> inside = new LinkedHashMap<>();
        List<CommunicatorView> comms = new ArrayList<>();
        for (CommunicatorView c : m.communicators()) {
            // a revoked one (ULFM) is rebuilt the same way: survivors shrink it
            boolean detected = c.state() == CommState.DETECTED && !c.failed().isEmpty() || c.state() == CommState.REVOKED;
            boolean shrunk = c.state() == CommState.RECOVERED && !c.rebuilt();
            List<InFlightCall> in = new ArrayList<>();
            if (detected || shrunk) {
                Set<String> methods = detected ? REBUILDING : RESTORING;
                for (InFlightCall call : calls) {
                    if (c.failed().contains(call.rank()) || !c.members().contains(call.rank())) continue;
                    if (!methods.contains(method(call.call()))) continue;
                    if (onLineage(call, c, byKey)) in.add(call);
                }
            }
            if (in.isEmpty()) {
                comms.add(c);
            } else {
                inside.put(c.key(), List.copyOf(in));
                comms.add(c.withState(CommState.RECOVERING));
            }
        }
        List<Transition> transitions = timeline == null ? m.timeline()
                : timeline.record(m.at(), m.processes(), comms, m.hosts(), m.pendingOnFailed(), m.failedOn());
        return new JobModel(m.job(), m.at(), m.processes(), comms, m.hosts(), transitions, m.pendingOnFailed(),
                m.failedOn(), inside, timeline == null ? m.grown() : timeline.grown());
    }

    /** Whether the call's receiver is {@code c} or a communicator derived from it, on the call's rank. */
    private static boolean onLineage(InFlightCall call, CommunicatorView c, Map<String, CommunicatorView> byKey) {
        if (call.handleId() == 0) return false;
        Map<String, Boolean> memo = new HashMap<>();
        for (CommunicatorView d : byKey.values()) {
            Long id = d.handles().get(call.rank());
            if (id == null || id != call.handleId()) continue;
            for (CommunicatorView a = d; a != null; a = a.parent() == null ? null : byKey.get(a.parent())) {
                if (memo.put(a.key(), Boolean.TRUE) != null) break; // a loop in damaged lineage
                if (a.key().equals(c.key())) return true;
            }
        }
        return false;
    }

    /** {@code mpi.Intracomm.spawn} → {@code spawn}. */
    static String method(String call) {
        return call == null ? "" : call.substring(call.lastIndexOf('.') + 1);
    }
}
