package io.mpilens.headless.agentless;

import io.mpilens.api.target.TargetReadException;

/** The target has no MPI binding mpilens knows loaded: there is nothing to read without the agent either. */
public final class BindingNotFoundException extends TargetReadException {
    private static final long serialVersionUID = 1L;

    public BindingNotFoundException(String message) {
        super(message);
    }
}
