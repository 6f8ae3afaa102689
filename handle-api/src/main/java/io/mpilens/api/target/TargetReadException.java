package io.mpilens.api.target;

/** The target could not be read: disconnected, died, or a dump is damaged. */
public class TargetReadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TargetReadException(String message) {
        super(message);
    }

    public TargetReadException(String message, Throwable cause) {
        super(message, cause);
    }
}
