package dev.inferd.engine.sample;

/**
 * Limits which tokens one sequence may take next (a grammar, a JSON schema). The {@link Sampler} of a
 * constrained sequence consults it at every step, after logit bias and penalties and before choosing,
 * so greedy and random choice alike only ever see allowed tokens; reported log-probabilities stay the
 * model's own. Called on the scheduler thread, once per generated token: it must be quick and allocate
 * nothing in the common case.
 */
public interface TokenConstraint {

    /**
     * Sets the logit of every token that may not come next to {@link Float#NEGATIVE_INFINITY}.
     *
     * @param logits the sampler's working copy, one entry per vocabulary token
     */
    void mask(float[] logits);

    /** The sequence took {@code token}: advance the constraint's state past it. */
    void accept(int token);

    /**
     * The sequence will take at most {@code maxTokens} tokens (the request's limit, or the room left in
     * the context). A constraint whose output must be complete (a grammar) then steers the last tokens
     * so that the output is complete when they run out. Called at most once, before the first
     * {@link #mask}.
     */
    default void limit(int maxTokens) {
    }

    /**
     * A constraint in this one's present state that from then on advances on its own: speculative
     * decoding masks a draft with it, advancing it along the draft's tokens, and drops it afterwards
     * (the rollback), while this one only ever sees the tokens the sequence keeps. Null when the state
     * cannot be copied: drafts then go unmasked, which costs acceptance, never correctness, since every
     * kept token is still chosen under {@link #mask}.
     */
    default TokenConstraint copy() {
        return null;
    }

    /** Makes the constraint of each sequence of a request: every choice follows it on its own. */
    @FunctionalInterface
    interface Factory {
        TokenConstraint forSequence();

        /**
         * The tokens a complete output needs at the least (an upper bound of that least, as
         * {@link #limit} steers by), so that a limit below it can be refused before anything runs;
         * 0 when any output, even an empty one, is complete.
         */
        default int tokensToComplete() {
            return 0;
        }
    }
}
