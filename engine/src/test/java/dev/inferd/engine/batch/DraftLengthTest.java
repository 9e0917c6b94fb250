package dev.inferd.engine.batch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The draft length follows acceptance, pauses where drafts fail, and shrinks with the streams decoding together. */
class DraftLengthTest {
    private static final int MAX = 8;

    @Test
    void growsWhileDraftsAreTakenWholeAndShrinksToWhatWasAccepted() {
        var d = new DraftLength();
        int k = d.next(MAX, 1);
        assertThat(k).isEqualTo(2);
        d.observe(k, k, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(4);
        d.observe(4, 4, MAX);
        d.observe(6, 6, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(MAX);
        d.observe(MAX, 2, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(3);
    }

    @Test
    void failingDraftsPauseForLongerEachTime() {
        var d = new DraftLength();
        d.observe(2, 0, MAX);
        assertThat(d.next(MAX, 1)).isPositive();
        d.observe(1, 0, MAX);
        int paused = 0;
        while (d.next(MAX, 1) == 0) paused++;
        assertThat(paused).isEqualTo(8);
        d.observe(1, 0, MAX); // the probe after the pause fails too
        paused = 0;
        while (d.next(MAX, 1) == 0) paused++;
        assertThat(paused).isEqualTo(16);
        d.observe(1, 1, MAX); // a probe that works keeps drafting
        assertThat(d.next(MAX, 1)).isPositive();
    }

    @Test
    void manyStreamsShareTheVerificationRows() {
        var d = new DraftLength();
        for (int i = 0; i < 4; i++) d.observe(MAX, MAX, MAX);
        assertThat(d.next(MAX, 1)).isEqualTo(MAX);
        assertThat(d.next(MAX, 8)).isEqualTo(2);
        assertThat(d.next(MAX, 12)).isEqualTo(1);
        assertThat(d.next(MAX, 24)).isZero();
    }
}
