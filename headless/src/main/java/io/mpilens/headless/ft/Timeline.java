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
    /** Whether rounds are compared for orphans or leaks that grow ({@link #judgeGrowth}). */
    private boolean judgingGrowth;
    /** Each rank's orphans and leaked handles at its last answer (by rank and epoch), for the next round's growth. */
    private final Map<List<Integer>, StatusWord.Held> held = new HashMap<>();
    /** The alarms of growth the last round recorded. */
    private List<StatusWord.Reason> grown = List.of();

    /**
     * From the next round on, compare each rank's orphans and leaked handles with its last answer
     * ({@link StatusWord#grown}): for readers that look again on purpose, a round every interval
     * ({@code watch}, {@code status --interval}). Not by default: a reader that looks when something
     * happens (the Eclipse views at each suspension, the demo at each step) would take what a program
     * creates between two steps for growth.
     */
    public synchronized void judgeGrowth() {
        judgingGrowth = true;
    }

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
        if (judgingGrowth) {
            List<StatusWord.Held> now = new ArrayList<>();
            for (RankStatus r : ranks) {
                StatusWord.Held h = StatusWord.Held.of(r, at);
                if (h != null) now.add(h);
            }
            grown = StatusWord.grown(held.values(), now); // a rank compared with its last answer, however long ago
            for (StatusWord.Held h : now) held.put(List.of(h.rank(), h.epoch()), h);
        }
        StatusWord word = StatusWord.of(ranks, pending).with(grown); // last: after the changes that set it
        change(at, STATUS, word.name(), word.because());
        return List.copyOf(transitions);
    }

    /** The alarms of orphans or leaks that grew between the round before and the last one recorded. */
    synchronized List<StatusWord.Reason> grown() {
        return grown;
    }

    public synchronized List<Transition> transitions() {
        return List.copyOf(transitions);
    }

    private void change(Instant at, String subject, String to, String why) {
        String from = last.put(subject, to);
        if (!to.equals(from)) transitions.add(new Transition(at, subject, from, to, why));
    }
}
