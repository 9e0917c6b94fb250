package dev.inferd.app.models;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The local copy of catalog models. Layout, one folder per repository and pinned revision so two
 * revisions of a file never collide:
 * <pre>
 * $INFERD_HOME/models/&lt;hf_repo&gt;/&lt;revision&gt;/&lt;file&gt;          the verified file (only ever renamed into place)
 * $INFERD_HOME/models/&lt;hf_repo&gt;/&lt;revision&gt;/&lt;file&gt;.part     an unfinished download, resumed by the next pull
 * $INFERD_HOME/models/&lt;hf_repo&gt;/&lt;revision&gt;/&lt;file&gt;.sha256   the SHA-256 computed on download, when the catalog had none
 * </pre>
 * for example {@code models/ggml-org/models-moved/499bc88.../tinyllamas/stories260K.gguf}.
 */
public final class ModelStore {
    private final Path modelsDir;

    public ModelStore(Path modelsDir) {
        this.modelsDir = modelsDir.toAbsolutePath().normalize();
    }

    public Path modelsDir() {
        return modelsDir;
    }

    /** Where the verified file of {@code entry} is (or will be). */
    public Path fileFor(CatalogEntry entry) {
        Path p = modelsDir.resolve(entry.hfRepo()).resolve(entry.revision()).resolve(entry.file()).normalize();
        if (!p.startsWith(modelsDir)) {
            throw new ModelException(entry.slug() + ": its file would land outside " + modelsDir);
        }
        return p;
    }

    public Path partFor(CatalogEntry entry) {
        return sibling(fileFor(entry), ".part");
    }

    public Path sha256FileFor(CatalogEntry entry) {
        return sibling(fileFor(entry), ".sha256");
    }

    /** The downloaded file, when it is there. Only verified files ever carry the final name. */
    public Optional<Path> cached(CatalogEntry entry) {
        Path p = fileFor(entry);
        return Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
    }

    /** The size of the cached file, else the catalog's, else -1. */
    public long sizeOf(CatalogEntry entry) {
        Optional<Path> cached = cached(entry);
        if (cached.isPresent()) {
            try {
                return Files.size(cached.get());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return entry.size().orElse(-1);
    }

    private static Path sibling(Path file, String suffix) {
        return file.resolveSibling(file.getFileName() + suffix);
    }
}
