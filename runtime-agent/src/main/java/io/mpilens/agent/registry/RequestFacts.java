package io.mpilens.agent.registry;

/**
 * What the agent adds to the binding's root request class at load time when requests live in
 * their wrappers (agent option {@code requestsInWrappers=true}, where the binding allows it): the
 * facts of the creating call, written once when the request is created, read by the reader from
 * the wrapper (a debugger's field reads, a heap dump's instance records). The
 * methods are accessors of private transient synthetic fields the weaver generates
 * ({@code RegistryLayout.REQUEST_*_FIELD}). Pending or complete is the binding's own state
 * (Open MPI: the native handle the binding writes back), so completing a request costs the agent
 * nothing.
 */
public interface RequestFacts {
    void mpilens$call(String call);

    String mpilens$call();

    void mpilens$peerTag(long peerTag);

    /**
     * The communicator, window or file the request was created on, held by reference: a freed
     * one whose requests may still be pending stays registered until its wrapper is collected,
     * which the requests' wrappers prevent while the application holds them.
     */
    void mpilens$holder(Object holder);

    void mpilens$seq(long seq);
}
