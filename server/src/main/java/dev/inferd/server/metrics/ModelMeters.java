package dev.inferd.server.metrics;

import dev.inferd.engine.generate.GenerationResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.TimeUnit;

/** What one model's generations add up to: tokens in and out, time to first token, generation time. */
public final class ModelMeters {

    private final Counter promptTokens;
    private final Counter cachedPromptTokens;
    private final Counter completionTokens;
    private final Timer timeToFirstToken;
    private final Timer generation;

    ModelMeters(MeterRegistry registry, String model) {
        promptTokens = Counter.builder("inferd.prompt.tokens")
                .description("Prompt tokens of finished generations").tag("model", model).register(registry);
        cachedPromptTokens = Counter.builder("inferd.prompt.cached.tokens")
                .description("Prompt tokens whose KV entries were reused from an earlier request")
                .tag("model", model).register(registry);
        completionTokens = Counter.builder("inferd.completion.tokens")
                .description("Generated tokens, all choices, cancelled generations included")
                .tag("model", model).register(registry);
        timeToFirstToken = Timer.builder("inferd.time.to.first.token")
                .description("From the start of a generation (prompt tokenized) to its first text")
                .tag("model", model).serviceLevelObjectives(ServerMetrics.LATENCY_BUCKETS).register(registry);
        generation = Timer.builder("inferd.generation")
                .description("Whole generations, from start to the engine's return")
                .tag("model", model).serviceLevelObjectives(ServerMetrics.LATENCY_BUCKETS).register(registry);
    }

    public void firstToken(long nanosSinceStart) {
        timeToFirstToken.record(nanosSinceStart, TimeUnit.NANOSECONDS);
    }

    /** A generation returned normally (also when it stopped because its client left). */
    public void finished(GenerationResult result, long nanos) {
        promptTokens.increment(result.promptTokens());
        cachedPromptTokens.increment(result.cachedPromptTokens());
        completionTokens.increment(result.completionTokens());
        generation.record(nanos, TimeUnit.NANOSECONDS);
    }
}
