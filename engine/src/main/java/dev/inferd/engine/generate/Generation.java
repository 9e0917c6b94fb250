package dev.inferd.engine.generate;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One submitted request ({@link TextGenerator#submit}): its events as the engine produces them, a way
 * to stop it, and its final counts.
 *
 * <p>The engine's thread fills it ({@link #text}, {@link #finish}, then {@link #end} or {@link #fail});
 * those calls only queue and never block, so a slow reader never stalls the engine. The reader takes
 * the events on its own thread with {@link #next}. {@link #cancel} may come from any thread; the
 * engine stops the generation at its next step and ends it with an {@link GenerationEvent.End} that
 * counts what was done.
 */
public final class Generation {

    /** Queued instead of an event when the engine broke: {@link #next} throws it. */
    private record Failure(Throwable error) {
    }

    private final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private final CompletableFuture<GenerationResult> result = new CompletableFuture<>();
    private volatile boolean cancelled;

    // ---- the reader's side ----

    /**
     * The next event, waiting as long as it takes; {@link GenerationEvent.End} is the last.
     *
     * @throws RuntimeException what broke the generation in the engine
     */
    public GenerationEvent next() throws InterruptedException {
        return unwrap(events.take());
    }

    /** The next event, or null when none came within the timeout. */
    public GenerationEvent next(long timeout, TimeUnit unit) throws InterruptedException {
        Object e = events.poll(timeout, unit);
        return e == null ? null : unwrap(e);
    }

    /** Asks the engine to stop; it does at its next step. Idempotent. */
    public void cancel() {
        cancelled = true;
    }

    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * The token counts, complete once the engine is done with the request (after its last event is
     * queued), or failed with what broke it. A cancelled generation completes normally with what was done.
     */
    public CompletableFuture<GenerationResult> result() {
        return result;
    }

    /** Cancels and waits until the engine let go of the request (its memory is free again). */
    public void cancelAndAwait() {
        cancel();
        boolean interrupted = false;
        while (true) {
            try {
                result.handle((r, t) -> null).get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (java.util.concurrent.ExecutionException cannotHappen) {
                break;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    private static GenerationEvent unwrap(Object e) {
        return switch (e) {
            case GenerationEvent event -> event;
            case Failure(RuntimeException re) -> throw re;
            case Failure(Error error) -> throw error;
            case Failure(Throwable t) -> throw new IllegalStateException(t);
            default -> throw new IllegalStateException("unexpected " + e);
        };
    }

    // ---- the engine's side ----

    /** New text of a choice (see {@link GenerationEvent.Text}). */
    public void text(int choice, String text, java.util.List<TokenLogprob> tokens) {
        events.add(new GenerationEvent.Text(choice, text, tokens));
    }

    public void finish(int choice, FinishReason reason) {
        finish(choice, reason, null);
    }

    /** A choice ended at {@code stopSequence}, one of the request's stop sequences (null for another end). */
    public void finish(int choice, FinishReason reason, String stopSequence) {
        events.add(new GenerationEvent.Finish(choice, reason, stopSequence));
    }

    /** The generation is over: the last event, and the result. */
    public void end(GenerationResult counts) {
        events.add(new GenerationEvent.End(counts));
        result.complete(counts);
    }

    /** The generation broke: {@link #next} throws {@code error}, and the result fails with it. */
    public void fail(Throwable error) {
        events.add(new Failure(error));
        result.completeExceptionally(error);
    }
}
