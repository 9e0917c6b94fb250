package dev.inferd.server.http;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.metrics.EngineStats;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelObject;
import dev.inferd.server.pool.LoadedModel;
import dev.inferd.server.pool.ModelPool;

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
 * With a {@link ModelPool} ({@link #onDemand}), the registry lists the pool's catalog instead, and a request
 * for a listed model that is not registered loads it through the pool.
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

    /** A request's hold on a text model; {@code release} is run once when the request is done. */
    record Use(TextGenerator generator, Runnable release) {
    }

    private static final Runnable NOTHING = () -> { };

    private final SequencedMap<String, State> models = new LinkedHashMap<>();
    private volatile ModelPool pool;
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

    /**
     * Serves the catalog of {@code pool} besides the registered models: it is what {@link #list} shows, and a
     * request for a listed model that is not registered loads it through the pool.
     */
    public void onDemand(ModelPool pool) {
        this.pool = pool;
    }

    /**
     * The generator serving {@code id} for one request, loaded first when it comes from the pool; the same
     * errors as {@link #get}, and those of {@link ModelPool#use}.
     */
    Use use(String id) throws InterruptedException {
        ModelPool onDemand = pool;
        if (onDemand == null || state(id) != null) return new Use(get(id), NOTHING);
        if (onDemand.source().find(id).isPresent() && onDemand.source().isSpeech(id)) throw notText(id);
        ModelPool.Use use = onDemand.use(id);
        if (!(use.model() instanceof LoadedModel.Text text)) {
            use.close();
            throw notText(id);
        }
        return new Use(text.generator(), use::close);
    }

    private static ApiError notText(String id) {
        return ApiError.invalid("model", "The model `" + id + "` is a speech-to-text model: use it with "
                + "/v1/audio/transcriptions or /v1/audio/translations.");
    }

    public ModelObject describe(String id) {
        ModelPool onDemand = pool;
        if (onDemand != null && state(id) == null) {
            return onDemand.source().find(id).orElseThrow(() -> ApiError.modelNotFound(id));
        }
        return ModelObject.of(id, get(id).description());
    }

    /** The loaded models, one still loading not listed yet; with a pool, its whole catalog. */
    public List<ModelObject> list() {
        ModelPool onDemand = pool;
        if (onDemand != null) return onDemand.source().list();
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
        ModelPool onDemand = pool;
        if (onDemand != null) onDemand.engineStats().forEach(stats::putIfAbsent);
        return stats;
    }

    /** Why the registered models cannot all be served yet (one still loading, or failed), or null. */
    public synchronized String notReady() {
        for (var e : models.entrySet()) {
            if (e.getValue() instanceof Loading) return "model " + e.getKey() + " is loading";
            if (e.getValue() instanceof Failed f) return "model " + e.getKey() + " failed to load: " + f.reason();
        }
        return null;
    }

    /** True when nothing is registered, loading or not, and no pool serves a catalog. */
    public synchronized boolean isEmpty() {
        return models.isEmpty() && pool == null;
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
