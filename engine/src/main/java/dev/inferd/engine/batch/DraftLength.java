package dev.inferd.engine.batch;

/**
 * How many draft tokens one sequence proposes next, from how its drafts fared. A draft that was taken
 * whole grows the next one; a rejected one shrinks it to what was accepted plus one. When the recent
 * acceptance falls so low that the verification rows cost more than the accepted tokens save, the
 * sequence stops drafting for a while, each time longer, and then tries again.
 *
 * <p>With many sequences decoding together the step is no longer bound by reading the weights but by
 * computing rows, and a draft's extra rows are paid in full: the drafts of all sequences share a budget
 * of {@link #VERIFY_ROWS} rows per step: each of n streams drafts at most VERIFY_ROWS / n - 1 tokens.
 */
final class DraftLength {
    /** Rows per step that drafts (and their sequences' own tokens) may take together. */
    static final int VERIFY_ROWS = 24;
    /** Below this share of accepted draft tokens (recent average) drafting stops for a while. */
    static final double MIN_ACCEPTANCE = 0.25;
    private static final int FIRST_PAUSE = 8;
    private static final int LONGEST_PAUSE = 256;

    private int length = 2;
    private double acceptance = 0.5;
    private int observed;
    private int pausedSteps;
    private int nextPause = FIRST_PAUSE;

    /** The draft length for this step (0: decode without a draft), given the sequences decoding now. */
    int next(int maxDraft, int decodingSequences) {
        if (pausedSteps > 0) {
            pausedSteps--;
            return 0;
        }
        int share = VERIFY_ROWS / Math.max(1, decodingSequences) - 1;
        return Math.max(0, Math.min(Math.min(length, maxDraft), share));
    }

    /** What became of a draft of {@code proposed} tokens: {@code accepted} of them were kept. */
    void observe(int proposed, int accepted, int maxDraft) {
        if (proposed <= 0) return;
        acceptance = 0.7 * acceptance + 0.3 * accepted / proposed;
        observed++;
        length = accepted == proposed ? Math.min(maxDraft, length + 2) : Math.max(1, accepted + 1);
        if (observed >= 2 && acceptance < MIN_ACCEPTANCE) {
            pausedSteps = nextPause;
            nextPause = Math.min(LONGEST_PAUSE, nextPause * 2);
            // one more failed draft after the pause starts the next, longer one; a good one keeps drafting
            acceptance = MIN_ACCEPTANCE + 0.05;
            observed = 1;
            length = 1;
        } else if (acceptance >= 0.5) {
            nextPause = FIRST_PAUSE;
        }
    }

    /** The recent share of accepted draft tokens. */
    double acceptance() {
        return acceptance;
    }
}
