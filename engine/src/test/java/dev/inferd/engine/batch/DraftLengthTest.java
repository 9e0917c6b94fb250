package dev.inferd.engine.batch;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The draft length follows acceptance, pauses where drafts fail, gives a draft model up after failed probes in a
 * row, and shrinks with the streams decoding together.
 */
class DraftLengthTest {
    private static final int MAX = 8;

    @Test
    void probesWithOneTokenThenGrowsWhileDraftsAreTakenWholeAndShrinksToWhatWasAccepted() {
        var d = DraftLength.forDraftModel();
        int k = d.next(MAX, 1);
        assertThat(k).isEqualTo(1);
        d.observe(k, k, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(3);
        d.observe(3, 3, MAX);
        d.observe(5, 5, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(7);
        d.observe(7, 7, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(MAX);
        d.observe(MAX, 2, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(3);
    }

    @Test
    void aFailedFirstDraftPausesAndEachFailedProbeDoublesThePause() {
        var d = DraftLength.forDraftModel();
        d.observe(1, 0, MAX);
        assertThat(pause(d)).isEqualTo(DraftLength.DRAFT_MODEL_FIRST_PAUSE);
        d.observe(0, 0, MAX); // the probe after the pause: the draft model did not even propose
        assertThat(pause(d)).isEqualTo(2 * DraftLength.DRAFT_MODEL_FIRST_PAUSE);
        d.observe(1, 1, MAX); // a probe that works keeps drafting
        assertThat(d.next(MAX, 1)).isPositive();
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
    void declinedProbesCountAsFailedProbes() {
        var d = DraftLength.forDraftModel();
        for (int probe = 0; probe < DraftLength.DRAFT_MODEL_FAILED_PROBES; probe++) {
            assertThat(d.givenUp()).isFalse();
            while (d.next(MAX, 1) == 0) { }
            d.observe(0, 0, MAX); // the draft model ran and proposed nothing
        }
        assertThat(d.givenUp()).isTrue();
        assertThat(d.next(MAX, 1)).isZero();
    }

    @Test
    void aKeptTokenBetweenFailedProbesKeepsTheDraft() {
        var d = DraftLength.forDraftModel();
        for (int round = 0; round < 50; round++) {
            for (int failed = 0; failed < DraftLength.DRAFT_MODEL_FAILED_PROBES - 1; failed++) {
                while (d.next(MAX, 1) == 0) { }
                d.observe(1, 0, MAX);
            }
            while (d.next(MAX, 1) == 0) { }
            d.observe(1, 1, MAX);
        }
        assertThat(d.givenUp()).isFalse();
        assertThat(d.next(MAX, 1)).isPositive();
    }

    @Test
    void aDraftThatAgreesKeepsDraftingEveryStep() {
        var d = DraftLength.forDraftModel();
        int steps = 0;
        for (int step = 0; step < 128; step++) {
            int k = d.next(MAX, 1);
            if (k == 0) continue;
            steps++;
            d.observe(k, k, MAX);
        }
        assertThat(steps).isEqualTo(128);
        assertThat(d.next(MAX, 1)).isEqualTo(MAX);
    }

    @Test
    void aGoodDraftSurvivesAnOccasionalMiss() {
        var d = DraftLength.forDraftModel();
        d.observe(1, 1, MAX);
        d.observe(3, 2, MAX);
        d.observe(3, 0, MAX);
        assertThat(d.paused()).isFalse();
        assertThat(d.next(MAX, 1)).isEqualTo(1);
    }

    @Test
    void manyStreamsShareTheVerificationRows() {
        var d = DraftLength.forDraftModel();
        for (int i = 0; i < 5; i++) d.observe(MAX, MAX, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(MAX);
        assertThat(d.next(MAX, 8)).isEqualTo(2);
        assertThat(d.next(MAX, 12)).isEqualTo(1);
        assertThat(d.next(MAX, 24)).isZero();
    }

    @Test
    void promptLookupPausesAfterTwoFailedAttempts() {
        var d = DraftLength.forPromptLookup();
        assertThat(d.next(MAX, 1)).isEqualTo(2);
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

    /** Steps (of {@code steps}) at which {@code d} drafts, when each attempt keeps {@code accepted} tokens. */
    private static List<Integer> attempts(DraftLength d, int steps, int accepted) {
        List<Integer> at = new ArrayList<>();
        for (int step = 0; step < steps; step++) {
            int k = d.next(MAX, 1);
            if (k == 0) continue;
            at.add(step);
            d.observe(k, Math.min(k, accepted), MAX);
        }
        return at;
    }

    private static int pause(DraftLength d) {
        int paused = 0;
        while (d.next(MAX, 1) == 0) paused++;
        return paused;
    }
}
