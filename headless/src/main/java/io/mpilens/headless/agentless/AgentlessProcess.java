package io.mpilens.headless.agentless;

import io.mpilens.api.model.MpiState;
import java.util.List;

/**
 * What the fields of an MPI binding's own objects reveal about one MPI process, read without
 * the mpilens agent: reduced information (see {@link #MISSING}).
 *
 * @param source      where it was read: {@code 127.0.0.1:40001}, {@code rank3.hprof}
 * @param binding     {@code openmpi} or {@code mpj}
 * @param rank        {@code MPI_COMM_WORLD} rank, -1 when the heap does not hold it
 * @param rankFrom    where the rank came from: {@code COMM_WORLD} (MPJ Express), an environment
 *                    variable of the process ({@code OMPI_COMM_WORLD_RANK}), or null
 * @param notRead     objects beyond the limit mpilens reads, not listed
 */
public record AgentlessProcess(String source, String binding, int rank, int worldSize, String rankFrom,
                               MpiState mpiState, List<BindingObject> objects, long notRead) {
    /** What only the agent records, for the reduced-information banner and the JSON. */
    public static final List<String> MISSING = List.of("lifecycle", "orphans", "referenceCounts", "releasedHandles",
            "leakedWrappers", "creationSites", "names", "mpiErrors");

    public AgentlessProcess {
        objects = List.copyOf(objects);
    }
}
