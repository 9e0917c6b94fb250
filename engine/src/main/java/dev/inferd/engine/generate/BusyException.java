package dev.inferd.engine.generate;

/**
 * The engine cannot take this request now (its queue is full); the caller may retry after
 * {@link #retryAfterSeconds()}. Thrown by {@link TextGenerator#submit}, before anything was started.
 */
public class BusyException extends RuntimeException {

    private final int retryAfterSeconds;

    public BusyException(String message, int retryAfterSeconds) {
        super(message);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** How long the caller should wait before retrying, in whole seconds. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
