package io.mpilens.api.binding;

import java.util.Map;
import java.util.Set;

/**
 * The MPI calls of each Java binding that the agent and the debugger side both need to
 * recognise by name — blocking send/receive, collectives, waits — one list, so the agent's
 * profiles and the in-flight-call analysis agree.
 */
public final class BindingCalls {
    private final Set<String> blockingPointToPoint;
    private final int peerArgument;
    private final Set<String> blockingCollectives;
    private final Set<String> waitOne;
    private final Set<String> waitAll;
    private final Set<String> waitAny;
    private final BindingClasses classes;
    private final int anySource;
    private final int anyTag;
    /** Per send-receive method: its destination, send tag, source and receive tag argument positions. */
    private final Map<String, int[]> sendRecv;

    private BindingCalls(BindingClasses classes, int anySource, int anyTag, Map<String, int[]> sendRecv,
                         Set<String> blockingPointToPoint, int peerArgument, Set<String> blockingCollectives,
                         Set<String> waitOne, Set<String> waitAll, Set<String> waitAny) {
        this.classes = classes;
        this.sendRecv = sendRecv;
        this.anySource = anySource;
        this.anyTag = anyTag;
        this.blockingPointToPoint = blockingPointToPoint;
        this.peerArgument = peerArgument;
        this.blockingCollectives = blockingCollectives;
        this.waitOne = waitOne;
        this.waitAll = waitAll;
        this.waitAny = waitAny;
    }

    /**
     * Open MPI's Java bindings: (buf, count, type, peer, tag, ...). {@code MPI.ANY_SOURCE} and
     * {@code MPI.ANY_TAG} are Open MPI's C values, -1 both ({@code MPI_PROC_NULL} is -2).
     */
    public static final BindingCalls OPEN_MPI = new BindingCalls(BindingClasses.OPEN_MPI, -1, -1,
            Map.of("sendRecv", new int[] {3, 4, 8, 9}, "sendRecvReplace", new int[] {3, 4, 5, 6}),
            Set.of("send", "bSend", "sSend", "rSend", "recv", "sendRecv", "sendRecvReplace"), 3,
            Set.of("barrier", "bcast", "reduce", "allReduce", "gather", "gatherv", "allGather", "allGatherv",
                    "scatter", "scatterv", "allToAll", "allToAllv", "allToAllw", "reduceScatter",
                    "reduceScatterBlock", "scan", "exScan", "dup", "split", "create", "createCart", "createGraph",
                    "merge"),
            Set.of("waitFor", "waitStatus"), Set.of("waitAll", "waitAllStatus"),
            Set.of("waitAny", "waitAnyStatus", "waitSome", "waitSomeStatus"));

    /**
     * MPJ Express (mpiJava 1.2): (buf, offset, count, type, peer, tag). {@code MPI.ANY_SOURCE} and
     * {@code MPI.ANY_TAG} are -2 both ({@code MPI.PROC_NULL} is -3).
     */
    public static final BindingCalls MPJ_EXPRESS = new BindingCalls(BindingClasses.MPJ_EXPRESS, -2, -2,
            Map.of("Sendrecv", new int[] {4, 5, 10, 11}, "Sendrecv_replace", new int[] {4, 5, 6, 7}),
            Set.of("Send", "Bsend", "Ssend", "Rsend", "Recv", "Sendrecv", "Sendrecv_replace"), 4,
            Set.of("Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Allgather", "Allgatherv",
                    "Scatter", "Scatterv", "Alltoall", "Alltoallv", "Reduce_scatter", "Scan", "Split", "Create",
                    "Create_cart", "Create_graph", "Merge"),
            Set.of("Wait"), Set.of("Waitall"), Set.of("Waitany", "Waitsome"));

    /** The binding whose spelling this method name has (a blocking call or a wait), or null. */
    public static BindingCalls spelling(String method) {
        if (OPEN_MPI.names(method)) return OPEN_MPI;
        if (MPJ_EXPRESS.names(method)) return MPJ_EXPRESS;
        return null;
    }

    /** The binding of that id (a snapshot's {@code binding}: {@link BindingClasses#id()}), or null. */
    public static BindingCalls of(String binding) {
        if (OPEN_MPI.classes.id().equals(binding)) return OPEN_MPI;
        if (MPJ_EXPRESS.classes.id().equals(binding)) return MPJ_EXPRESS;
        return null;
    }

    /** The value of this binding's {@code MPI.ANY_SOURCE}, as a receive's peer argument or a request's peer. */
    public int anySource() { return anySource; }

    /** The value of this binding's {@code MPI.ANY_TAG}. */
    public int anyTag() { return anyTag; }

    private boolean names(String method) {
        return blockingPointToPoint.contains(method) || blockingCollectives.contains(method)
                || waitOne.contains(method) || waitAll.contains(method) || waitAny.contains(method);
    }

    /** Instance methods of a request that wait for it. */
    public Set<String> waitOne() { return waitOne; }

    /** Static methods that wait for every request of an array. */
    public Set<String> waitAll() { return waitAll; }

    /** Static methods that wait for one or more requests of an array. */
    public Set<String> waitAny() { return waitAny; }

    public Set<String> blockingPointToPoint() { return blockingPointToPoint; }

    /** Argument position of the peer rank in {@link #blockingPointToPoint()} calls. */
    public int peerArgument() { return peerArgument; }

    public Set<String> blockingCollectives() { return blockingCollectives; }

    public boolean isCollective(String method) { return blockingCollectives.contains(method); }

    /**
     * Argument positions of a send-receive's destination, send tag, source and receive tag
     * ({@code sendRecv}, {@code sendRecvReplace}; {@code Sendrecv}, {@code Sendrecv_replace}), null
     * for any other method.
     */
    public int[] sendRecvArguments(String method) {
        int[] at = sendRecv.get(method);
        return at == null ? null : at.clone();
    }

    /** Whether the method is a send-receive ({@link #sendRecvArguments} has its positions). */
    public boolean isSendRecv(String method) {
        return sendRecv.containsKey(method);
    }

    /** Peer argument position of a blocking point-to-point call, -1 if it is not one. */
    public int peerArgumentOf(String method) {
        return blockingPointToPoint.contains(method) ? peerArgument : -1;
    }
}
