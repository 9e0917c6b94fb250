package dev.inferd.server.http;

import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.metrics.ModelMeters;

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

    GenerationRun start(GenerationRequest request) {
        return GenerationRun.start(generator, request, meters, hook);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) release.run();
    }
}
