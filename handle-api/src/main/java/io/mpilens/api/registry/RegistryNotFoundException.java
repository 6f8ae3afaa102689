package io.mpilens.api.registry;

/** The target has no mpilens registry: the agent is not loaded there. */
public class RegistryNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RegistryNotFoundException(String message) {
        super(message);
    }
}
