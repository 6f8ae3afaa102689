package io.mpilens.agent.registry;

/**
 * What the weaver adds to the root classes of the handle kinds a request is created on and holds
 * while pending — communicators, windows and files — when requests live in their wrappers: a
 * reader of the wrapper's registry id ({@code RegistryLayout.WRAPPER_ID_FIELD}), which the
 * request ring records as the request's holder.
 */
public interface RequestHolder {
    long mpilens$id();
}
