package dev.inferd.engine.tensor.vector;

import dev.inferd.engine.tensor.vector.Lanes;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LanesTest {
    private static final float[] EIGHT = new float[8];

    private static float exp(float x) {
        java.util.Arrays.fill(EIGHT, x);
        return Lanes.expNonPositive(FloatVector.fromArray(FloatVector.SPECIES_256, EIGHT, 0)).lane(3);
    }

    @Test
    void expIsWithinTwoUlpOfTheExactValueOverTheSoftmaxRange() {
        float worst = 0;
        for (float x = 0f; x > -87f; x -= 0.0037f) {
            double exact = Math.exp(x);
            float ulps = (float) (Math.abs(exp(x) - exact) / Math.ulp((float) exact));
            worst = Math.max(worst, ulps);
        }
        assertTrue(worst <= 2f, "worst error " + worst + " ulp");
    }

    @Test
    void expIsExactAtZeroAndZeroBelowTheNormalRange() {
        assertEquals(1f, exp(0f));
        assertEquals(0f, exp(-88f));
        assertEquals(0f, exp(-1e30f));
        assertEquals(0f, exp(Float.NEGATIVE_INFINITY));
    }

    @Test
    void expGivesEachLaneItsOwnValue() {
        float[] x = {0f, -0.5f, -1f, -2f, -10f, -50f, -100f, Float.NEGATIVE_INFINITY};
        float[] e = new float[8];
        Lanes.expNonPositive(FloatVector.fromArray(FloatVector.SPECIES_256, x, 0)).intoArray(e, 0);
        for (int i = 0; i < 8; i++) assertEquals(exp(x[i]), e[i], "lane " + i);
        assertEquals((float) Math.exp(-1), e[2], Math.ulp((float) Math.exp(-1)) * 2);
    }

    @Test
    void sumAddsTheLanesInItsFixedOrder() {
        float[] v = {1e8f, 1f, -1e8f, 1f, 3f, 4f, 5f, 6f};
        // rotations by 4, 2, 1: ((v0+v4)+(v2+v6)) + ((v1+v5)+(v3+v7)), every step rounded to float
        float a = 1e8f + 3f, b = 1f + 4f, c = -1e8f + 5f, d = 1f + 6f;
        float expected = (a + c) + (b + d);
        assertEquals(expected, Lanes.sum(FloatVector.fromArray(FloatVector.SPECIES_256, v, 0)));
        float[] w = new float[16];
        for (int i = 0; i < 16; i++) w[i] = i + 1;
        assertEquals(136f, Lanes.sum(FloatVector.fromArray(FloatVector.SPECIES_512, w, 0)));
    }

    @Test
    void softmaxNumeratorsReplaceTheValuesUpToCountAndSumThem() {
        float[] v = new float[16];
        for (int i = 0; i < v.length; i++) v[i] = -0.25f * i;
        float sum = Lanes.softmaxNumerators(v, 13, 0.5f);
        double expected = 0;
        for (int i = 0; i < 13; i++) {
            double exact = Math.exp(-0.25 * i - 0.5);
            expected += exact;
            assertEquals(exact, v[i], 2 * Math.ulp((float) exact), "value " + i);
        }
        assertEquals(expected, sum, 1e-5);
        for (int i = 13; i < 16; i++) assertEquals(-0.25f * i, v[i], "past the count, untouched: " + i);
    }
}
