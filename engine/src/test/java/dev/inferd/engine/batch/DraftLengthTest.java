package dev.inferd.engine.batch;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The draft length follows acceptance, pauses where drafts fail, gives a draft model up after failed probes in a
 * row (sooner when few tokens are left), keeps a good draft, and shrinks with the streams decoding together.
 */
class DraftLengthTest {
    private static final int MAX = 8;
    /** Tokens left for a long answer: no probe is ever refused for want of them. */
    private static final int LONG = 100_000;

    @Test
    void probesWithOneTokenThenGrowsWhileDraftsAreTakenWholeAndShrinksToWhatWasAccepted() {
        var d = DraftLength.forDraftModel();
        int k = d.next(MAX, 1, LONG);
        assertThat(k).isEqualTo(1);
        d.observe(k, k, MAX);
        assertThat(d.next(MAX, 1, LONG)).isEqualTo(3);
        d.observe(3, 3, MAX);
        d.observe(5, 5, MAX);
        assertThat(d.next(MAX, 1, LONG)).isEqualTo(7);
        d.observe(7, 7, MAX);
        assertThat(d.next(MAX, 1, LONG)).isEqualTo(MAX);
        d.observe(MAX, 2, MAX);
        assertThat(d.next(MAX, 1, LONG)).isEqualTo(3);
    }

    @Test
    void aFailedFirstDraftPausesAndEachFailedProbeDoublesThePause() {
        var d = DraftLength.forDraftModel();
        d.observe(1, 0, MAX);
        assertThat(pause(d)).isEqualTo(DraftLength.DRAFT_MODEL_FIRST_PAUSE);
        d.observe(0, 0, MAX); // the probe after the pause: the draft model did not even propose
        assertThat(pause(d)).isEqualTo(2 * DraftLength.DRAFT_MODEL_FIRST_PAUSE);
        d.observe(1, 1, MAX); // a probe that works keeps drafting
        assertThat(d.next(MAX, 1, LONG)).isPositive();
        d.observe(1, 0, MAX);
        d.observe(1, 0, MAX);
        assertThat(pause(d)).isEqualTo(4 * DraftLength.DRAFT_MODEL_FIRST_PAUSE);
    }

    @Test
    void aDraftModelThatNeverAgreesProbesThreeTimesEarlyThenGivesUpForGood() {
        var d = DraftLength.forDraftModel();
        assertThat(attempts(d, 1000, 0)).containsExactly(0, 5, 14);
        assertThat(d.givenUp()).isTrue();
        assertThat(d.paused()).isTrue();
    }

    @Test
    void aShortAnswerGivesADraftModelThatNeverAgreesUpSooner() {
        // the second probe needs 32 tokens left, the third 64
        var d = DraftLength.forDraftModel();
        assertThat(attempts(d, 32, 0)).containsExactly(0);
        assertThat(d.givenUp()).isTrue();
        d = DraftLength.forDraftModel();
        assertThat(attempts(d, 64, 0)).containsExactly(0, 5);
        assertThat(d.givenUp()).isTrue();
        d = DraftLength.forDraftModel();
        assertThat(attempts(d, 128, 0)).containsExactly(0, 5, 14);
        assertThat(d.givenUp()).isTrue();
    }

    /**
     * A draft whose tokens are each kept with probability a (independently, the first rejected one ending the draft),
     * over answers of 128 and 512 tokens: how much of the answer decodes without it, given up? It pauses after failed
     * attempts in a row bring its yield below 0.3, often over a long answer, but is given up only while fewer than 0.3
     * of its attempts kept their first token: early, when its first attempts and the probes after them fail.
     */
    @Test
    void aGoodDraftIsRarelyGivenUp() {
        var random = new java.util.Random(7);
        for (double a : new double[] {0.6, 0.7, 0.8}) {
            for (int tokens : new int[] {128, 512}) {
                int trials = 20_000;
                int givenUpEarly = 0; // with a quarter of the answer or more left
                long withoutDraft = 0;
                for (int t = 0; t < trials; t++) {
                    var d = DraftLength.forDraftModel();
                    int generated = 0;
                    while (generated < tokens && !d.givenUp()) {
                        int k = Math.min(d.next(MAX, 1, tokens - generated), tokens - generated - 1);
                        int kept = 0;
                        while (kept < k && random.nextDouble() < a) kept++;
                        if (k > 0) d.observe(k, kept, MAX);
                        generated += 1 + kept;
                    }
                    if (d.givenUp()) {
                        withoutDraft += tokens - generated;
                        if (tokens - generated >= tokens / 4) givenUpEarly++;
                    }
                }
                double early = (double) givenUpEarly / trials;
                double lost = (double) withoutDraft / trials / tokens;
                // measured: a = 0.6 given up with a quarter left 0.115 (128 tokens) and 0.113 (512), a = 0.7 0.042 and 0.040,
                // a = 0.8 0.010 and 0.010; the share of tokens decoded without the draft about the same
                double bound = a >= 0.8 ? 0.02 : a >= 0.7 ? 0.06 : 0.15;
                assertThat(early).as("a = %s over %d tokens: given up early", a, tokens).isLessThan(bound);
                assertThat(lost).as("a = %s over %d tokens: tokens without the draft", a, tokens).isLessThan(bound);
            }
        }
    }

    @Test
    void declinedProbesCountAsFailedProbes() {
        var d = DraftLength.forDraftModel();
        for (int probe = 0; probe < DraftLength.DRAFT_MODEL_FAILED_PROBES; probe++) {
            assertThat(d.givenUp()).isFalse();
            while (d.next(MAX, 1, LONG) == 0) { }
            d.observe(0, 0, MAX); // the draft model ran and proposed nothing
        }
        assertThat(d.givenUp()).isTrue();
        assertThat(d.next(MAX, 1, LONG)).isZero();
    }

    @Test
    void aKeptTokenBetweenFailedProbesKeepsTheDraft() {
        var d = DraftLength.forDraftModel();
        for (int round = 0; round < 50; round++) {
            for (int failed = 0; failed < DraftLength.DRAFT_MODEL_FAILED_PROBES - 1; failed++) {
                while (d.next(MAX, 1, LONG) == 0) { }
                d.observe(1, 0, MAX);
            }
            while (d.next(MAX, 1, LONG) == 0) { }
            d.observe(1, 1, MAX);
        }
        assertThat(d.givenUp()).isFalse();
        assertThat(d.next(MAX, 1, LONG)).isPositive();
    }

    @Test
    void aDraftThatAgreesKeepsDraftingEveryStep() {
        var d = DraftLength.forDraftModel();
        int steps = 0;
        for (int step = 0; step < 128; step++) {
            int k = d.next(MAX, 1, LONG);
            if (k == 0) continue;
            steps++;
            d.observe(k, k, MAX);
        }
        assertThat(steps).isEqualTo(128);
        assertThat(d.next(MAX, 1, LONG)).isEqualTo(MAX);
    }

    @Test
    void aGoodDraftSurvivesAnOccasionalMiss() {
        var d = DraftLength.forDraftModel();
        d.observe(1, 1, MAX);
        d.observe(3, 2, MAX);
        d.observe(3, 0, MAX);
        assertThat(d.paused()).isFalse();
        assertThat(d.next(MAX, 1, LONG)).isEqualTo(1);
    }

    @Test
    void manyStreamsShareTheVerificationRows() {
        var d = DraftLength.forDraftModel();
        for (int i = 0; i < 5; i++) d.observe(MAX, MAX, MAX);
        assertThat(d.next(MAX, 1, LONG)).isEqualTo(MAX);
        assertThat(d.next(MAX, 8, LONG)).isEqualTo(2);
        assertThat(d.next(MAX, 12, LONG)).isEqualTo(1);
        assertThat(d.next(MAX, 24, LONG)).isZero();
    }

    @Test
    void promptLookupPausesAfterTwoFailedAttempts() {
        var d = DraftLength.forPromptLookup();
        assertThat(d.next(MAX, 1, LONG)).isEqualTo(2);
        d.observe(2, 0, MAX);
        assertThat(d.paused()).isFalse();
        d.observe(1, 0, MAX);
        assertThat(pause(d)).isEqualTo(DraftLength.PROMPT_LOOKUP_FIRST_PAUSE);
    }

    @Test
    void promptLookupThatNeverAgreesPausesLongerEachTimeButNeverGivesUp() {
        var d = DraftLength.forPromptLookup();
        // attempts at 0 and 1, then after pauses of 16, 32, 64 and 128 steps
        assertThat(attempts(d, 300, 0)).containsExactly(0, 1, 18, 51, 116, 245);
        assertThat(d.givenUp()).isFalse();
    }

    /**
     * Steps (of {@code steps}) at which {@code d} drafts, when each attempt keeps {@code accepted} tokens (0: a step
     * generates one token, and the answer ends after {@code steps}).
     */
    private static List<Integer> attempts(DraftLength d, int steps, int accepted) {
        List<Integer> at = new ArrayList<>();
        for (int step = 0; step < steps; step++) {
            int k = d.next(MAX, 1, accepted == 0 ? steps - step : LONG);
            if (k == 0) continue;
            at.add(step);
            d.observe(k, Math.min(k, accepted), MAX);
        }
        return at;
    }

    private static int pause(DraftLength d) {
        int paused = 0;
        while (d.next(MAX, 1, LONG) == 0) paused++;
        return paused;
    }
}
