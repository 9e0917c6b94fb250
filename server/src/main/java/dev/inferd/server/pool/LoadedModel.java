package dev.inferd.server.pool;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.metrics.EngineStats;
import dev.inferd.speech.whisper.WhisperModel;

/** A model the pool has loaded, with the memory it holds (weights, their copies, its KV cache). */
public sealed interface LoadedModel extends AutoCloseable {

    long bytes();

    @Override
    void close();

    /**
     * A chat or base model.
     *
     * @param stats the engine's live figures for {@code /metrics}, or null
     */
    record Text(TextGenerator generator, EngineStats stats, long bytes) implements LoadedModel {
        @Override
        public void close() {
            generator.close();
        }
    }

    /** A speech-to-text model. */
    record Speech(WhisperModel model, long bytes) implements LoadedModel {
        @Override
        public void close() {
            model.close();
        }
    }
}
