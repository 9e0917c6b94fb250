package dev.inferd.server.http;

import dev.inferd.engine.generate.BusyException;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.metrics.ModelMeters;
import dev.inferd.server.openai.ApiError;

import java.util.concurrent.atomic.AtomicBoolean;

/** One request's hold on a model: its generator, its meters and one in-flight slot, given back on close. */
final class ModelLease implements AutoCloseable {

    private final TextGenerator generator;
    private final ModelMeters meters;
    private final RequestHook hook;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();

    ModelLease(TextGenerator generator, ModelMeters meters, RequestHook hook, Runnable release) {
        this.generator = generator;
        this.meters = meters;
        this.hook = hook;
        this.release = release;
    }

    TextGenerator generator() {
        return generator;
    }

    /**
     * Submits a generation; its counts go to the model's meters when it ends. An engine whose queue is
     * full is a 429 the client may retry; a request the engine can never run (more KV memory than it
     * has, a logit bias outside the vocabulary) is the client's: a 400.
     */
    MeteredGeneration submit(GenerationRequest request) {
        long started = System.nanoTime();
        try {
            var generation = generator.submit(request);
            generation.result().thenAccept(result -> meters.finished(result, System.nanoTime() - started));
            return new MeteredGeneration(generation, meters, hook, started);
        } catch (BusyException busy) {
            throw ApiError.busy("The engine is busy: " + busy.getMessage() + ". Please retry shortly.",
                    busy.retryAfterSeconds());
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(null, "Invalid request: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) release.run();
    }
}
