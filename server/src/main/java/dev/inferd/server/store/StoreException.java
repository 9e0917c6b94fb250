package dev.inferd.server.store;

/**
 * The database could not be reached, migrated, read or written. The message says what failed and the database's
 * reason; the statement, when there was one, is kept apart ({@link #statement()}) so that a message shown to a user
 * never carries SQL.
 */
public final class StoreException extends RuntimeException {
    private final String statement;

    public StoreException(String message, Throwable cause) {
        this(message, null, cause);
    }

    public StoreException(String message, String statement, Throwable cause) {
        super(cause instanceof java.sql.SQLException sql ? message + ": " + sql.getMessage() : message, cause);
        this.statement = statement;
    }

    /** The SQL statement that failed, or null. */
    public String statement() {
        return statement;
    }
}
