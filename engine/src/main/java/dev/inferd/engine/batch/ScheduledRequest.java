package dev.inferd.engine.batch;

/**
 * A request as the {@link Scheduler} sees it: a prompt continued {@link #choices()} ways. What a token
 * means (text, stop strings, limits) is the implementation's business; the scheduler only feeds the
 * tokens it returns. Every method is called on the scheduler thread and must be quick.
 */
public interface ScheduledRequest {

    /** Prompt token ids; not modified. */
    int[] prompt();

    /** How many continuations share the prompt (n). */
    int choices();

    /** Polled once per step: true stops the request and frees its memory. */
    boolean isCancelled();

    /**
     * A choice's next-token logits, {@code logits[offset .. offset + vocabSize)}, valid only during the
     * call. Every choice of a request first gets the same prompt logits.
     *
     * @return the chosen token, to be fed back, or -1 when the choice has ended
     */
    int next(int choice, float[] logits, int offset);

    /**
     * Speculative decoding: chooses draft token {@code index} of a choice from a draft model's logits
     * (over the target's vocabulary), by the choice's own rules, as if draft tokens {@code 0..index-1}
     * had been accepted. Index 0 starts a draft; {@link #endDraft} ends it. Returns -1 when the draft ends
     * here: the draft model gives the token a probability below {@code minProbability}, or the request does
     * not draft (then its choices decode without a draft model).
     */
    default int draft(int choice, int index, float[] logits, int offset, float minProbability) {
        return -1;
    }

    /** Ends the choice's draft: its state is again what its accepted tokens made it. */
    default void endDraft(int choice) {
    }

    /**
     * Like {@link #next}, at the position where draft token {@code index} (chosen by {@link #draft})
     * was proposed: the draft token when the target accepts it, another otherwise, so that the tokens
     * are distributed as {@link #next}'s. Called only after {@link #endDraft}, in order, up to the first
     * token that differs from the draft.
     */
    default int verify(int choice, int index, int draftToken, float[] logits, int offset) {
        return next(choice, logits, offset);
    }

    /** How many more tokens the choice may generate at most (drafting beyond them is wasted). */
    default int tokensLeft(int choice) {
        return Integer.MAX_VALUE;
    }

    /**
     * The choice cannot go on: the KV memory cannot hold it even with every other sequence paused
     * (requests are checked against the pool's size first, so this is a last resort). It ends as if
     * it had reached its length limit.
     */
    void truncate(int choice);

    /**
     * The request is over: every choice ended, it was cancelled, or {@code failure} (not null) broke it.
     *
     * @param cachedPromptTokens prompt tokens whose keys and values came from the prefix cache
     */
    void complete(int cachedPromptTokens, Throwable failure);
}
