package dev.inferd.app.models;

/**
 * A model could not be found, read or downloaded. The message is written for the person at the
 * command line: it says what is wrong and what to do about it.
 */
public class ModelException extends RuntimeException {
    public ModelException(String message) {
        super(message);
    }

    public ModelException(String message, Throwable cause) {
        super(message, cause);
    }
}
