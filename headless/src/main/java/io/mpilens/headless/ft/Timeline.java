package io.mpilens.headless.ft;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The transitions of a job's processes, communicators and hosts, in the order they were
 * observed. Feed it every round ({@link FaultModel#build}); it keeps the whole history.
 */
public final class Timeline {
    /** The subject of the job's {@link StatusWord}: {@code status: OK -> ER_OTH  (rank 2 FAILED)}. */
    public static final String STATUS = "status";
    private final Map<String, String> last = new HashMap<>();
    private final List<Transition> transitions = new ArrayList<>();

    /** Records what changed since the previous round; returns the whole timeline so far. */
    synchronized List<Transition> record(Instant at, List<RankStatus> ranks, List<CommunicatorView> comms,
                                         List<HostView> hosts, List<PendingOnFailedPeer> pending,
                                         Map<String, List<Integer>> failedOn) {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (RankStatus r : ranks) {
            // a replacement (a second incarnation listed beside the failed one) is a subject of its own
            boolean replacement = !seen.add(r.rank());
            change(at, "rank " + r.rank() + (replacement ? " epoch " + r.epoch() : ""),
                    r.state() + (r.epoch() > 0 && !replacement ? " (epoch " + r.epoch() + ")" : ""), r.evidence());
        }
        for (CommunicatorView c : comms) {
            String why = !c.failed().isEmpty() ? "failed members " + c.failed()
                    + (c.rebuilt() ? ", rebuilt with replacements" : c.recoveredBy().isEmpty() ? "" : ", rebuilt without them") : "";
            change(at, "comm " + c.label(), c.state().name() + (c.rebuilt() ? " (rebuilt)" : ""), why);
            for (int r : failedOn.getOrDefault(c.key(), List.of())) {
                change(at, "comm " + c.label() + " on rank " + r, "FAILED", "its transport closed: nothing can be sent");
            }
        }
        for (HostView h : hosts) change(at, "host " + h.host(), h.state().name(), "");
        Map<Integer, Integer> stranded = new java.util.TreeMap<>();
        for (PendingOnFailedPeer p : pending) stranded.merge(p.rank(), 1, Integer::sum);
        for (RankStatus r : ranks) {
            Integer n = stranded.get(r.rank());
            if (n != null) change(at, "rank " + r.rank() + " requests on FAILED peers", Integer.toString(n),
                    "pending, can never complete");
        }
        StatusWord word = StatusWord.of(ranks, pending); // last: after the changes that set it
        change(at, STATUS, word.name(), word.because());
        return List.copyOf(transitions);
    }

    public synchronized List<Transition> transitions() {
        return List.copyOf(transitions);
    }

    private void change(Instant at, String subject, String to, String why) {
        String from = last.put(subject, to);
        if (!to.equals(from)) transitions.add(new Transition(at, subject, from, to, why));
    }
}
