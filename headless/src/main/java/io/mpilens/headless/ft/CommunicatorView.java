package io.mpilens.headless.ft;

import java.util.List;
import java.util.Map;

/**
 * One communicator of the job, assembled from the views of the ranks that hold it.
 *
 * @param key         stable identity across ranks and rounds (lineage, creating call, members)
 * @param label       what users read: its name, or {@code call(parent)}
 * @param members     its (local) group as COMM_WORLD ranks
 * @param failed      members that are {@code FAILED}
 * @param unavailable members that did not answer in time (suspects, not failures)
 * @param parent      key of the communicator it was derived from, or null
 * @param recoveredBy keys of derived communicators whose members are exactly the surviving ones
 * @param seenBy      ranks whose registry holds it
 * @param raisedOn    ranks on which a call on it (or on a request or window of it) raised an MPI exception
 * @param handles     rank → registry id of that rank's handle of it (ids are per JVM), for the ranks in {@code seenBy}
 */
public record CommunicatorView(String key, String label, List<Integer> members, CommState state,
                               List<Integer> failed, List<Integer> unavailable, String parent,
                               List<String> recoveredBy, List<Integer> seenBy, List<Integer> raisedOn,
                               Map<Integer, Long> handles) {
    public CommunicatorView {
        handles = handles == null ? Map.of() : Map.copyOf(handles);
    }

    /** Without the per-rank handle ids. */
    public CommunicatorView(String key, String label, List<Integer> members, CommState state, List<Integer> failed,
                            List<Integer> unavailable, String parent, List<String> recoveredBy, List<Integer> seenBy,
                            List<Integer> raisedOn) {
        this(key, label, members, state, failed, unavailable, parent, recoveredBy, seenBy, raisedOn, Map.of());
    }
}
