package dev.inferd.engine.batch;

import dev.inferd.engine.model.Model;

/**
 * How the scheduler speculates: a draft model proposes tokens, or (without one) prompt lookup finds
 * them in the sequence itself; the target model verifies a sequence's pending token and its draft in
 * one pass, as rows of the same sequence. Greedy output is the same token for token as without a
 * draft (a row's logits do not depend on the rows beside it), and sampled output is distributed as
 * the target's (speculative sampling, {@link dev.inferd.engine.sample.Sampler#verify}).
 *
 * @param draft the draft model (its vocabulary's ids the target's), or null
 * @param promptLookup whether sequences without a draft model draft by prompt lookup
 * @param maxDraft the most draft tokens a sequence proposes in one step
 * @param minProbability a draft model's draft ends at a token the draft model gives less than this
 *                       probability (0: never): such a token is likely rejected, and its verification row and
 *                       the next draft pass would be spent for nothing
 * @param draftRatio what a pass of the draft model is taken to cost against a step of the target until the
 *                   scheduler has measured it: the ratio of their weights' bytes ({@link DraftCost})
 * @param draftAlways whether the draft model drafts whatever its drafts cost ({@link DraftCost} is not asked):
 *                    to measure verification with a draft that cannot pay, and for tests
 */
public record Speculation(Model draft, boolean promptLookup, int maxDraft, float minProbability, double draftRatio,
                          boolean draftAlways) {
    /** Draft tokens per step at most. */
    public static final int DEFAULT_MAX_DRAFT = 8;
    /**
     * Drafting one more token pays when its chance of being kept exceeds what it costs in steps: a pass of
     * the draft (a sixth to a third of a step for the catalog's pairs) and a verification row (a few
     * hundredths of a step where decode is bound by reading the weights, a fifth to two fifths on a machine
     * whose decode also waits on arithmetic): about one half at worst.
     */
    public static final float DEFAULT_MIN_PROBABILITY = 0.5f;
    public static final Speculation NONE = new Speculation(null, false, 0, 0f, 0, false);
    public static final Speculation PROMPT_LOOKUP = new Speculation(null, true, DEFAULT_MAX_DRAFT, 0f, 0, false);

    public Speculation {
        if (maxDraft < 0) throw new IllegalArgumentException("maxDraft must not be negative");
        if ((draft != null || promptLookup) && maxDraft == 0) throw new IllegalArgumentException("speculation needs maxDraft > 0");
        if (!(minProbability >= 0f && minProbability < 1f)) throw new IllegalArgumentException("minProbability must be in [0, 1)");
        if (!(draftRatio >= 0)) throw new IllegalArgumentException("draftRatio must not be negative");
    }

    public boolean enabled() {
        return draft != null || promptLookup;
    }

    /**
     * The batch the target model must take under a scheduler of {@code config}: the drafts of all sequences
     * beside the prompt chunk and the sequences' own tokens (the drafts of a step share {@link DraftLength#VERIFY_ROWS}).
     */
    public int targetBatch(Scheduler.Config config) {
        return config.maxBatch() + (enabled() ? DraftLength.VERIFY_ROWS : 0);
    }
}
