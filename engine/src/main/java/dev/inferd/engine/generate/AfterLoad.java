package dev.inferd.engine.generate;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.tensor.copies.CopyCacheFile;

import java.io.IOException;

/**
 * The work that follows a model's load: saves the copies of weights it built into the copy cache, so
 * that the next load maps them, or moves those it mapped from the cache into memory; then moves the
 * weights read in place from the model file into memory ({@link GGUFFile#moveIntoMemory}). Each step
 * is reported as a {@link ModelEvent}.
 */
public final class AfterLoad {
    /** Weights moved into memory below this (norms and the like) are not worth an event. */
    private static final long REPORTED_BYTES = 64 << 20;

    private AfterLoad() {
    }

    /** Runs the work on a thread of its own (a daemon: an exit mid-write leaves no file behind). */
    static Thread inBackground(CopyCacheFile cache, GGUFFile gguf, String model, ModelEvent.Listener listener) {
        return Thread.ofPlatform().name("inferd-after-load").daemon(true)
                .start(() -> run(cache, gguf, model, listener));
    }

    /** Runs the work on the caller's thread. {@code cache} is null where the copies are not cached. */
    public static void run(CopyCacheFile cache, GGUFFile gguf, String model, ModelEvent.Listener listener) {
        if (cache != null && cache.needsSaving()) {
            long started = System.nanoTime();
            try {
                if (cache.save()) listener.on(new ModelEvent.CopiesSaved(model, cache.file(), millisSince(started)));
            } catch (IOException | RuntimeException e) {
                listener.on(new ModelEvent.CopiesNotSaved(model, cache.file().getParent(), String.valueOf(e.getMessage())));
            }
        } else if (cache != null && cache.reused()) {
            long started = System.nanoTime();
            if (cache.moveIntoMemory()) listener.on(new ModelEvent.CopiesMovedIntoMemory(model, millisSince(started)));
        }
        long started = System.nanoTime();
        long moved = gguf.moveIntoMemory();
        if (moved >= REPORTED_BYTES) listener.on(new ModelEvent.WeightsMovedIntoMemory(model, moved, millisSince(started)));
    }

    private static long millisSince(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }
}
