package dev.inferd.app.models;

import java.io.IOException;

/** Another process holds the lock on the {@code .part} file. */
final class BusyException extends IOException {
    BusyException(String message) {
        super(message);
    }
}
