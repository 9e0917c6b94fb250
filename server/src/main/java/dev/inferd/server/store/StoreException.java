package dev.inferd.server.store;

/** The database could not be reached, migrated, read or written. */
public final class StoreException extends RuntimeException {
    public StoreException(String message, Throwable cause) {
        super(cause instanceof java.sql.SQLException sql ? message + ": " + sql.getMessage() : message, cause);
    }
}
