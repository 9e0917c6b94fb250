package dev.inferd.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The server's meters, one Prometheus registry per server (never Micrometer's global one, so two
 * servers in one JVM, as in tests, count separately). Rendered by {@code GET /metrics}.
 */
public final class ServerMetrics {

    /** The content type of the Prometheus text exposition format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    static final Duration[] LATENCY_BUCKETS = {
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
            Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60),
            Duration.ofSeconds(120)};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicInteger httpInFlight = new AtomicInteger();
    private final Map<String, ModelMeters> models = new ConcurrentHashMap<>();
    private final Set<String> engineStatsBound = ConcurrentHashMap.newKeySet();

    public ServerMetrics() {
        Gauge.builder("inferd.http.requests.in.flight", httpInFlight, AtomicInteger::get)
                .description("HTTP requests being handled now, streams included")
                .register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /** For callers that add their own meters (the cloud gateway's, say). */
    public MeterRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        return registry.scrape();
    }

    public void requestStarted() {
        httpInFlight.incrementAndGet();
    }

    /**
     * One finished HTTP request.
     *
     * @param route the route's template ({@code /v1/models/{id}}), never the raw path, to keep the
     *              number of series bounded
     * @param status the HTTP status, or 499 for a client that left before its response
     */
    public void requestFinished(String route, String method, int status, long nanos) {
        httpInFlight.decrementAndGet();
        Timer.builder("inferd.http.requests")
                .description("HTTP requests by route, method and status; streams last until their final event")
                .tags("route", route, "method", method, "status", Integer.toString(status))
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A request turned away with a 429 or 503 ({@code reason}: rate_limit_exceeded, model_loading, ...). */
    public void rejected(int status, String reason) {
        Counter.builder("inferd.requests.rejected")
                .description("Requests turned away because the server or a model was busy or not ready")
                .tags("status", Integer.toString(status), "reason", reason == null ? "unknown" : reason)
                .register(registry)
                .increment();
    }

    /** The meters of one model, created on first use. */
    public ModelMeters model(String id) {
        return models.computeIfAbsent(id, m -> new ModelMeters(registry, m));
    }

    /** Publishes how many requests a model is serving now; {@code inFlight} is read at each scrape. */
    public void modelInFlight(String id, IntSupplier inFlight) {
        Gauge.builder("inferd.model.requests.in.flight", inFlight, IntSupplier::getAsInt)
                .description("Requests admitted for the model and not finished, queued ones included")
                .tag("model", id)
                .strongReference(true)
                .register(registry);
    }

    /**
     * Publishes the engine gauges of each model that has stats and is not published yet. Called
     * before each scrape, so a model that finishes loading later still shows up.
     */
    public void bindEngineStats(Map<String, EngineStats> statsByModel) {
        statsByModel.forEach((id, stats) -> {
            if (!engineStatsBound.add(id)) return;
            engineGauge(id, stats, "inferd.engine.queued.requests", "Requests waiting for a batch slot",
                    s -> s.queuedRequests());
            engineGauge(id, stats, "inferd.engine.active.sequences", "Sequences in the running batch",
                    s -> s.activeSequences());
            engineGauge(id, stats, "inferd.engine.kv.blocks.used", "KV-cache blocks held by live sequences",
                    s -> s.kvBlocksUsed());
            engineGauge(id, stats, "inferd.engine.kv.blocks.capacity", "KV-cache blocks in the pool",
                    s -> s.kvBlocksTotal());
            engineGauge(id, stats, "inferd.engine.kv.blocks.cached", "KV-cache blocks kept for prefix reuse",
                    s -> s.kvBlocksCached());
            // The names the Kubernetes Gateway API Inference Extension's model-server protocol lists (vLLM's), so that
            // its endpoint picker, or any router that reads vLLM, can balance over inferd servers as they are.
            routerGauge(id, stats, "vllm:num_requests_waiting", "Requests waiting for a batch slot (model-server protocol)",
                    s -> s.queuedRequests());
            routerGauge(id, stats, "vllm:num_requests_running", "Requests being decoded (model-server protocol)",
                    s -> s.activeSequences());
            routerGauge(id, stats, "vllm:kv_cache_usage_perc", "KV-cache use, 0 to 1 (model-server protocol)",
                    s -> s.kvBlocksTotal() == 0 ? 0 : (double) s.kvBlocksUsed() / s.kvBlocksTotal());
        });
    }

    private void routerGauge(String model, EngineStats stats, String name, String description,
                             ToDoubleFunction<EngineStats.Snapshot> field) {
        Gauge.builder(name, stats, s -> field.applyAsDouble(s.snapshot()))
                .description(description)
                .tag("model_name", model)
                .strongReference(true)
                .register(registry);
    }

    private void engineGauge(String model, EngineStats stats, String name, String description,
                             ToDoubleFunction<EngineStats.Snapshot> field) {
        Gauge.builder(name, stats, s -> field.applyAsDouble(s.snapshot()))
                .description(description)
                .tag("model", model)
                .strongReference(true)
                .register(registry);
    }
}
