package io.mpilens.agent.registry;

/**
 * Accessors the weaver adds, with their fields, to the root class of each handle hierarchy the
 * agent transforms at load time: the wrapper's registry id ({@code RegistryLayout.WRAPPER_ID_FIELD})
 * and whether a request in a wrapper was created on it ({@code RegistryLayout.WRAPPER_REQUESTED_FIELD}).
 */
public interface Identified {
    long mpilens$id();

    boolean mpilens$requested();

    void mpilens$requested(boolean requested);
}
