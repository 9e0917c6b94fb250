package dev.inferd.app.models;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A {@code --model} argument turned into a local file.
 *
 * @param id    the model id clients use: the catalog slug, or the file name without {@code .gguf}
 * @param file  the absolute path of the verified local file
 * @param entry the catalog entry, absent when the argument was a file path
 */
public record ResolvedModel(String id, Path file, Optional<CatalogEntry> entry) {
    /** The {@code owned_by} of {@code /v1/models}: the catalog's owner, or "user" for a file path. */
    public String ownedBy() {
        return entry.map(CatalogEntry::ownedBy).orElse("user");
    }
}
