package dev.inferd.server.http;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelObject;
import dev.inferd.server.pool.LoadedModel;
import dev.inferd.server.pool.ModelPool;
import dev.inferd.speech.whisper.WhisperModel;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The speech-to-text models this server answers for, beside the chat models of {@link ModelRegistry}.
 * Each runs one transcription at a time (it takes the whole worker pool); others wait their turn up
 * to {@link #WAIT_SECONDS}, then get a 429 with {@code Retry-After}. With a {@link ModelPool}
 * ({@link #onDemand}), the speech models of its catalog are loaded on demand as the chat models are.
 */
public final class SpeechModels {
    static final int WAIT_SECONDS = 30;

    private record Entry(WhisperModel model, Semaphore turn, long created) {
    }

    private final Map<String, Entry> models = new LinkedHashMap<>();
    private final Map<String, Semaphore> pooledTurns = new ConcurrentHashMap<>();
    private volatile ModelPool pool;

    public synchronized void ready(String id, WhisperModel model) {
        models.put(id, new Entry(model, new Semaphore(1, true), Instant.now().getEpochSecond()));
    }

    /** Serves the speech models of {@code pool}'s catalog too, loaded when a request needs one. */
    public void onDemand(ModelPool pool) {
        this.pool = pool;
    }

    synchronized Optional<WhisperModel> get(String id) {
        return Optional.ofNullable(models.get(id)).map(Entry::model);
    }

    /** Whether {@code id} is a speech model this server answers for, loaded or not. */
    boolean serves(String id) {
        if (get(id).isPresent()) return true;
        ModelPool onDemand = pool;
        return onDemand != null && onDemand.source().find(id).isPresent() && onDemand.source().isSpeech(id);
    }

    synchronized List<ModelObject> list() {
        return models.entrySet().stream().map(e -> new ModelObject(e.getKey(), "model", e.getValue().created(), "inferd")).toList();
    }

    synchronized boolean isEmpty() {
        return models.isEmpty();
    }

    /** Runs {@code work} on model {@code id} when its turn comes (after its load, for a pooled model). */
    <T> T withTurn(String id, Function<WhisperModel, T> work) throws InterruptedException {
        Entry e;
        synchronized (this) {
            e = models.get(id);
        }
        if (e != null) return inTurn(id, e.turn(), () -> work.apply(e.model()));
        ModelPool onDemand = pool;
        if (onDemand == null) throw ApiError.modelNotFound(id);
        try (ModelPool.Use use = onDemand.use(id)) {
            if (!(use.model() instanceof LoadedModel.Speech speech)) {
                throw ApiError.invalid("model", "The model `" + id + "` is a chat model, not a speech-to-text model.");
            }
            Semaphore turn = pooledTurns.computeIfAbsent(id, k -> new Semaphore(1, true));
            return inTurn(id, turn, () -> work.apply(speech.model()));
        }
    }

    private static <T> T inTurn(String id, Semaphore turn, java.util.function.Supplier<T> work) throws InterruptedException {
        if (!turn.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw ApiError.busy("The speech model " + id + " is busy with other transcriptions. Please retry shortly.", 5);
        }
        try {
            return work.get();
        } finally {
            turn.release();
        }
    }
}
