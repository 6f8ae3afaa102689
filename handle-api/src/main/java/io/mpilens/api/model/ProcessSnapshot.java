package io.mpilens.api.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The MPI objects of one MPI process (one rank) at one moment, as decoded from its JVM's
 * registry. Several ranks can share a JVM (MPJ Express multicore); each gets its own snapshot.
 */
public final class ProcessSnapshot {
    private final int rank;
    private final int worldSize;
    private final long pid;
    private final String host;
    private final String binding;
    private final MpiState mpiState;
    private final int layoutVersion;
    private final AgentHealth agentHealth;
    private final List<HandleInfo> handles;
    private final List<HandleInfo> released;
    private final int tornRows;
    private final List<MpiError> errors;

    public ProcessSnapshot(int rank, int worldSize, long pid, String host, String binding, MpiState mpiState,
                           int layoutVersion, AgentHealth agentHealth, List<HandleInfo> handles,
                           List<HandleInfo> released, int tornRows) {
        this(rank, worldSize, pid, host, binding, mpiState, layoutVersion, agentHealth, handles, released, tornRows,
                List.of());
    }

    public ProcessSnapshot(int rank, int worldSize, long pid, String host, String binding, MpiState mpiState,
                           int layoutVersion, AgentHealth agentHealth, List<HandleInfo> handles,
                           List<HandleInfo> released, int tornRows, List<MpiError> errors) {
        this.rank = rank;
        this.worldSize = worldSize;
        this.pid = pid;
        this.host = host;
        this.binding = binding;
        this.mpiState = mpiState;
        this.layoutVersion = layoutVersion;
        this.agentHealth = agentHealth;
        this.handles = Collections.unmodifiableList(new ArrayList<>(handles));
        this.released = Collections.unmodifiableList(new ArrayList<>(released));
        this.tornRows = tornRows;
        this.errors = Collections.unmodifiableList(new ArrayList<>(errors));
    }

    /** COMM_WORLD rank, {@link HandleInfo#UNKNOWN} before MPI init. */
    public int rank() { return rank; }
    public int worldSize() { return worldSize; }
    public long pid() { return pid; }
    public String host() { return host; }
    /** Binding profile id: {@code openmpi} or {@code mpj}. */
    public String binding() { return binding; }
    public MpiState mpiState() { return mpiState; }
    public int layoutVersion() { return layoutVersion; }
    public AgentHealth agentHealth() { return agentHealth; }
    /** Objects that exist now: active ones and orphans (freed, still referenced). */
    public List<HandleInfo> handles() { return handles; }
    /** Most recently released objects, newest first, from the agent's bounded history. */
    public List<HandleInfo> released() { return released; }
    /** Rows skipped because the target was stopped in the middle of updating them. */
    public int tornRows() { return tornRows; }
    /** MPI exceptions raised by binding calls of this rank, newest first, from the agent's bounded ring. */
    public List<MpiError> errors() { return errors; }

    public Optional<HandleInfo> handle(long id) {
        for (HandleInfo h : handles) {
            if (h.id() == id) return Optional.of(h);
        }
        return Optional.empty();
    }

    public List<HandleInfo> orphans() {
        List<HandleInfo> out = new ArrayList<>();
        for (HandleInfo h : handles) {
            if (h.isOrphan()) out.add(h);
        }
        return out;
    }
}
