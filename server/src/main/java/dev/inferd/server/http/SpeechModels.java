package dev.inferd.server.http;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelObject;
import dev.inferd.speech.whisper.WhisperModel;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The speech-to-text models this server answers for, beside the chat models of {@link ModelRegistry}.
 * Each runs one transcription at a time (it takes the whole worker pool); others wait their turn up
 * to {@link #WAIT_SECONDS}, then get a 429 with {@code Retry-After}.
 */
public final class SpeechModels {
    static final int WAIT_SECONDS = 30;

    private record Entry(WhisperModel model, Semaphore turn, long created) {
    }

    private final Map<String, Entry> models = new LinkedHashMap<>();

    public synchronized void ready(String id, WhisperModel model) {
        models.put(id, new Entry(model, new Semaphore(1, true), Instant.now().getEpochSecond()));
    }

    synchronized Optional<WhisperModel> get(String id) {
        return Optional.ofNullable(models.get(id)).map(Entry::model);
    }

    synchronized List<ModelObject> list() {
        return models.entrySet().stream().map(e -> new ModelObject(e.getKey(), "model", e.getValue().created(), "inferd")).toList();
    }

    synchronized boolean isEmpty() {
        return models.isEmpty();
    }

    /** Runs {@code work} on model {@code id} when its turn comes. */
    <T> T withTurn(String id, java.util.function.Supplier<T> work) throws InterruptedException {
        Entry e;
        synchronized (this) {
            e = models.get(id);
        }
        if (e == null) throw ApiError.modelNotFound(id);
        if (!e.turn().tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw ApiError.busy("The speech model " + id + " is busy with other transcriptions. Please retry shortly.", 5);
        }
        try {
            return work.get();
        } finally {
            e.turn().release();
        }
    }
}
