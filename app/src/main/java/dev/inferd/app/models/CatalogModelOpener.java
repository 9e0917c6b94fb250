package dev.inferd.app.models;

import dev.inferd.engine.batch.SchedulerStats;
import dev.inferd.engine.generate.ModelEvent;
import dev.inferd.server.cloud.catalog.ModelOpener;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.metrics.EngineStats;
import dev.inferd.server.pool.LoadedModel;
import dev.inferd.server.store.CatalogModel;
import dev.inferd.speech.whisper.WhisperModel;
import dev.inferd.speech.whisper.WhisperModelFile;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The hosted deployment's models from the catalog of {@code inferd models} and {@code pull}: a new deployment
 * lists every entry of it; a model is checked for servability when added, downloaded by the same code as
 * {@code pull} when first needed, and loaded as {@code serve} loads it.
 */
public final class CatalogModelOpener implements ModelOpener {

    private static final Pattern FILE_MODEL_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}");

    private final ModelResolver resolver;
    private final ModelLoading options;
    private final boolean offline;
    private final ModelEvent.Listener events;

    public CatalogModelOpener(ModelResolver resolver, ModelLoading options, boolean offline, ModelEvent.Listener events) {
        this.resolver = resolver;
        this.options = options;
        this.offline = offline;
        this.events = events;
    }

    @Override
    public List<CatalogModel> builtIn(long nowSeconds) {
        return resolver.catalog().entries().stream()
                .map(e -> new CatalogModel(e.slug(), e.ownedBy(), kindOf(e), e.slug(), nowSeconds)).toList();
    }

    @Override
    public CatalogModel describe(ModelSpec spec, long nowSeconds) {
        if (spec.file() != null) {
            if (!FILE_MODEL_ID.matcher(spec.id()).matches()) {
                throw new IllegalArgumentException("model id '" + spec.id() + "' must be letters, digits and . _ : / - (at most 200)");
            }
            Path file = path(spec.file());
            if (!Files.isRegularFile(file)) throw new IllegalArgumentException("model file " + file + " does not exist");
            String owner = spec.ownedBy() == null || spec.ownedBy().isBlank() ? "user" : spec.ownedBy();
            return new CatalogModel(spec.id(), owner, isWhisperFile(file) ? CatalogModel.SPEECH : "chat", file.toString(), nowSeconds);
        }
        CatalogEntry entry;
        try {
            entry = resolver.catalog().require(spec.id());
            ModelResolver.requireServable(entry);
        } catch (ModelException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        String owner = spec.ownedBy() == null || spec.ownedBy().isBlank() ? entry.ownedBy() : spec.ownedBy();
        return new CatalogModel(entry.slug(), owner, kindOf(entry), entry.slug(), nowSeconds);
    }

    /** The file's size (the catalog's, before a download), plus the KV memory when it is set. */
    @Override
    public long estimateBytes(CatalogModel model) {
        long kv = model.isSpeech() ? 0 : options.kvMemory();
        var entry = resolver.catalog().find(model.source());
        if (entry.isPresent()) {
            var cached = resolver.store().cached(entry.get());
            long size = cached.isPresent() ? sizeOf(cached.get()) : entry.get().size().orElse(0);
            return size + kv;
        }
        return sizeOf(Path.of(model.source())) + kv;
    }

    /** Downloads a catalog model first when it is not cached (unless offline), then loads it. */
    @Override
    public LoadedModel open(CatalogModel model) throws IOException {
        Path file = resolver.catalog().find(model.source()).isPresent()
                ? resolver.resolveModel(model.source(), offline).file()
                : Path.of(model.source());
        long fileBytes = sizeOf(file);
        if (model.isSpeech()) return new LoadedModel.Speech(WhisperModel.open(file), fileBytes);
        var copyBytes = new AtomicLong();
        ModelEvent.Listener listener = event -> {
            if (event instanceof ModelEvent.Loaded l) copyBytes.set(l.copyBytes());
            events.on(event);
        };
        var generator = options.openText(file, model.id(), model.ownedBy(), listener);
        try {
            generator.awaitWarmUp(); // the request that asked for the model then runs compiled kernels
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // served all the same, its first requests slower
        }
        SchedulerStats stats = generator.stats();
        long kvBytes = (long) stats.kvBlocksTotal() * stats.kvBlockBytes();
        EngineStats engineStats = () -> {
            SchedulerStats s = generator.stats();
            return new EngineStats.Snapshot(s.queuedRequests(), s.activeSequences(), s.kvBlocksUsed(), s.kvBlocksTotal(),
                    s.kvBlocksCached());
        };
        return new LoadedModel.Text(generator, engineStats, fileBytes + copyBytes.get() + kvBytes);
    }

    private static String kindOf(CatalogEntry entry) {
        return entry.kind().equals("unknown") ? "chat" : entry.kind().toLowerCase(Locale.ROOT);
    }

    private static Path path(String file) {
        try {
            return Path.of(file).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + file + "' is not a file path");
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + file + ": " + e.getMessage(), e);
        }
    }

    /** whisper.cpp's format starts with the magic "ggml", a GGUF file with "GGUF". */
    private static boolean isWhisperFile(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && ByteBuffer.wrap(magic).order(ByteOrder.LITTLE_ENDIAN).getInt() == WhisperModelFile.MAGIC;
        } catch (IOException e) {
            return false;
        }
    }
}
