package dev.inferd.server.http;

import dev.inferd.server.metrics.ServerMetrics;
import dev.inferd.server.openai.ApiError;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * Admits requests to models: the model must be registered and loaded (or loadable from the registry's pool), and have one of its
 * {@link ServerOptions#maxInFlightPerModel()} slots free. A full model is a 429 straight away,
 * without waiting, so the number of live requests (and their threads) stays bounded.
 */
final class ModelGate {

    private final ModelRegistry models;
    private final ServerMetrics metrics;
    private final int maxInFlight;
    private final int retryAfterSeconds;
    private final Map<String, Semaphore> slots = new ConcurrentHashMap<>();

    ModelGate(ModelRegistry models, ServerMetrics metrics, ServerOptions options) {
        this.models = models;
        this.metrics = metrics;
        this.maxInFlight = options.maxInFlightPerModel();
        this.retryAfterSeconds = options.capacityRetryAfterSeconds();
    }

    /** A slot on {@code model}; the caller closes it when its response is done. */
    ModelLease admit(String model, RequestHook hook) throws InterruptedException {
        hook.model(model);
        ModelRegistry.Use use = models.use(model);
        Semaphore free = slots.computeIfAbsent(model, this::newSlots);
        if (!free.tryAcquire()) {
            use.release().run();
            throw ApiError.busy("The model `" + model + "` is serving its limit of " + maxInFlight
                    + " concurrent requests. Please retry shortly.", retryAfterSeconds);
        }
        return new ModelLease(use.generator(), metrics.model(model), hook, () -> {
            free.release();
            use.release().run();
        });
    }

    private Semaphore newSlots(String model) {
        Semaphore semaphore = new Semaphore(maxInFlight);
        metrics.modelInFlight(model, () -> maxInFlight - semaphore.availablePermits());
        return semaphore;
    }
}
