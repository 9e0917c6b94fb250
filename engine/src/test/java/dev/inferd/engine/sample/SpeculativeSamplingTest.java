package dev.inferd.engine.sample;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Speculative sampling on a vocabulary of six tokens: a draft token drawn from the draft's distribution
 * q, kept with probability min(1, p/q) and otherwise replaced by a draw from max(0, p - q), is
 * distributed as the target's p, with temperature, top_p, penalties and a constraint that masks the
 * target but not the draft. Fixed seeds: the counts are the same on every run, and the threshold is
 * the chi-square test's at a significance of 0.001.
 */
public class SpeculativeSamplingTest {
    private static final float[] TARGET = {2.0f, 1.2f, 0.3f, -0.5f, 1.6f, 0.9f};
    /** Disagrees with the target: favours what it does not. */
    private static final float[] DRAFT = {-0.4f, 0.2f, 1.9f, 1.1f, 0.0f, 1.4f};
    /** Near the target, but with another favourite: within top_p's nucleus both ways. */
    private static final float[] CLOSE_DRAFT = {1.5f, 1.7f, 0.5f, -0.2f, 1.0f, 0.8f};
    private static final int TRIALS = 40_000;

    @Test
    void keptOrResampledDraftTokensAreDistributedAsTheTarget() {
        check(new SamplingParams(1f, 1f, 1L, 0f, 0f, Map.of()), DRAFT, null, -1);
    }

    @Test
    void temperatureAndNucleusAreTheTargets() {
        check(new SamplingParams(0.7f, 0.8f, 2L, 0f, 0f, Map.of()), CLOSE_DRAFT, null, -1);
    }

    @Test
    void penaltiesCountTheKeptTokensOnlyAndBiasApplies() {
        check(new SamplingParams(1.3f, 1f, 3L, 0.4f, 0.3f, Map.of(3, 1.5f)), DRAFT, null, 0);
    }

    @Test
    void aConstraintMasksTheTargetEvenWhenTheDraftWasUnmasked() {
        check(new SamplingParams(1f, 1f, 4L, 0f, 0f, Map.of()), DRAFT, new Ban(0, 4), -1);
    }

    @Test
    void greedyVerificationIsTheGreedyChoice() {
        var sampler = new Sampler(SamplingParams.GREEDY, 6, 1);
        sampler.beginDraft();
        int draft = sampler.draft(DRAFT, 0, null);
        sampler.endDraft();
        assertThat(draft).isEqualTo(2);
        assertThat(sampler.verify(TARGET, 0, draft, null)).isEqualTo(0);
    }

    @Test
    void aDraftLeavesPenaltiesAndConstraintAsTheyWere() {
        var params = new SamplingParams(0f, 1f, 1L, 0f, 5f, Map.of());
        var sampler = new Sampler(params, 6, 1, new Ban(1));
        sampler.beginDraft();
        assertThat(sampler.draft(TARGET, 0, null)).isEqualTo(0);
        assertThat(sampler.draft(TARGET, 0, null)).as("penalized by the draft's own token 0").isEqualTo(4);
        sampler.endDraft();
        assertThat(sampler.sample(TARGET, 0)).isEqualTo(0);
    }

    /**
     * Draws a draft token from q at {@code draftLogits}, verifies it at {@link #TARGET}, and compares the
     * counts with p, computed here from the sampling rules; {@code accepted >= 0} records that token as
     * generated first (for the penalties).
     */
    private static void check(SamplingParams params, float[] draftLogits, TokenConstraint constraint, int accepted) {
        var sampler = new Sampler(params, 6, params.seed(), constraint);
        if (accepted >= 0) sampler.accept(accepted);
        float[] q = new float[6];
        long[] counts = new long[6];
        int kept = 0;
        for (int i = 0; i < TRIALS; i++) {
            sampler.beginDraft();
            int draft = sampler.draft(draftLogits, 0, q);
            sampler.endDraft();
            int token = sampler.verify(TARGET, 0, draft, q);
            if (token == draft) kept++;
            counts[token]++;
        }
        double[] p = expected(params, constraint, accepted);
        assertThat(kept).as("some drafts kept").isBetween(TRIALS / 20, TRIALS - TRIALS / 20);
        double chi = 0;
        int categories = 0;
        for (int t = 0; t < 6; t++) {
            double e = p[t] * TRIALS;
            if (e == 0) {
                assertThat(counts[t]).as("token %d is impossible", t).isZero();
                continue;
            }
            chi += (counts[t] - e) * (counts[t] - e) / e;
            categories++;
        }
        assertThat(chi).as("chi-square of %s against %s", Arrays.toString(counts), Arrays.toString(p))
                .isLessThan(chiSquareCritical(categories - 1));
    }

    /** The target's distribution by the sampler's documented rules: bias, penalties, mask, temperature, nucleus. */
    private static double[] expected(SamplingParams params, TokenConstraint constraint, int accepted) {
        double[] logits = new double[6];
        for (int t = 0; t < 6; t++) {
            float l = TARGET[t] + params.logitBias().getOrDefault(t, 0f);
            if (t == accepted) l -= params.presencePenalty() + params.frequencyPenalty();
            logits[t] = l;
        }
        float[] mask = new float[6];
        if (constraint != null) constraint.mask(mask);
        double[] p = new double[6];
        double sum = 0;
        for (int t = 0; t < 6; t++) {
            p[t] = mask[t] == Float.NEGATIVE_INFINITY ? 0 : Math.exp(logits[t] / params.temperature());
            sum += p[t];
        }
        for (int t = 0; t < 6; t++) p[t] /= sum;
        if (params.topP() < 1f) {
            Integer[] order = {0, 1, 2, 3, 4, 5};
            Arrays.sort(order, (a, b) -> Double.compare(p[b], p[a]));
            double kept = 0;
            boolean cut = false;
            for (int id : order) {
                if (cut) p[id] = 0;
                kept += p[id];
                if (kept >= params.topP()) cut = true;
            }
            double total = Arrays.stream(p).sum();
            for (int t = 0; t < 6; t++) p[t] /= total;
        }
        return p;
    }

    /** The chi-square distribution's upper 0.001 point (Wilson-Hilferty), for {@code df} degrees of freedom. */
    public static double chiSquareCritical(int df) {
        double z = 3.090;
        double a = 2.0 / (9 * df);
        return df * Math.pow(1 - a + z * Math.sqrt(a), 3);
    }

    /** Bans some tokens; cannot be copied, so drafts go unmasked. */
    private record Ban(int... banned) implements TokenConstraint {
        @Override
        public void mask(float[] logits) {
            for (int t : banned) logits[t] = Float.NEGATIVE_INFINITY;
        }

        @Override
        public void accept(int token) {
        }
    }
}
