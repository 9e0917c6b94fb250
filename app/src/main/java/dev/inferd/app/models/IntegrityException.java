package dev.inferd.app.models;

import java.io.IOException;

/** The bytes are not the ones the catalog describes; trying again would fetch the same wrong bytes. */
final class IntegrityException extends IOException {
    IntegrityException(String message) {
        super(message);
    }
}
