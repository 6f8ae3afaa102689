package io.mpilens.agent.registry;

/**
 * What the weaver adds, with its field ({@code RegistryLayout.WRAPPER_REQUESTED_FIELD}), to the
 * root classes of the handle kinds a request is created on and holds while pending —
 * communicators, windows and files — when requests live in their wrappers: whether such a request
 * was created on this handle (then, once freed, it stays registered until its wrapper is collected).
 */
public interface RequestHolder {
    boolean mpilens$requested();

    void mpilens$requested(boolean requested);
}
