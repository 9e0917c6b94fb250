package dev.inferd.server.http;

import dev.inferd.engine.generate.Generation;
import dev.inferd.engine.generate.GenerationEvent;
import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.server.metrics.ModelMeters;

import java.util.concurrent.TimeUnit;

/**
 * A submitted {@link Generation} as its request's thread reads it: the time to the first text goes to
 * the model's meters, and an engine failure becomes a {@link GenerationFailedException}.
 */
final class MeteredGeneration {

    private final Generation generation;
    private final ModelMeters meters;
    private final RequestHook hook;
    private final long startNanos;
    private boolean sawText;
    private boolean countsReported;

    MeteredGeneration(Generation generation, ModelMeters meters, RequestHook hook, long startNanos) {
        this.generation = generation;
        this.meters = meters;
        this.hook = hook;
        this.startNanos = startNanos;
    }

    Generation generation() {
        return generation;
    }

    /** The next event, waiting as long as it takes. */
    GenerationEvent next() throws InterruptedException {
        try {
            return seen(generation.next());
        } catch (RuntimeException e) {
            throw new GenerationFailedException(e);
        }
    }

    /** The next event, or null when none came within the timeout. */
    GenerationEvent next(long timeout, TimeUnit unit) throws InterruptedException {
        try {
            return seen(generation.next(timeout, unit));
        } catch (RuntimeException e) {
            throw new GenerationFailedException(e);
        }
    }

    /** Stops the engine and waits until it let go of the request. */
    void cancelAndAwait() {
        if (!countsReported) hook.cancelled();
        generation.cancelAndAwait();
        var result = generation.result();
        // a generation that failed has no counts to report (and getNow would throw its failure)
        if (result.isDone() && !result.isCompletedExceptionally()) reportCounts(result.join());
    }

    /** The counts reach the hook on the request's thread, before its response is finished and recorded. */
    private void reportCounts(GenerationResult result) {
        if (countsReported) return;
        countsReported = true;
        hook.tokens(result.promptTokens(), result.completionTokens(), result.cachedPromptTokens());
    }

    private GenerationEvent seen(GenerationEvent event) {
        if (!sawText && event instanceof GenerationEvent.Text t && !t.text().isEmpty()) {
            sawText = true;
            meters.firstToken(System.nanoTime() - startNanos);
        }
        if (event instanceof GenerationEvent.End end) reportCounts(end.result());
        return event;
    }
}
