package dev.inferd.engine.batch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A draft model drafts where its drafts can pay, judged from measured step times: with one stream where the
 * draft is small enough, not when it costs as much as the target, not at many streams where each row costs a
 * share of a step, and not before a step of that many sequences has been timed.
 */
class DraftCostTest {
    private static final long MS = 1_000_000;

    @Test
    void nothingIsDraftedBeforeAStepOfThatManySequencesIsTimed() {
        var cost = new DraftCost(8, 0.15);
        assertThat(cost.pays(1)).isFalse();
        cost.targetStep(1, 0, 40 * MS);
        assertThat(cost.pays(1)).isTrue();
        assertThat(cost.pays(2)).isFalse();
    }

    @Test
    void oneStreamBreaksEvenAtTheDraftsCostPlusWhatItsRowAdds() {
        var cost = new DraftCost(8, 1.0 / 3);
        cost.targetStep(1, 0, 40 * MS);
        assertThat(cost.breakEven(1)).isCloseTo(1.0 / 3, within(1e-9)); // rows not measured yet: the first drafts measure them
        cost.targetStep(1, 2, 62 * MS); // two verification rows added 22 ms
        assertThat(cost.breakEven(1)).isCloseTo(1.0 / 3 + 11.0 / 40, within(1e-9));
        assertThat(cost.pays(1)).isTrue();
    }

    @Test
    void aDraftAsCostlyAsTheTargetNeverDrafts() {
        var cost = new DraftCost(8, 1.0);
        cost.targetStep(1, 0, 40 * MS);
        assertThat(cost.pays(1)).isFalse();
    }

    @Test
    void theDraftsPassesTakeOverFromTheGuessFromItsBytes() {
        var cost = new DraftCost(8, 0.2);
        cost.targetStep(1, 0, 40 * MS);
        assertThat(cost.pays(1)).isTrue();
        for (int pass = 0; pass < 50; pass++) cost.draftPass(1, 30 * MS);
        assertThat(cost.breakEven(1)).isCloseTo(0.75, within(0.01));
        assertThat(cost.pays(1)).isFalse();
        double before = cost.breakEven(1);
        cost.draftPass(2, 1 * MS); // no step of two sequences timed: nothing to compare with
        assertThat(cost.breakEven(1)).isEqualTo(before);
    }

    @Test
    void aSlowStepDoesNotTurnAGoodDraftOffForGood() {
        var cost = new DraftCost(8, 0.15);
        cost.targetStep(1, 0, 40 * MS);
        cost.targetStep(1, 1, 50 * MS);
        assertThat(cost.pays(1)).isTrue();
        cost.targetStep(1, 1, 2_000 * MS); // the machine stalled: a row counts for a step at most
        assertThat(cost.pays(1)).isTrue();
        for (int pass = 0; pass < 20; pass++) cost.draftPass(1, 400 * MS); // the draft's passes stalled too
        assertThat(cost.pays(1)).isFalse();
        // nothing drafts now, and only drafts measure c and r: steps without drafts bring them back to their estimates
        int steps = 0;
        while (!cost.pays(1) && steps < 1_000) {
            cost.targetStep(1, 0, 40 * MS);
            steps++;
        }
        assertThat(steps).isBetween(10, 300);
    }

    @Test
    void manyStreamsOnAComputeBoundMachineDoNotDraft() {
        // the quiet Xeon: eight streams' step 2.7 times one stream's, a row a quarter to a third of a one-stream step
        var cost = new DraftCost(8, 1.0 / 3);
        cost.targetStep(1, 0, 40 * MS);
        cost.targetStep(8, 0, 108 * MS);
        assertThat(cost.pays(1)).isTrue(); // the slope of the steps: 9.7 ms a row, break-even 0.58
        assertThat(cost.pays(8)).isFalse(); // 0.33 + 8 x 9.7 / 108
        cost.targetStep(1, 1, 51 * MS); // a verification row measured: 11 ms
        assertThat(cost.breakEven(8)).isCloseTo(1.0 / 3 + 8 * 11.0 / 108, within(1e-9));
        assertThat(cost.pays(8)).isFalse();
    }

    @Test
    void manyStreamsWhereDecodeIsBoundByReadingTheWeightsDraft() {
        // eight rows cost little more than one: a catalog pair's draft (c = 0.155) still pays
        var cost = new DraftCost(8, 0.155);
        cost.targetStep(1, 0, 40 * MS);
        cost.targetStep(8, 0, 48 * MS);
        assertThat(cost.breakEven(8)).isCloseTo(0.155 + 8 * (8.0 / 7) / 48, within(1e-9));
        assertThat(cost.pays(8)).isTrue();
    }

    @Test
    void withoutAnyRowMeasuredManyStreamsAssumeAStepHalfBoundByArithmetic() {
        var cost = new DraftCost(8, 1.0 / 3);
        cost.targetStep(8, 0, 100 * MS);
        assertThat(cost.breakEven(8)).isCloseTo(1.0 / 3 + DraftCost.UNMEASURED_ROW_SHARE, within(1e-9));
        assertThat(cost.pays(8)).isFalse();
        var catalogPair = new DraftCost(8, 0.155);
        catalogPair.targetStep(8, 0, 100 * MS);
        assertThat(catalogPair.pays(8)).isTrue();
    }
}
