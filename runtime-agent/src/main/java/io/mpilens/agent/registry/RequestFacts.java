package io.mpilens.agent.registry;

/**
 * What the agent adds to the binding's root request class at load time when requests live in
 * their wrappers (where the binding allows it: {@code RegistryLayout.REQUEST_RING}): the request's
 * creation sequence number, a private transient synthetic field the weaver generates
 * ({@code RegistryLayout.REQUEST_SEQ_FIELD}), an int: it fits in the padding of the request
 * objects of both bindings, where a long made each 8 bytes larger.
 */
public interface RequestFacts {
    void mpilens$seq(int seq);

    int mpilens$seq();
}
