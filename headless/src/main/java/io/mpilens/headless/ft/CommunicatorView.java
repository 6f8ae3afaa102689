package io.mpilens.headless.ft;

import java.util.List;
import java.util.Map;

/**
 * One communicator of the job, assembled from the views of the ranks that hold it.
 *
 * @param key         stable identity across ranks and rounds (lineage, creating call, members)
 * @param label       what users read: its name, or {@code call(parent)}
 * @param members     its group as COMM_WORLD ranks; an intercommunicator's: both groups, the first
 *                    of {@code groups} then the second
 * @param failed      members that are {@code FAILED}
 * @param unavailable members that did not answer in time (suspects, not failures)
 * @param parent      key of the communicator it was derived from, or null
 * @param recoveredBy keys of derived communicators whose members are exactly the surviving ones
 * @param seenBy      ranks whose registry holds it
 * @param raisedOn    ranks on which a call on it (or on a request or window of it) raised an MPI exception
 * @param handles     rank → registry id of that rank's handle of it (ids are per JVM), for the ranks in {@code seenBy}
 * @param groups      an intercommunicator's two groups (each side's local group; the one that
 *                    compares lower first, so both sides name the same order); empty for an intracommunicator
 * @param rebuiltBy   those of {@code recoveredBy} that restore all its members, each failed one by a
 *                    replacement (FT-MPI's REBUILD); the others shrink it
 * @param epochs      members that are a replacement (a later incarnation of their rank), with their epoch
 */
public record CommunicatorView(String key, String label, List<Integer> members, CommState state,
                               List<Integer> failed, List<Integer> unavailable, String parent,
                               List<String> recoveredBy, List<Integer> seenBy, List<Integer> raisedOn,
                               Map<Integer, Long> handles, List<List<Integer>> groups, List<String> rebuiltBy,
                               Map<Integer, Integer> epochs) {
    public CommunicatorView {
        handles = handles == null ? Map.of() : Map.copyOf(handles);
        groups = groups == null ? List.of() : List.copyOf(groups);
        rebuiltBy = rebuiltBy == null ? List.of() : List.copyOf(rebuiltBy);
        epochs = epochs == null ? Map.of() : Map.copyOf(epochs);
    }

    /** Without replacements. */
    public CommunicatorView(String key, String label, List<Integer> members, CommState state, List<Integer> failed,
                            List<Integer> unavailable, String parent, List<String> recoveredBy, List<Integer> seenBy,
                            List<Integer> raisedOn, Map<Integer, Long> handles, List<List<Integer>> groups) {
        this(key, label, members, state, failed, unavailable, parent, recoveredBy, seenBy, raisedOn, handles, groups,
                List.of(), Map.of());
    }

    /** The same view in another state. */
    public CommunicatorView withState(CommState s) {
        return new CommunicatorView(key, label, members, s, failed, unavailable, parent, recoveredBy, seenBy, raisedOn,
                handles, groups, rebuiltBy, epochs);
    }

    /** Its state as users read it: {@code RECOVERED (rebuilt)} when a REBUILD recovered it. */
    public String stateName() {
        return state.name() + (state == CommState.RECOVERED && rebuilt() ? " (rebuilt)" : "");
    }

    /** Whether a communicator derived from it restored its members with replacements (REBUILD). */
    public boolean rebuilt() {
        return !rebuiltBy.isEmpty();
    }

    /** An intracommunicator. */
    public CommunicatorView(String key, String label, List<Integer> members, CommState state, List<Integer> failed,
                            List<Integer> unavailable, String parent, List<String> recoveredBy, List<Integer> seenBy,
                            List<Integer> raisedOn, Map<Integer, Long> handles) {
        this(key, label, members, state, failed, unavailable, parent, recoveredBy, seenBy, raisedOn, handles, List.of());
    }

    /** Whether it is an intercommunicator (two groups). */
    public boolean inter() {
        return !groups.isEmpty();
    }

    /** Without the per-rank handle ids. */
    public CommunicatorView(String key, String label, List<Integer> members, CommState state, List<Integer> failed,
                            List<Integer> unavailable, String parent, List<String> recoveredBy, List<Integer> seenBy,
                            List<Integer> raisedOn) {
        this(key, label, members, state, failed, unavailable, parent, recoveredBy, seenBy, raisedOn, Map.of());
    }
}
