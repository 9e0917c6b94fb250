package dev.inferd.app.models;

/** A catalog model this build cannot serve: refused before anything is downloaded. */
public final class UnservableModelException extends ModelException {
    public UnservableModelException(CatalogEntry entry, String reason) {
        super("model " + entry.slug() + " cannot be served by this build: " + reason);
    }
}
