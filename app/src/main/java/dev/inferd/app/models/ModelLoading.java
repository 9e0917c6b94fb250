package dev.inferd.app.models;

import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.ModelEvent;
import dev.inferd.server.openai.EngineRequests;

import java.io.IOException;
import java.nio.file.Path;

/**
 * How every command loads a text model: {@code serve}, {@code cloud}, {@code worker} and {@code bench-serve
 * --serve-model} open GGUF files through this one factory, so a model behaves the same whichever serves it.
 *
 * @param contextLength 0 for the model's own, capped as the engine caps it
 * @param kvMemory bytes of KV cache per model; 0 for the engine's default
 * @param threads compute threads; 0 for all cores
 * @param parallel sequences decoded together; 0 for the engine's default
 * @param maxQueued requests that may wait in the engine; 0 for the engine's default
 * @param copyCache where the weights' copies for generated tokens are cached; null for none
 */
public record ModelLoading(int contextLength, long kvMemory, int threads, int parallel, int maxQueued, Path copyCache) {

    public ModelLoading {
        if (contextLength < 0 || kvMemory < 0 || threads < 0 || parallel < 0 || maxQueued < 0) {
            throw new IllegalArgumentException("model loading options cannot be negative");
        }
    }

    /**
     * Maps {@code file} and builds what a request needs; the work after the load (warming, copies) goes on in the
     * background.
     *
     * @param ownedBy null to take the owner from the GGUF metadata
     */
    public LocalTextGenerator openText(Path file, String id, String ownedBy, ModelEvent.Listener listener) throws IOException {
        return LocalTextGenerator.open(file, options(id, ownedBy), listener);
    }

    /** The engine's options for a model, for a caller that adds its own (serve's speculative decoding). */
    public LocalTextGenerator.Options options(String id, String ownedBy) {
        return new LocalTextGenerator.Options(id, ownedBy, contextLength)
                .withParallel(parallel).withKvMemory(kvMemory).withMaxQueued(maxQueued)
                .withMaxChoices(EngineRequests.MAX_CHOICES).withThreads(threads)
                .withCopyCache(copyCache).withAfterLoad(true);
    }

    public ModelLoading withKvMemory(long bytes) {
        return new ModelLoading(contextLength, bytes, threads, parallel, maxQueued, copyCache);
    }
}
