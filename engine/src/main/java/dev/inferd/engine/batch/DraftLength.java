package dev.inferd.engine.batch;

/**
 * How many draft tokens one sequence proposes next, from how its drafts fared. A draft model's first
 * draft is one token (a cheap probe), prompt lookup's two; a draft taken whole grows the next one by two, a
 * rejected one shrinks it to what was accepted plus one. When the recent yield (tokens kept per draft
 * attempt) falls below {@link #MIN_YIELD}, the sequence stops drafting for a while, each time twice as long,
 * and then probes again with one token.
 *
 * <p>An attempt fails when the target rejects the draft's first token, and also when the draft model ran
 * but was not confident enough to propose anything ({@link Speculation#minProbability}): its pass was
 * spent for nothing either way.
 *
 * <p>A draft model gives up for good ({@link #givenUp()}) after {@link #DRAFT_MODEL_FAILED_PROBES} pauses in a
 * row with no draft token kept between them, or sooner where few tokens are left (a probe after failed ones
 * needs {@link #TOKENS_LEFT_PER_FAILED_PROBE} tokens left for each), if fewer than {@link #POOR_RECORD} of its
 * attempts kept their first token: a good draft only pauses. A probe costs more than a pass of the draft:
 * before it, every token generated since the draft last ran goes through the draft model, so pauses, however
 * long, leave a cost proportional to the tokens generated; and what a draft that turned out good could gain
 * shrinks with the tokens left. Giving up bounds what a draft that does not agree costs a sequence, whatever its
 * length; its pauses are short (the catch-up is what a pause adds to its probe). Prompt lookup never gives up:
 * a failed lookup costs only its verification rows.
 *
 * <p>With many sequences decoding together the step is no longer bound by reading the weights but by
 * computing rows, and a draft's extra rows are paid in full: the drafts of all sequences share a budget
 * of {@link #VERIFY_ROWS} rows per step: each of n streams drafts at most VERIFY_ROWS / n - 1 tokens. Whether
 * a draft model drafts at all at a step is {@link DraftCost}'s to say, from what steps cost.
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
    /**
     * A draft model's pauses: 4 steps, then 8, 16 ... The probe after a pause catches the draft's cache up
     * with the pause's tokens, so a short pause costs little more than a long one per probe.
     */
    static final int DRAFT_MODEL_FIRST_PAUSE = 4;
    /** Prompt lookup's pauses: 16 steps, then 32, 64 ... */
    static final int PROMPT_LOOKUP_FIRST_PAUSE = 16;
    private static final int LONGEST_PAUSE = 256;
    /**
     * Failed probes in a row (pauses with no draft token kept between them) after which a draft model stops
     * drafting for the sequence: three, at steps 0, 5 and 14 of a sequence whose draft never agrees, cost
     * three passes of the draft and the catch-up of 14 tokens.
     */
    static final int DRAFT_MODEL_FAILED_PROBES = 3;
    /** The share of attempts keeping their first token below which failed probes give a draft model up. */
    static final double POOR_RECORD = 0.3;
    /**
     * Tokens left that a draft model's probe after failed ones needs, per failed probe so far: the second probe
     * (step 5 of a draft that never agrees) needs 32 tokens left, the third (step 14) 64. A shorter answer gives
     * its draft model up instead: the probe's pass and catch-up would cost about what a draft found good after
     * all could still gain.
     */
    static final int TOKENS_LEFT_PER_FAILED_PROBE = 32;

    private final int firstPause;
    private final int maxFailedProbes;
    private final int tokensLeftPerFailedProbe;
    private int length;
    private double yield;
    private int pausedSteps;
    private int nextPause;
    /** Pauses started since the last draft token kept. */
    private int failedProbes;
    /** Attempts so far, and those whose first draft token was kept: the sequence's record. */
    private int attempts;
    private int firstKept;
    private boolean givenUp;

    /**
     * A draft model's drafts: a probe of one token first, a pause after a failed first attempt, given up after
     * {@link #DRAFT_MODEL_FAILED_PROBES} failed probes in a row.
     */
    static DraftLength forDraftModel() {
        return new DraftLength(1, DRAFT_MODEL_FIRST_YIELD, DRAFT_MODEL_FIRST_PAUSE, DRAFT_MODEL_FAILED_PROBES,
                TOKENS_LEFT_PER_FAILED_PROBE);
    }

    /**
     * Prompt lookup's: two tokens first (a failed lookup costs only verification rows, and what it finds is
     * often a run), a pause after two failed attempts in a row, never given up.
     */
    static DraftLength forPromptLookup() {
        return new DraftLength(2, PROMPT_LOOKUP_FIRST_YIELD, PROMPT_LOOKUP_FIRST_PAUSE, Integer.MAX_VALUE, 0);
    }

    private DraftLength(int firstLength, double firstYield, int firstPause, int maxFailedProbes, int tokensLeftPerFailedProbe) {
        this.length = firstLength;
        this.yield = firstYield;
        this.firstPause = firstPause;
        this.nextPause = firstPause;
        this.maxFailedProbes = maxFailedProbes;
        this.tokensLeftPerFailedProbe = tokensLeftPerFailedProbe;
    }

    /**
     * The draft length for this step (0: decode without a draft), given the sequences decoding now and the tokens the
     * sequence may still generate.
     */
    int next(int maxDraft, int decodingSequences, int tokensLeft) {
        if (givenUp) return 0;
        if (pausedSteps > 0) {
            pausedSteps--;
            return 0;
        }
        if (failedProbes > 0 && (long) tokensLeft < (long) tokensLeftPerFailedProbe * failedProbes && poorRecord()) {
            givenUp = true;
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
        if (accepted > 0) failedProbes = 0;
        attempts++;
        if (accepted > 0) firstKept++;
        yield = 0.5 * yield + 0.5 * accepted;
        if (proposed > 0) length = accepted == proposed ? Math.min(maxDraft, length + 2) : Math.max(1, accepted + 1);
        if (yield < MIN_YIELD) {
            if (++failedProbes >= maxFailedProbes && poorRecord()) {
                givenUp = true;
                return;
            }
            pausedSteps = nextPause;
            nextPause = Math.min(LONGEST_PAUSE, nextPause * 2);
            // one more failed attempt after the pause starts the next, longer one; a kept token keeps drafting
            yield = MIN_YIELD + 0.05;
            length = 1;
        } else if (yield >= 1) {
            nextPause = firstPause;
        }
    }

    /**
     * Whether fewer than {@link #POOR_RECORD} of the sequence's attempts kept their first draft token: only then do failed
     * probes give the draft model up. A good draft fails a few probes in a row now and then (a draft kept 0.6 of the
     * time, three one time in 16), and over a long answer it pauses often enough for such a run to come; its record
     * keeps it. A draft that never agrees has none.
     */
    private boolean poorRecord() {
        return firstKept < POOR_RECORD * attempts;
    }

    /** Whether the sequence drafts nothing for the coming steps. */
    boolean paused() {
        return givenUp || pausedSteps > 0;
    }

    /**
     * Whether the sequence drafts no more: its draft model failed {@link #DRAFT_MODEL_FAILED_PROBES} probes in a row, or
     * as many as its tokens left allowed ({@link #TOKENS_LEFT_PER_FAILED_PROBE}).
     */
    boolean givenUp() {
        return givenUp;
    }
}
