package dev.inferd.app.models;

import java.io.IOException;

/** Another process holds the lock on the {@code .part} file. */
final class PartFileLockedException extends IOException {
    PartFileLockedException(String message) {
        super(message);
    }
}
