package io.mpilens.api.model;

import java.util.Locale;
import java.util.Set;

/**
 * What a request is for, from the call that created it (both bindings' names: Open MPI's
 * {@code iSend}, {@code iAllReduce}, {@code iWriteAt}, {@code rPut}; MPJ Express's {@code Isend},
 * {@code Send_init}). Whether it is persistent is {@link HandleInfo#persistent()}.
 */
public enum RequestType {
    POINT_TO_POINT("point-to-point"),
    COLLECTIVE("collective"),
    FILE("file"),
    ONE_SIDED("one-sided"),
    GENERALIZED("generalized");

    private static final Set<String> POINT_TO_POINT_CALLS = Set.of("isend", "ibsend", "issend", "irsend", "irecv",
            "imrecv", "sendinit", "bsendinit", "ssendinit", "rsendinit", "recvinit");
    private static final Set<String> COLLECTIVE_CALLS = Set.of("ibarrier", "ibcast", "igather", "igatherv", "iscatter",
            "iscatterv", "iallgather", "iallgatherv", "ialltoall", "ialltoallv", "ialltoallw", "ireduce", "iallreduce",
            "ireducescatter", "ireducescatterblock", "iscan", "iexscan", "ineighborallgather", "ineighborallgatherv",
            "ineighboralltoall", "ineighboralltoallv", "ineighboralltoallw");
    private static final Set<String> FILE_CALLS = Set.of("iread", "ireadall", "ireadat", "ireadatall", "ireadshared",
            "iwrite", "iwriteall", "iwriteat", "iwriteatall", "iwriteshared");
    private static final Set<String> ONE_SIDED_CALLS = Set.of("rput", "rget", "raccumulate", "rgetaccumulate");
    private static final Set<String> GENERALIZED_CALLS = Set.of("grequeststart", "startgrequest");

    private final String label;

    RequestType(String label) {
        this.label = label;
    }

    /** As JSON and the views write it: {@code point-to-point}, {@code collective}, … */
    public String label() {
        return label;
    }

    /** The type of a request made by this call; null when the call is not known (or null). */
    public static RequestType ofCall(String call) {
        if (call == null) return null;
        String n = call.replace("_", "").toLowerCase(Locale.ROOT);
        if (POINT_TO_POINT_CALLS.contains(n)) return POINT_TO_POINT;
        if (COLLECTIVE_CALLS.contains(n)) return COLLECTIVE;
        if (FILE_CALLS.contains(n)) return FILE;
        if (ONE_SIDED_CALLS.contains(n)) return ONE_SIDED;
        if (GENERALIZED_CALLS.contains(n)) return GENERALIZED;
        return null;
    }
}
