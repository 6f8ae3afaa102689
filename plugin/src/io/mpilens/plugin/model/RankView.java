package io.mpilens.plugin.model;

import io.mpilens.api.model.HandleInfo;
import io.mpilens.api.model.ProcessSnapshot;
import io.mpilens.headless.ft.ProcessState;
import io.mpilens.api.model.BindingFrame;
import io.mpilens.headless.job.JobRecord;
import java.util.List;

/**
 * One MPI process of a job as the views show it: the last snapshot read from it (kept when
 * the rank dies, so its handles stay visible), its state and the evidence for it.
 *
 * @param target   label of the debug target (or other source) it was read from
 * @param process  the last snapshot, null if it was never read
 * @param state    judged by {@code headless.ft.Liveness} from how the last read ended
 * @param suspended the debugger holds the rank suspended
 * @param problem  the evidence for a state other than OK (why it could not be read), or null
 * @param frames   the MPI call each thread is inside, read while the rank's VM was suspended; null
 *                 when not read (running, or a rank of a shared JVM whose threads could not be placed)
 * @param spawned  the job record of a process the job spawned ({@code MPI_Comm_spawn}; REBUILD: a
 *                 replacement), null for a rank the launcher started. Its snapshot is numbered by its
 *                 own COMM_WORLD; the job's model ({@code headless.ft.Replacements}) places it
 */
public record RankView(String target, ProcessSnapshot process, ProcessState state, boolean suspended,
                       String problem, List<BindingFrame> frames, JobRecord spawned) {
    public RankView(String target, ProcessSnapshot process, ProcessState state, boolean suspended, String problem) {
        this(target, process, state, suspended, problem, null);
    }

    public RankView(String target, ProcessSnapshot process, ProcessState state, boolean suspended, String problem,
                    List<BindingFrame> frames) {
        this(target, process, state, suspended, problem, frames, null);
    }

    /**
     * COMM_WORLD rank, {@link HandleInfo#UNKNOWN} if never read, before MPI init, or for a spawned
     * process (its rank in the job is the one the model gives it: {@code JobModel.replacement}).
     */
    public int rank() {
        return process == null || spawned != null ? HandleInfo.UNKNOWN : process.rank();
    }

    public int worldSize() {
        return process == null ? HandleInfo.UNKNOWN : process.worldSize();
    }

    /** "rank 2", or the target's label while the rank is not known. */
    public String label() {
        return rank() == HandleInfo.UNKNOWN ? target : "rank " + rank();
    }

    public String host() {
        return process == null || process.host() == null || process.host().isEmpty() ? "(unknown host)" : process.host();
    }

    public int handleCount() {
        return process == null ? 0 : process.handles().size();
    }
}
