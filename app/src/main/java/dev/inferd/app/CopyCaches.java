package dev.inferd.app;

import dev.inferd.app.models.ModelsConfig;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.tensor.copies.CopyCacheFile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The commands' side of {@link CopyCacheFile}: where the copies of weights for generated tokens are
 * cached ({@code $INFERD_HOME/copies}), and what follows a load: saving what it built, so that the next
 * start of the same model maps them instead of building them again, or moving what it mapped into
 * memory ({@link CopyCacheFile#moveIntoMemory}), and moving the weights read in place from the model
 * file into memory ({@link GGUFFile#moveIntoMemory}).
 */
final class CopyCaches {
    private CopyCaches() {
    }

    /** The cache directory from the environment. */
    static Path directory() {
        return ModelsConfig.fromEnvironment(System::getenv).copiesDir();
    }

    /** How a load came by its copies, for its start-up line: empty where it has no cache or nothing to copy. */
    static String describe(CopyCacheFile cache) {
        if (cache == null || cache.copyBytes() == 0) return "";
        return cache.reused() ? String.format(Locale.ROOT, " (%d MB of copies for generated tokens mapped from %s)",
                cache.copyBytes() >> 20, cache.file())
                : String.format(Locale.ROOT, " (%d MB of copies for generated tokens built)", cache.copyBytes() >> 20);
    }

    /** {@link #settle} on a thread of its own, off the path of requests (a daemon: an exit mid-write leaves no file). */
    static void settleInBackground(CopyCacheFile cache, GGUFFile gguf, String model, PrintStream out) {
        Thread.ofPlatform().name("inferd-copy-cache").daemon(true).start(() -> settle(cache, gguf, model, out));
    }

    /**
     * What follows a load: saves the copies it built ({@code cache} may be null), or moves those it mapped
     * from the cache into memory, then moves the weights read in place from the model file into memory
     * too ({@link GGUFFile#moveIntoMemory}), saying what it did.
     */
    static void settle(CopyCacheFile cache, GGUFFile gguf, String model, PrintStream out) {
        if (cache != null && cache.needsSaving()) {
            save(cache, model, out);
        } else if (cache != null && cache.reused()) {
            long started = System.nanoTime();
            if (cache.moveIntoMemory()) {
                out.printf(Locale.ROOT, "inferd: model %s: copies for generated tokens moved into memory in %d ms%n",
                        model, (System.nanoTime() - started) / 1_000_000);
            }
        }
        long started = System.nanoTime();
        long moved = gguf.moveIntoMemory();
        if (moved >= 64 << 20) { // norms and the like are not worth a line
            out.printf(Locale.ROOT, "inferd: model %s: %d MB of weights read in place moved into memory in %d ms%n",
                    model, moved >> 20, (System.nanoTime() - started) / 1_000_000);
        }
    }

    /** Saves what the load built, saying where, or why not (the server goes on either way). */
    private static void save(CopyCacheFile cache, String model, PrintStream out) {
        long started = System.nanoTime();
        try {
            if (cache.save()) {
                out.printf(Locale.ROOT, "inferd: model %s: copies for generated tokens saved to %s in %d ms; later starts map them%n",
                        model, cache.file(), (System.nanoTime() - started) / 1_000_000);
            }
        } catch (IOException | RuntimeException e) {
            out.printf(Locale.ROOT, "inferd: model %s: cannot cache its copies for generated tokens in %s (%s); every start builds them%n",
                    model, cache.file().getParent(), e.getMessage());
        }
    }
}
