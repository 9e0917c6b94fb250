package dev.inferd.app.models;

import java.nio.file.Path;

/** A catalog model asked for offline before it was downloaded. */
public final class ModelNotCachedException extends ModelException {
    public ModelNotCachedException(CatalogEntry entry, Path expectedAt) {
        super("model '" + entry.slug() + "' is not downloaded yet and --offline forbids downloading it. "
                + "Run `./inferd pull " + entry.slug() + "` while online (it goes to " + expectedAt
                + "), or pass --model path/to/file.gguf.");
    }
}
