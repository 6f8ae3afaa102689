package io.mpilens.headless.ft;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fault-tolerance picture of a job at one moment, and the transitions that led to it.
 *
 * @param pendingOnFailed requests of live ranks still pending on a FAILED peer
 * @param failedOn        per communicator key, the live ranks on which it is FAILED: a call on it
 *                        raised an MPI exception there because the binding closed its transport
 *                        (MPJ Express niodev after a peer died); nothing can be sent on it there
 * @param recovering      per communicator key that is {@code RECOVERING}, the calls its live members
 *                        are inside that rebuild it ({@link Recovering}); empty when frames were not read
 * @param grown           the alarms of orphans or leaks that grew since the observer's look before
 *                        ({@link StatusWord#grown}, recorded by the {@link Timeline}); empty after one look
 */
public record JobModel(String job, Instant at, List<RankStatus> processes, List<CommunicatorView> communicators,
                       List<HostView> hosts, List<Transition> timeline, List<PendingOnFailedPeer> pendingOnFailed,
                       Map<String, List<Integer>> failedOn, Map<String, List<InFlightCall>> recovering,
                       List<StatusWord.Reason> grown) {
    public JobModel {
        recovering = recovering == null ? Map.of() : Map.copyOf(recovering);
        grown = grown == null ? List.of() : List.copyOf(grown);
    }

    /** A model of one look, or of an observer without a timeline: no growth judged. */
    public JobModel(String job, Instant at, List<RankStatus> processes, List<CommunicatorView> communicators,
                    List<HostView> hosts, List<Transition> timeline, List<PendingOnFailedPeer> pendingOnFailed,
                    Map<String, List<Integer>> failedOn, Map<String, List<InFlightCall>> recovering) {
        this(job, at, processes, communicators, hosts, timeline, pendingOnFailed, failedOn, recovering, List.of());
    }

    /** A model of a round without the threads' calls read. */
    public JobModel(String job, Instant at, List<RankStatus> processes, List<CommunicatorView> communicators,
                    List<HostView> hosts, List<Transition> timeline, List<PendingOnFailedPeer> pendingOnFailed,
                    Map<String, List<Integer>> failedOn) {
        this(job, at, processes, communicators, hosts, timeline, pendingOnFailed, failedOn, Map.of());
    }

    /** A model without requests on failed peers or per-rank failures (the shape before they were tracked). */
    public JobModel(String job, Instant at, List<RankStatus> processes, List<CommunicatorView> communicators,
                    List<HostView> hosts, List<Transition> timeline) {
        this(job, at, processes, communicators, hosts, timeline, List.of(), Map.of());
    }

    public JobModel(String job, Instant at, List<RankStatus> processes, List<CommunicatorView> communicators,
                    List<HostView> hosts, List<Transition> timeline, List<PendingOnFailedPeer> pendingOnFailed) {
        this(job, at, processes, communicators, hosts, timeline, pendingOnFailed, Map.of());
    }

    /** The job's status word ({@link StatusWord}): errors, alarms and undefined ranks, rank 0 apart. */
    public StatusWord status() {
        return StatusWord.of(this);
    }

    /** The calls that rebuild communicator {@code key} while it is {@code RECOVERING}. */
    public List<InFlightCall> recovering(String key) {
        return recovering.getOrDefault(key, List.of());
    }

    /** The live ranks on which communicator {@code key} is FAILED (see {@link #failedOn()}). */
    public List<Integer> failedOn(String key) {
        return failedOn.getOrDefault(key, List.of());
    }

    /** The requests pending on a FAILED peer whose communicator is {@code key}. */
    public List<PendingOnFailedPeer> pendingOnFailed(String key) {
        return pendingOnFailed.stream().filter(p -> key.equals(p.communicator())).toList();
    }

    /** The rank's first incarnation (the one the launcher started; ranks are listed by rank, then epoch). */
    public Optional<RankStatus> rank(int rank) {
        return processes.stream().filter(p -> p.rank() == rank).findFirst();
    }

    /** The process that took the rank's place after it failed (REBUILD: a later epoch listed beside it), if any. */
    public Optional<RankStatus> replacement(int rank) {
        return processes.stream().filter(p -> p.rank() == rank).skip(1).reduce((a, b) -> b);
    }

    /** The incarnation of {@code rank} that is a member of {@code c}: its replacement where {@code c} holds one, else its first. */
    public Optional<RankStatus> member(CommunicatorView c, int rank) {
        Integer epoch = c.epochs().get(rank);
        return epoch == null ? rank(rank) : processes.stream().filter(p -> p.rank() == rank && p.epoch() == epoch).findFirst();
    }

    public Optional<CommunicatorView> communicator(String label) {
        return communicators.stream().filter(c -> c.label().equals(label)).findFirst();
    }
}
