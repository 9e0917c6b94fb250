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

    /** Makes the constraint of each sequence of a request: every choice follows it on its own. */
    @FunctionalInterface
    interface Factory {
        TokenConstraint forSequence();
    }
}
