package io.mpilens.api.model;

import java.util.Objects;

/**
 * How the in-process agent is doing. Failures inside interception are swallowed so the
 * application never sees them; they are counted here so the user does.
 */
public final class AgentHealth {
    private final String agentVersion;
    private final int internalErrors;
    private final String lastError;
    private final long untrackedEvents;
    private final boolean requestsTracked;
    private final long blockingReturns;

    public AgentHealth(String agentVersion, int internalErrors, String lastError, long untrackedEvents) {
        this(agentVersion, internalErrors, lastError, untrackedEvents, true);
    }

    public AgentHealth(String agentVersion, int internalErrors, String lastError, long untrackedEvents,
                       boolean requestsTracked) {
        this(agentVersion, internalErrors, lastError, untrackedEvents, requestsTracked, -1);
    }

    public AgentHealth(String agentVersion, int internalErrors, String lastError, long untrackedEvents,
                       boolean requestsTracked, long blockingReturns) {
        this.blockingReturns = blockingReturns;
        this.agentVersion = agentVersion;
        this.internalErrors = internalErrors;
        this.lastError = lastError;
        this.untrackedEvents = untrackedEvents;
        this.requestsTracked = requestsTracked;
    }

    public String agentVersion() { return agentVersion; }
    /** Exceptions caught inside interception since the agent started. */
    public int internalErrors() { return internalErrors; }
    /** Description of the most recent internal error, or null. */
    public String lastError() { return lastError; }
    /** MPI events the agent could not record (for example a free of a handle it never saw). */
    public long untrackedEvents() { return untrackedEvents; }
    public boolean healthy() { return internalErrors == 0; }
    /**
     * False when the agent runs with {@code requests=false}: no request is recorded, so the
     * snapshot shows none, a freed communicator is not held by its pending requests, and nothing
     * can be said about requests pending on a failed peer.
     */
    public boolean requestsTracked() { return requestsTracked; }
    /**
     * How many times the process's threads have left a blocking MPI call (blocking send or
     * receive, collective, wait on one request), as a progress signal: unchanged between two
     * looks means no thread left one meanwhile. -1 when the agent does not count them (older agent).
     */
    public long blockingReturns() { return blockingReturns; }

    /** The same with {@code more} blocking returns counted (one process's own, in a JVM of several). */
    public AgentHealth plusBlockingReturns(long more) {
        if (more == 0 || blockingReturns < 0) return this;
        return new AgentHealth(agentVersion, internalErrors, lastError, untrackedEvents, requestsTracked,
                blockingReturns + more);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AgentHealth)) return false;
        AgentHealth a = (AgentHealth) o;
        return internalErrors == a.internalErrors && untrackedEvents == a.untrackedEvents
                && requestsTracked == a.requestsTracked && blockingReturns == a.blockingReturns && Objects.equals(agentVersion, a.agentVersion) && Objects.equals(lastError, a.lastError);
    }

    @Override
    public int hashCode() {
        return Objects.hash(agentVersion, internalErrors, lastError, untrackedEvents, requestsTracked, blockingReturns);
    }
}
