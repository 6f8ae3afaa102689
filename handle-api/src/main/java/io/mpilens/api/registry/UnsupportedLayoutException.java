package io.mpilens.api.registry;

/** The registry in the target was written by an agent with a layout this decoder does not know. */
public class UnsupportedLayoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int found;

    public UnsupportedLayoutException(int found, String message) {
        super(message);
        this.found = found;
    }

    public int foundVersion() {
        return found;
    }
}
