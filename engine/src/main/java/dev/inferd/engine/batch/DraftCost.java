package dev.inferd.engine.batch;

import java.util.Arrays;

/**
 * Whether drafting with a draft model can pay at a step, from what steps cost on this machine. A draft token
 * costs a pass of the draft model and a verification row, and gains a token when the target keeps it; with n
 * sequences decoding, every one of them waits for those costs. When all n draft a token, the step pays when
 * the share of draft tokens kept exceeds the break-even
 *
 * <pre>    c + n r / T(n)</pre>
 *
 * with T(n) a step of n decoding sequences without drafts, c a pass of the draft model over a step of the
 * target (the same rows), and r what a verification row adds to a step. The scheduler measures all three as it
 * runs: T(n) from its steps without drafts or prompt positions, c from the draft model's passes of one row per
 * sequence, r from steps with drafts, or, before any, from the slope of T over the numbers of sequences seen.
 * Where decode is bound by reading the weights r is a few hundredths of a step and the break-even stays near c
 * whatever the number of streams; where each row's arithmetic costs as much as the reading (a compute-bound
 * step, or many streams), n r approaches T(n) and nothing pays.
 *
 * <p>Drafting stops where the break-even exceeds {@link #MAX_BREAK_EVEN}: such a draft would have to be kept
 * more often than same-family pairs typically are (0.6-0.8 a token) to gain anything, and when it is not, each
 * attempt is paid for nothing. A draft as costly as the target (c = 1) never pays; nor, on a machine whose
 * rows cost a fifth of a step or more, does any draft at eight streams. Until T(n) is measured for the number
 * of sequences decoding, the step runs without drafts (and measures it).
 *
 * <p>c and r are measured only while drafts run, so a verdict against drafting would stand for good if they
 * stood still: a slow step (the machine busy with something else) must not turn a good draft off for the
 * rest of the process. Each observation therefore counts for at most a step's time, and while no draft runs
 * both drift back to their estimates without drafts ({@link #RELAPSE} a step): after some hundred steps without
 * drafts the draft model is tried again where those estimates allow it, and measured again.
 */
final class DraftCost {
    /** The highest break-even at which a draft model drafts. */
    static final double MAX_BREAK_EVEN = 0.7;
    /**
     * What a verification row is taken to cost, as a share of a step's time per sequence, where several sequences
     * decode and nothing has measured it yet: half, as if the step were half bound by arithmetic. With one sequence,
     * nothing: its first drafts measure it.
     */
    static final double UNMEASURED_ROW_SHARE = 0.5;
    /** Weight of a new observation in the running averages (a step's time varies with what else the machine runs). */
    private static final double WEIGHT = 0.1;
    /** How far c and r drift back to their estimates without drafts at each step without drafts. */
    static final double RELAPSE = 0.02;
    /** The most a pass of the draft model counts for, in steps of the target. */
    private static final double MOST_DRAFT_RATIO = 2;

    /** Seconds of a step of n decoding sequences and no drafts, by n; NaN until measured. */
    private final double[] plainStep;
    /** A pass of the draft model over a step of the target, the same rows: from the draft's bytes ratio on. */
    private double draftRatio;
    private final double draftRatioPrior;
    /** Seconds a verification row adds to a step, measured on steps with drafts; NaN until then. */
    private double rowCost = Double.NaN;

    /**
     * @param maxSequences the most sequences that decode together
     * @param draftRatioPrior what a pass of the draft model is taken to cost against a step of the target until
     *                        measured (the ratio of their weights' bytes)
     */
    DraftCost(int maxSequences, double draftRatioPrior) {
        this.plainStep = new double[maxSequences + 1];
        Arrays.fill(plainStep, Double.NaN);
        this.draftRatio = draftRatioPrior;
        this.draftRatioPrior = draftRatioPrior;
    }

    /**
     * A step of the target that held {@code decodeRows} decoding sequences' tokens, {@code draftRows} draft tokens
     * besides, and nothing else (no prompt positions), and took {@code nanos}.
     */
    void targetStep(int decodeRows, int draftRows, long nanos) {
        if (decodeRows < 1 || decodeRows >= plainStep.length) return;
        double seconds = nanos / 1e9;
        if (draftRows == 0) {
            plainStep[decodeRows] = average(plainStep[decodeRows], seconds);
            draftRatio += RELAPSE * (draftRatioPrior - draftRatio);
            if (!Double.isNaN(rowCost)) rowCost += RELAPSE * (rowCostWithoutDrafts(decodeRows) - rowCost);
            return;
        }
        double plain = plainStep[decodeRows];
        if (Double.isNaN(plain)) return;
        rowCost = average(rowCost, Math.clamp((seconds - plain) / draftRows, 0, plain));
    }

    /** A pass of the draft model over {@code rows} drafting sequences, one row each, that took {@code nanos}. */
    void draftPass(int rows, long nanos) {
        if (rows < 1 || rows >= plainStep.length || Double.isNaN(plainStep[rows])) return;
        draftRatio = average(draftRatio, Math.min(MOST_DRAFT_RATIO, nanos / 1e9 / plainStep[rows]));
    }

    /**
     * The share of draft tokens the target must keep for drafting to pay with {@code decoding} sequences decoding;
     * infinite until a step of that many sequences has been measured.
     */
    double breakEven(int decoding) {
        if (decoding < 1 || decoding >= plainStep.length || Double.isNaN(plainStep[decoding])) return Double.POSITIVE_INFINITY;
        double step = plainStep[decoding];
        return draftRatio + decoding * rowCost(decoding) / step;
    }

    /** Whether a draft model drafts at a step of {@code decoding} sequences. */
    boolean pays(int decoding) {
        return breakEven(decoding) < MAX_BREAK_EVEN;
    }

    /** Seconds a verification row adds: measured, else {@link #rowCostWithoutDrafts}. */
    private double rowCost(int decoding) {
        return Double.isNaN(rowCost) ? rowCostWithoutDrafts(decoding) : rowCost;
    }

    /**
     * A verification row's cost as steps without drafts tell it: the slope of their times over the numbers of sequences
     * measured, or, from one number only, nothing with one sequence and {@link #UNMEASURED_ROW_SHARE} with more.
     */
    private double rowCostWithoutDrafts(int decoding) {
        int fewest = -1, most = -1;
        for (int n = 1; n < plainStep.length; n++) {
            if (Double.isNaN(plainStep[n])) continue;
            if (fewest < 0) fewest = n;
            most = n;
        }
        if (most > fewest) return Math.max(0, (plainStep[most] - plainStep[fewest]) / (most - fewest));
        return decoding == 1 ? 0 : UNMEASURED_ROW_SHARE * plainStep[decoding] / decoding;
    }

    private static double average(double current, double observed) {
        return Double.isNaN(current) ? observed : current + WEIGHT * (observed - current);
    }
}
