package dev.inferd.server.http;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.metrics.EngineStats;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelObject;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * The models this server answers for, in the order they were registered (the order of
 * {@code GET /v1/models}). A model may be registered while it still loads, so the server can listen
 * at once: requests for it get a 503 with {@code Retry-After} until {@link #ready} is called.
 *
 * <pre>{@code
 * ModelRegistry models = new ModelRegistry();
 * models.loading("llama-3.2-1b");
 * InferdServer server = InferdServer.start("127.0.0.1", 8000, models, ServerOptions.defaults());
 * models.ready("llama-3.2-1b", generator, stats);   // or models.failed("llama-3.2-1b", "file is truncated")
 * }</pre>
 *
 * Thread-safe: the CLI's loading thread changes it while request threads read it.
 */
public final class ModelRegistry {

    /** Where one registered model stands. */
    sealed interface State permits Loading, Ready, Failed {
    }

    record Loading() implements State {
    }

    record Ready(TextGenerator generator, EngineStats stats) implements State {
    }

    record Failed(String reason) implements State {
    }

    private final SequencedMap<String, State> models = new LinkedHashMap<>();
    private volatile int loadingRetryAfterSeconds = ServerOptions.DEFAULT_LOADING_RETRY_AFTER_SECONDS;

    /** An empty registry; register models with {@link #loading}, {@link #ready} or {@link #failed}. */
    public ModelRegistry() {
    }

    /** Models that are all loaded already, in listing order. */
    public ModelRegistry(Map<String, TextGenerator> models) {
        if (models.isEmpty()) throw new IllegalArgumentException("at least one model is needed");
        models.forEach(this::ready);
    }

    /** Registers a model that is still loading. */
    public synchronized void loading(String id) {
        State before = models.get(id);
        if (before instanceof Ready) throw new IllegalStateException("model " + id + " is loaded already");
        models.put(id, new Loading());
    }

    /** Registers a loaded model, or marks a loading one as ready. */
    public void ready(String id, TextGenerator generator) {
        ready(id, generator, null);
    }

    /**
     * Registers a loaded model, or marks a loading one as ready.
     *
     * @param stats the engine's live figures for {@code /metrics}, or null when it has none
     */
    public synchronized void ready(String id, TextGenerator generator, EngineStats stats) {
        if (generator == null) throw new IllegalArgumentException("generator is null for model " + id);
        if (models.get(id) instanceof Ready) throw new IllegalStateException("model " + id + " is loaded already");
        models.put(id, new Ready(generator, stats));
    }

    /** Marks a model whose loading failed: requests for it get a 503 that says why, and no retry. */
    public synchronized void failed(String id, String reason) {
        if (models.get(id) instanceof Ready) throw new IllegalStateException("model " + id + " is loaded already");
        models.put(id, new Failed(reason));
    }

    /** The generator serving {@code id}; a 404 {@code model_not_found}, or a 503 while it loads or if it failed. */
    public TextGenerator get(String id) {
        return switch (state(id)) {
            case Ready r -> r.generator();
            case Loading l -> throw ApiError.modelLoading(id, loadingRetryAfterSeconds);
            case Failed f -> throw ApiError.modelFailed(id, f.reason());
            case null -> throw ApiError.modelNotFound(id);
        };
    }

    public ModelObject describe(String id) {
        return ModelObject.of(id, get(id).description());
    }

    /** The loaded models; one still loading is not listed yet. */
    public List<ModelObject> list() {
        return readySnapshot().entrySet().stream()
                .map(e -> ModelObject.of(e.getKey(), e.getValue().generator().description()))
                .toList();
    }

    /** The engine stats of every loaded model that has them. */
    public Map<String, EngineStats> engineStats() {
        Map<String, EngineStats> stats = new LinkedHashMap<>();
        readySnapshot().forEach((id, r) -> {
            if (r.stats() != null) stats.put(id, r.stats());
        });
        return stats;
    }

    /** True when nothing is registered, loading or not. */
    public synchronized boolean isEmpty() {
        return models.isEmpty();
    }

    void loadingRetryAfterSeconds(int seconds) {
        this.loadingRetryAfterSeconds = seconds;
    }

    private synchronized State state(String id) {
        return models.get(id);
    }

    private synchronized SequencedMap<String, Ready> readySnapshot() {
        SequencedMap<String, Ready> ready = new LinkedHashMap<>();
        models.forEach((id, state) -> {
            if (state instanceof Ready r) ready.put(id, r);
        });
        return ready;
    }
}
