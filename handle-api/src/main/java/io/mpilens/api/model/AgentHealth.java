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

    public AgentHealth(String agentVersion, int internalErrors, String lastError, long untrackedEvents) {
        this.agentVersion = agentVersion;
        this.internalErrors = internalErrors;
        this.lastError = lastError;
        this.untrackedEvents = untrackedEvents;
    }

    public String agentVersion() { return agentVersion; }
    /** Exceptions caught inside interception since the agent started. */
    public int internalErrors() { return internalErrors; }
    /** Description of the most recent internal error, or null. */
    public String lastError() { return lastError; }
    /** MPI events the agent could not record (for example a free of a handle it never saw). */
    public long untrackedEvents() { return untrackedEvents; }
    public boolean healthy() { return internalErrors == 0; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AgentHealth)) return false;
        AgentHealth a = (AgentHealth) o;
        return internalErrors == a.internalErrors && untrackedEvents == a.untrackedEvents
                && Objects.equals(agentVersion, a.agentVersion) && Objects.equals(lastError, a.lastError);
    }

    @Override
    public int hashCode() {
        return Objects.hash(agentVersion, internalErrors, lastError, untrackedEvents);
    }
}
