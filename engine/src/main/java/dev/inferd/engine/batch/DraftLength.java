package dev.inferd.engine.batch;

/**
 * How many draft tokens one sequence proposes next, from how its drafts fared. A draft model's first
 * draft is one token (a cheap probe), prompt lookup's two; a draft taken whole grows the next one by two, a rejected one shrinks it to what
 * was accepted plus one. When the recent yield (tokens kept per draft attempt) falls below
 * {@link #MIN_YIELD}, the sequence stops drafting for a while, each time twice as long, and then probes
 * again with one token: a draft that never agrees costs one failed attempt per pause, and the pauses
 * double, so over a long output the failed attempts become rare.
 *
 * <p>An attempt fails when the target rejects the draft's first token, and also when the draft model ran
 * but was not confident enough to propose anything ({@link Speculation#minProbability}): its pass was
 * spent for nothing either way.
 *
 * <p>With many sequences decoding together the step is no longer bound by reading the weights but by
 * computing rows, and a draft's extra rows are paid in full: the drafts of all sequences share a budget
 * of {@link #VERIFY_ROWS} rows per step: each of n streams drafts at most VERIFY_ROWS / n - 1 tokens.
 */
final class DraftLength {
    /** Rows per step that drafts (and their sequences' own tokens) may take together. */
    static final int VERIFY_ROWS = 24;
    /**
     * Below this yield (recent average of draft tokens kept per attempt, halved by each failed attempt)
     * drafting pauses.
     */
    static final double MIN_YIELD = 0.3;
    /**
     * A draft model's first yield: its first attempt failing pauses at once, since a draft's pass costs a share
     * of a step whether or not it agrees (a good draft is back after the pause).
     */
    private static final double DRAFT_MODEL_FIRST_YIELD = 0.5;
    /**
     * Prompt lookup's: two failed attempts in a row pause. A failed lookup costs only its verification rows,
     * and a text that quotes its input leaves the quote and comes back to it.
     */
    private static final double PROMPT_LOOKUP_FIRST_YIELD = 1;
    static final int FIRST_PAUSE = 16;
    private static final int LONGEST_PAUSE = 256;

    private int length;
    private double yield;
    private int pausedSteps;
    private int nextPause = FIRST_PAUSE;

    /** A draft model's drafts: a probe of one token first, a pause after a failed first attempt. */
    static DraftLength forDraftModel() {
        return new DraftLength(1, DRAFT_MODEL_FIRST_YIELD);
    }

    /**
     * Prompt lookup's: two tokens first (a failed lookup costs only verification rows, and what it finds is
     * often a run), a pause after two failed attempts in a row.
     */
    static DraftLength forPromptLookup() {
        return new DraftLength(2, PROMPT_LOOKUP_FIRST_YIELD);
    }

    private DraftLength(int firstLength, double firstYield) {
        this.length = firstLength;
        this.yield = firstYield;
    }

    /** The draft length for this step (0: decode without a draft), given the sequences decoding now. */
    int next(int maxDraft, int decodingSequences) {
        if (pausedSteps > 0) {
            pausedSteps--;
            return 0;
        }
        int share = VERIFY_ROWS / Math.max(1, decodingSequences) - 1;
        return Math.max(0, Math.min(Math.min(length, maxDraft), share));
    }

    /**
     * What became of a draft attempt: {@code accepted} of {@code proposed} tokens were kept ({@code proposed}
     * 0: the draft model ran and proposed nothing).
     */
    void observe(int proposed, int accepted, int maxDraft) {
        yield = 0.5 * yield + 0.5 * accepted;
        if (proposed > 0) length = accepted == proposed ? Math.min(maxDraft, length + 2) : Math.max(1, accepted + 1);
        if (yield < MIN_YIELD) {
            pausedSteps = nextPause;
            nextPause = Math.min(LONGEST_PAUSE, nextPause * 2);
            // one more failed attempt after the pause starts the next, longer one; a kept token keeps drafting
            yield = MIN_YIELD + 0.05;
            length = 1;
        } else if (yield >= 1) {
            nextPause = FIRST_PAUSE;
        }
    }

    /** Whether the sequence drafts nothing for the coming steps. */
    boolean paused() {
        return pausedSteps > 0;
    }
}
