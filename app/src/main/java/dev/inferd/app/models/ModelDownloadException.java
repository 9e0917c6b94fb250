package dev.inferd.app.models;

/** A download that failed; {@link #reason()} tells scripts and tests which way. */
public final class ModelDownloadException extends ModelException {
    public enum Reason {
        /** 401 or 403: the repository needs a token, or the token has no access. */
        GATED,
        /** 404: no such repository, revision or file. */
        NOT_FOUND,
        /** The server could not be reached at all. */
        NO_NETWORK,
        /** The bytes arrived but their size or SHA-256 is not the catalog's. */
        CORRUPT,
        /** Another process is downloading the same file right now. */
        BUSY,
        /** Anything else: an unexpected status, or transient failures that outlasted the retries. */
        FAILED
    }

    private final Reason reason;

    public ModelDownloadException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
