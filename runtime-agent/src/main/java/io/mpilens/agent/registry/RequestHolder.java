package io.mpilens.agent.registry;

/**
 * {@link Identified}, for the root classes of the handle kinds a request is created on and holds
 * while pending: communicators, windows and files (not, say, a matched message, whose
 * {@code imRecv} also makes a request).
 */
public interface RequestHolder extends Identified {
}
