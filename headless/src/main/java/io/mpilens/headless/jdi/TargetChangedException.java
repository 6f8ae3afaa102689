package io.mpilens.headless.jdi;

import io.mpilens.api.target.TargetReadException;

/**
 * An object the read had reached was garbage-collected in the running target: the registry
 * replaced its arrays while being read. Reading again usually succeeds.
 */
public class TargetChangedException extends TargetReadException {
    private static final long serialVersionUID = 1L;

    public TargetChangedException(String message, Throwable cause) {
        super(message, cause);
    }
}
