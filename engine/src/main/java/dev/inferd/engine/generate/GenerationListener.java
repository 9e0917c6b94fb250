package dev.inferd.engine.generate;

import java.util.List;

/**
 * Receives a generation as it happens. Calls for one request come from one thread, in order: with
 * the {@link LocalTextGenerator} that is the scheduler thread, which runs every request's step, so
 * the calls (and {@link #isCancelled()}) must be quick and never block (hand the data to another
 * thread, as the server does with a queue).
 * Text is released only once it can no longer turn out to be part of a stop string and once it
 * ends on a whole UTF-8 character, so concatenating every {@code onText} of a choice gives exactly
 * that choice's final text.
 */
public interface GenerationListener {

    /**
     * New text for a choice.
     *
     * @param text never null, may be empty when only log-probabilities are delivered
     * @param logprobs the tokens this text came from, when log-probabilities were asked for; else empty
     */
    void onText(int choice, String text, List<TokenLogprob> logprobs);

    /** A choice has ended; no more {@code onText} for it follows. */
    void onFinish(int choice, FinishReason reason);

    /** Polled between steps: true stops the generation (the client went away). */
    default boolean isCancelled() {
        return false;
    }
}
