package dev.inferd.app.models;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns what the user passed to {@code --model} into a local model file: an existing file as is,
 * or a catalog slug, downloaded first when it is not cached (unless offline).
 */
public final class ModelResolver {
    private final Catalog catalog;
    private final ModelStore store;
    private final ModelDownloader downloader;
    private final DownloadProgress progress;

    public ModelResolver(Catalog catalog, ModelStore store, ModelDownloader downloader, DownloadProgress progress) {
        this.catalog = catalog;
        this.store = store;
        this.downloader = downloader;
        this.progress = progress;
    }

    /** From the process environment, with download progress on standard error. */
    public static ModelResolver fromEnvironment() {
        return fromEnvironment(System::getenv, System.err);
    }

    /** From {@code env} (INFERD_HOME, INFERD_HF_ENDPOINT, HF_TOKEN, CI), with download progress on {@code progressOut}. */
    public static ModelResolver fromEnvironment(Function<String, String> env, PrintStream progressOut) {
        return create(ModelsConfig.fromEnvironment(env), RetryPolicy.DEFAULT,
                DownloadProgress.to(progressOut, DownloadProgress.isInteractive(env)));
    }

    public static ModelResolver create(ModelsConfig config, RetryPolicy retry, DownloadProgress progress) {
        var store = new ModelStore(config.modelsDir());
        return new ModelResolver(Catalog.load(config.userCatalog()), store, new ModelDownloader(config, store, retry), progress);
    }

    /** The local file for {@code modelArg}; see {@link #resolveModel}. */
    public Path resolve(String modelArg, boolean offline) {
        return resolveModel(modelArg, offline).file();
    }

    /**
     * An existing file path is used as is; a catalog slug gives its cached file, downloading it
     * first unless {@code offline}. Anything else is a {@link ModelException} that says what to do.
     */
    public ResolvedModel resolveModel(String modelArg, boolean offline) {
        if (modelArg == null || modelArg.isBlank()) {
            throw new ModelException("--model needs a catalog slug (see `./inferd models`) or a path to a .gguf file");
        }
        Optional<Path> path = asPath(modelArg);
        if (path.isPresent() && Files.isRegularFile(path.get())) {
            Path file = path.get().toAbsolutePath().normalize();
            return new ResolvedModel(idOf(file), file, Optional.empty());
        }
        Optional<CatalogEntry> entry = catalog.find(modelArg);
        if (entry.isPresent()) {
            requireServable(entry.get());
            return new ResolvedModel(entry.get().slug(), fileFor(entry.get(), offline), entry);
        }
        if (path.isPresent() && Files.isDirectory(path.get())) {
            throw new ModelException("model " + path.get().toAbsolutePath() + " is a folder; pass the .gguf file inside it");
        }
        if (looksLikePath(modelArg)) {
            throw new ModelException("model file " + path.map(p -> p.toAbsolutePath().toString()).orElse(modelArg)
                    + " does not exist. Pass an existing .gguf file, or a catalog slug (see `./inferd models`).");
        }
        throw new UnknownModelException(modelArg, CloseMatches.among(modelArg,
                catalog.entries().stream().map(CatalogEntry::slug).toList(), 5));
    }

    /** The catalog entry of {@code slug}, for the server's model id and {@code owned_by}. */
    public Optional<CatalogEntry> entry(String slug) {
        return catalog.find(slug);
    }

    /** Downloads {@code entry} unless it is cached; returns its file. */
    public Path pull(CatalogEntry entry) {
        requireServable(entry);
        return downloader.download(entry, progress);
    }

    /** Refuses a model this build cannot serve, before anything of it is downloaded. */
    public static void requireServable(CatalogEntry entry) {
        Servability servability = entry.servability();
        if (!servability.servable()) throw new UnservableModelException(entry, servability.reason());
    }

    public Catalog catalog() {
        return catalog;
    }

    public ModelStore store() {
        return store;
    }

    private Path fileFor(CatalogEntry entry, boolean offline) {
        Optional<Path> cached = store.cached(entry);
        if (cached.isPresent()) {
            return cached.get();
        }
        if (offline) {
            throw new ModelNotCachedException(entry, store.fileFor(entry));
        }
        return pull(entry);
    }

    private static Optional<Path> asPath(String arg) {
        try {
            return Optional.of(Path.of(arg));
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    private static boolean looksLikePath(String arg) {
        String lower = arg.toLowerCase(Locale.ROOT);
        return lower.endsWith(".gguf") || lower.endsWith(".bin") || arg.contains("/") || arg.contains("\\")
                || arg.startsWith(".") || arg.startsWith("~");
    }

    /**
     * The id a model file is served under: its file name without the extension of a model file, {@code .gguf}
     * (GGUF) or {@code .bin} (whisper.cpp), so that {@code qwen.gguf} is {@code qwen} and {@code ggml-tiny.bin}
     * is {@code ggml-tiny}.
     */
    public static String idOf(Path file) {
        String name = file.getFileName().toString();
        String lower = name.toLowerCase(Locale.ROOT);
        for (String extension : new String[] {".gguf", ".bin"}) {
            if (lower.endsWith(extension) && name.length() > extension.length()) {
                return name.substring(0, name.length() - extension.length());
            }
        }
        return name;
    }
}
