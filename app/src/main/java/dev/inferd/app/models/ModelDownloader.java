package dev.inferd.app.models;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * Downloads catalog models into the {@link ModelStore}: fetches into {@code <file>.part}, checks
 * size and SHA-256, and only then renames to the final name, so a file under that name is always
 * complete and verified. Explains failures in terms of the repository, revision and file.
 */
public final class ModelDownloader {
    private final ModelsConfig config;
    private final ModelStore store;
    private final ResumableDownload fetcher;

    public ModelDownloader(ModelsConfig config, ModelStore store, RetryPolicy retry) {
        this(config, store, retry, Duration.ofSeconds(60));
    }

    /** @param stallTimeout how long a connection may deliver nothing before it counts as failed */
    public ModelDownloader(ModelsConfig config, ModelStore store, RetryPolicy retry, Duration stallTimeout) {
        this(config, store, new ResumableDownload(
                () -> ResumableDownload.newHttpClient(Duration.ofSeconds(20)), retry, Duration.ofSeconds(60), stallTimeout));
    }

    ModelDownloader(ModelsConfig config, ModelStore store, ResumableDownload fetcher) {
        this.config = config;
        this.store = store;
        this.fetcher = fetcher;
    }

    /** The verified local file of {@code entry}, downloading (or resuming) it when it is not there yet. */
    public Path download(CatalogEntry entry, DownloadProgress progress) {
        Path target = store.fileFor(entry);
        if (Files.isRegularFile(target)) {
            return target;
        }
        Path part = store.partFor(entry);
        URI url = HubUrls.resolve(config.endpoint(), entry);
        boolean done = false;
        try {
            Files.createDirectories(part.getParent());
            String sha256 = fetch(entry, url, part, target, progress);
            verify(entry, part, sha256);
            if (entry.expectedSha256().isEmpty()) {
                // No public source confirmed this file's hash: keep the one we saw, for later checks.
                Files.writeString(store.sha256FileFor(entry), sha256 + "  " + entry.fileName() + "\n", StandardCharsets.UTF_8);
            }
            Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            done = true;
            return target;
        } catch (ModelDownloadException e) {
            // Another process's (possibly still empty) .part is not ours to clean up.
            done = e.reason() == ModelDownloadException.Reason.BUSY;
            throw e;
        } catch (IOException e) {
            throw new ModelDownloadException(ModelDownloadException.Reason.FAILED,
                    "cannot store " + entry.slug() + " under " + target.getParent() + ": " + e.getMessage(), e);
        } finally {
            if (!done) {
                deleteIfEmpty(part);
            }
        }
    }

    private String fetch(CatalogEntry entry, URI url, Path part, Path target, DownloadProgress progress) {
        try {
            return fetcher.fetch(url, part, config.hfToken(), entry.size().orElse(-1), entry.fileName(), progress);
        } catch (HttpStatusException e) {
            throw switch (e.status()) {
                case 401, 403 -> new ModelDownloadException(ModelDownloadException.Reason.GATED, gated(entry, e.status()), e);
                case 404 -> new ModelDownloadException(ModelDownloadException.Reason.NOT_FOUND, notFound(entry, url), e);
                default -> failed(entry, url, part, e);
            };
        } catch (IntegrityException e) {
            delete(part);
            throw corrupt(entry, url, e.getMessage(), e);
        } catch (PartFileLockedException e) {
            throw new ModelDownloadException(ModelDownloadException.Reason.BUSY, e.getMessage() + "; wait for it to finish", e);
        } catch (IOException e) {
            if (ResumableDownload.isUnreachable(e)) {
                throw new ModelDownloadException(ModelDownloadException.Reason.NO_NETWORK, noNetwork(entry, target, e), e);
            }
            throw failed(entry, url, part, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ModelDownloadException(ModelDownloadException.Reason.FAILED, "the download of " + entry.slug()
                    + " was interrupted; " + part + " is kept and the next pull resumes it", e);
        }
    }

    private void verify(CatalogEntry entry, Path part, String sha256) throws IOException {
        long size = Files.size(part);
        if (entry.size().isPresent() && size != entry.size().getAsLong()) {
            delete(part);
            throw corrupt(entry, HubUrls.resolve(config.endpoint(), entry),
                    "it has " + size + " bytes, the catalog says " + entry.size().getAsLong(), null);
        }
        if (entry.expectedSha256().isPresent() && !entry.expectedSha256().get().equals(sha256)) {
            delete(part);
            throw corrupt(entry, HubUrls.resolve(config.endpoint(), entry),
                    "its SHA-256 is " + sha256 + ", the catalog says " + entry.expectedSha256().get(), null);
        }
    }

    private String gated(CatalogEntry entry, int status) {
        String page = HubUrls.repoPage(config.endpoint(), entry);
        String how = config.hfToken().isPresent()
                ? "The token in HF_TOKEN was sent but does not give access: accept the model's terms at " + page
                  + " with the account that owns the token, or use a token with read access."
                : "Accept the model's terms at " + page + ", create a read token at https://huggingface.co/settings/tokens"
                  + " and run again with it in the environment: HF_TOKEN=<token> ./inferd pull " + entry.slug();
        return "the repository " + entry.hfRepo() + " refused the download of " + entry.file() + " (HTTP " + status
                + "): it is gated or private. " + how;
    }

    private String notFound(CatalogEntry entry, URI url) {
        return "not found (HTTP 404): file '" + entry.file() + "' at revision '" + entry.revision() + "' of repository '"
                + entry.hfRepo() + "' (" + url + "). The catalog entry '" + entry.slug()
                + "' names a repository, revision or file that " + config.endpoint() + " does not have.";
    }

    private String noNetwork(CatalogEntry entry, Path target, IOException e) {
        return "cannot reach " + config.endpoint() + " to download '" + entry.slug() + "' (" + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "). The file " + entry.file() + " is missing; it goes to "
                + target + ". To run offline, put the file there (or run `./inferd pull " + entry.slug()
                + "` where there is a network) and pass --offline, or pass --model path/to/file.gguf."
                + " A mirror can be set with INFERD_HF_ENDPOINT.";
    }

    private ModelDownloadException failed(CatalogEntry entry, URI url, Path part, IOException e) {
        String kept = Files.exists(part) ? " The partial file " + part + " is kept; run the command again to resume." : "";
        return new ModelDownloadException(ModelDownloadException.Reason.FAILED,
                "the download of '" + entry.slug() + "' from " + url + " failed: " + e.getMessage() + "." + kept, e);
    }

    private ModelDownloadException corrupt(CatalogEntry entry, URI url, String what, Throwable cause) {
        return new ModelDownloadException(ModelDownloadException.Reason.CORRUPT,
                "the download of '" + entry.slug() + "' from " + url + " is not the catalog's file: " + what
                        + ". Nothing was kept. Check the catalog entry, or the mirror set in INFERD_HF_ENDPOINT.", cause);
    }

    private static void delete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the bad download " + p, e);
        }
    }

    private static void deleteIfEmpty(Path p) {
        try {
            if (Files.exists(p) && Files.size(p) == 0) {
                Files.delete(p);
            }
        } catch (IOException ignored) {
            // best effort: an empty .part is harmless, the next run reuses it
        }
    }
}
