package dev.inferd.server.http;

/** A write to the client failed: it closed the connection. The generation behind it should stop. */
public final class ClientGoneException extends RuntimeException {

    public ClientGoneException(Throwable cause) {
        super("client closed the connection", cause, false, false);
    }
}
