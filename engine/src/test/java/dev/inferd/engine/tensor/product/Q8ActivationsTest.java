package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.product.Q8Activations;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The activations' scales come from the largest magnitude as ggml finds it, whatever its sign and place. */
class Q8ActivationsTest {
    @Test
    void q8_0ScalesByTheLargestMagnitudeEvenWhenNegative() {
        float[] x = new float[64];
        for (int i = 0; i < x.length; i++) x[i] = 0.01f * (i % 7);
        x[13] = -3f;  // block 0's largest magnitude, negative
        x[40] = 2.5f; // block 1's
        x[41] = -2.5f;
        var q = new Q8Activations();
        q.quantize(x, 0, 2, 32, Q8Activations.Q8_0);

        assertThat(q.d[0]).isEqualTo(Float.float16ToFloat(Float.floatToFloat16(3f / 127f)));
        assertThat(q.q[13]).isEqualTo((short) -127);
        assertThat(q.d[1]).isEqualTo(Float.float16ToFloat(Float.floatToFloat16(2.5f / 127f)));
        assertThat(q.q[40]).isEqualTo((short) 127);
        assertThat(q.q[41]).isEqualTo((short) -127);
    }

    @Test
    void q8_kTakesTheFirstValueOfTheLargestMagnitudeWithItsSign() {
        float[] x = new float[256];
        for (int i = 0; i < x.length; i++) x[i] = 0.001f * (i % 11);
        x[100] = -5f;
        x[200] = 5f; // as large, later: ggml's loop keeps the first
        var q = new Q8Activations();
        q.quantize(x, 0, 1, 256, Q8Activations.Q8_K);

        assertThat(q.d[0]).isEqualTo(1f / (-127f / -5f));
        assertThat(q.q[100]).isEqualTo((short) -127);
        assertThat(q.q[200]).isEqualTo((short) 127);
    }

    @Test
    void aBlockWithANanGetsNoScaleFromIt() {
        float[] x = new float[256];
        Arrays.fill(x, 1f);
        x[7] = Float.NaN;
        var q = new Q8Activations();
        q.quantize(x, 0, 1, 256, Q8Activations.Q8_K);

        assertThat(q.d[0]).isZero();
        assertThat(q.q[0]).isZero();
    }
}
