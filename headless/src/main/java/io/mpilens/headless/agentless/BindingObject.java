package io.mpilens.headless.agentless;

import io.mpilens.api.model.HandleKind;
import java.util.List;
import java.util.Map;

/**
 * One object of an MPI binding as its own fields show it, read without the mpilens agent.
 *
 * @param type       the binding's class, without the package: {@code Intracomm}, {@code CartComm}
 * @param name       the {@code mpi.MPI} static field that holds it ({@code MPI_COMM_WORLD}), or null
 * @param cHandle    Open MPI: the C handle kept in the wrapper's {@code handle} field; null for MPJ Express
 * @param nullHandle Open MPI: the handle is the binding's null handle (freed, or not created yet)
 * @param contexts   MPJ Express communicators: send, receive and collective context ids; empty otherwise
 * @param rank       this process's rank in the communicator or group, -1 if not known
 * @param size       -1 if not known
 * @param members    MPJ Express: the members as {@code MPI_COMM_WORLD} ranks (-1: not a world
 *                   member, e.g. of another job); empty when not known
 * @param details    further fields by name, most telling first, e.g. {@code extent}, {@code peer}, {@code tag}, {@code dims}
 */
public record BindingObject(HandleKind kind, String type, String name, Long cHandle, boolean nullHandle,
                            List<Integer> contexts, int rank, int size, List<Integer> members,
                            Map<String, String> details) {
    public BindingObject {
        contexts = List.copyOf(contexts);
        members = List.copyOf(members);
        details = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(details));
    }
}
