package dev.inferd.engine.batch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The draft length follows acceptance, pauses where drafts fail, and shrinks with the streams decoding together. */
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
        assertThat(pause(d)).isEqualTo(DraftLength.FIRST_PAUSE);
        d.observe(0, 0, MAX); // the probe after the pause: the draft model did not even propose
        assertThat(pause(d)).isEqualTo(2 * DraftLength.FIRST_PAUSE);
        d.observe(1, 0, MAX);
        assertThat(pause(d)).isEqualTo(4 * DraftLength.FIRST_PAUSE);
        d.observe(1, 1, MAX); // a probe that works keeps drafting
        assertThat(d.next(MAX, 1)).isPositive();
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
        assertThat(pause(d)).isEqualTo(DraftLength.FIRST_PAUSE);
    }

    private static int pause(DraftLength d) {
        int paused = 0;
        while (d.next(MAX, 1) == 0) paused++;
        return paused;
    }
}
