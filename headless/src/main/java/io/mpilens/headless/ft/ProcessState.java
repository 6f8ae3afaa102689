package io.mpilens.headless.ft;

/** What mpilens knows about one rank's process (DESIGN §6). */
public enum ProcessState {
    /** The agent is up, MPI is not initialised yet. */
    JOINING,
    OK,
    /** Did not answer within the deadline: slow, stopped or unreachable, not known to be dead. */
    UNAVAILABLE,
    /** Dead, with evidence: its VM disconnected or its process is gone. */
    FAILED,
    /** MPI finalized (the process may have exited since: that is not a failure). */
    FINALIZED
}
