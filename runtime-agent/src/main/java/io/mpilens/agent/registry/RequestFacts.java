package io.mpilens.agent.registry;

/**
 * What the agent adds to the binding's root request class at load time when requests live in
 * their wrappers (where the binding allows it: {@code RegistryLayout.REQUEST_RING}): the request's
 * creation sequence number, a private transient synthetic field the weaver generates
 * ({@code RegistryLayout.REQUEST_SEQ_FIELD}).
 */
public interface RequestFacts {
    void mpilens$seq(long seq);

    long mpilens$seq();
}
