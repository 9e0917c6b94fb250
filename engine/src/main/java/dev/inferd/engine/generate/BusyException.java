package dev.inferd.engine.generate;

/**
 * The generator's waiting queue is full: the request was not queued and should be retried later
 * (HTTP 429 with a {@code Retry-After} header).
 */
public class BusyException extends RuntimeException {
    private final int retryAfterSeconds;

    public BusyException(String message, int retryAfterSeconds) {
        super(message);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** A suggested wait before retrying, in whole seconds (at least 1). */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
