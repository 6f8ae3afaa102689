package io.mpilens.agent.registry;

/**
 * What the weaver adds to the root class of each handle hierarchy it gives the wrapper id field
 * ({@code RegistryLayout.WRAPPER_ID_FIELD}): a setter of that field, so registering a wrapper
 * stores its id with one interface call instead of a field looked up by reflection per class
 * (at {@code MPI_Init}, ≈ 40 predefined handles of ten classes; docs/performance.md, start-up).
 * Classes woven without it (a late attach cannot add methods) keep the reflective way.
 */
public interface WrapperId {
    void mpilens$setId(long id);
}
