package dev.inferd.app.models;

import java.io.IOException;
import java.net.URI;

/** The server answered a status the download cannot go on with. */
final class HttpStatusException extends IOException {
    private final int status;

    HttpStatusException(int status, URI uri) {
        super("HTTP " + status + " from " + uri);
        this.status = status;
    }

    int status() {
        return status;
    }

    /** Worth another try: the server is overloaded, restarting or timed out. */
    boolean isTransient() {
        return status >= 500 || status == 429 || status == 408;
    }
}
