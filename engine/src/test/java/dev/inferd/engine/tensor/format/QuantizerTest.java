package dev.inferd.engine.tensor.format;

import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

public class QuantizerTest {

    public static float[] randomValues(int n, long seed) {
        var rnd = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) rnd.nextGaussian();
        return v;
    }

    @Test
    void f32IsExact() {
        float[] v = randomValues(64, 1);
        assertThat(Quantizer.dequantize(GGMLType.F32, Quantizer.quantize(GGMLType.F32, v), 64)).containsExactly(v);
    }

    @Test
    void f16AndBf16ErrorIsWithinHalfAnUlpOfTheirMantissa() {
        float[] v = randomValues(256, 2);
        float[] f16 = Quantizer.dequantize(GGMLType.F16, Quantizer.quantize(GGMLType.F16, v), v.length);
        float[] bf16 = Quantizer.dequantize(GGMLType.BF16, Quantizer.quantize(GGMLType.BF16, v), v.length);
        for (int i = 0; i < v.length; i++) {
            if (Math.abs(v[i]) > 1e-4f) assertThat(f16[i]).isCloseTo(v[i], within(Math.abs(v[i]) * 0x1p-11f));
            assertThat(bf16[i]).isCloseTo(v[i], within(Math.abs(v[i]) * 0x1p-8f));
        }
    }

    @Test
    void bf16RoundsToNearestEven() {
        // 1 + 2^-8 is halfway between two bf16 values: ties go to the even one, 1.0
        assertThat(Quantizer.bf16ToFloat(Quantizer.floatToBf16(1f + 0x1p-8f))).isEqualTo(1f);
        assertThat(Quantizer.bf16ToFloat(Quantizer.floatToBf16(1f + 0x1p-8f + 0x1p-20f))).isEqualTo(1f + 0x1p-7f);
        assertThat(Float.isNaN(Quantizer.bf16ToFloat(Quantizer.floatToBf16(Float.NaN)))).isTrue();
    }

    @Test
    void q8_0ErrorIsAtMostHalfAStepPerBlock() {
        float[] v = randomValues(32 * 8, 3);
        float[] back = Quantizer.dequantize(GGMLType.Q8_0, Quantizer.quantize(GGMLType.Q8_0, v), v.length);
        for (int b = 0; b < v.length; b += 32) {
            float amax = 0;
            for (int j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(v[b + j]));
            float step = amax / 127;
            for (int j = 0; j < 32; j++) assertThat(back[b + j]).isCloseTo(v[b + j], within(step * 0.5f + amax * 1e-3f));
        }
    }

    @Test
    void q4_0ErrorIsAtMostOneStepPerBlock() {
        float[] v = randomValues(32 * 8, 4);
        float[] back = Quantizer.dequantize(GGMLType.Q4_0, Quantizer.quantize(GGMLType.Q4_0, v), v.length);
        for (int b = 0; b < v.length; b += 32) {
            float amax = 0;
            for (int j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(v[b + j]));
            float step = amax / 8;
            // half a step, except at the clamped end (+8 maps to 15, a full step away)
            for (int j = 0; j < 32; j++) assertThat(back[b + j]).isCloseTo(v[b + j], within(step * 1.001f));
        }
    }

    @Test
    void q8_0BlockMatchesTheGgmlFormulaByHand() {
        float[] v = new float[32];
        for (int j = 0; j < 32; j++) v[j] = (j - 10) * 0.1f;  // amax = 2.1 at j = 31
        v[5] = -2.54f;                                         // now amax = 2.54: d = 0.02
        byte[] q = Quantizer.quantize(GGMLType.Q8_0, v);
        assertThat(q).hasSize(34);
        float d = 2.54f / 127;
        short dBits = (short) ((q[0] & 0xFF) | (q[1] << 8));
        assertThat(dBits).isEqualTo(Float.floatToFloat16(d));
        assertThat(q[2 + 5]).isEqualTo((byte) -127);
        assertThat(q[2 + 10]).isEqualTo((byte) 0);
        // (31 - 10) * 0.1 / 0.02 = 105
        assertThat(q[2 + 31]).isEqualTo((byte) 105);
        // 0.1 / 0.02 = 5 (x * (1/d) in float is 5.0000005 or so; rounds to 5)
        assertThat(q[2 + 11]).isEqualTo((byte) 5);
    }

    @Test
    void q4_0BlockMatchesTheGgmlFormulaByHand() {
        float[] v = new float[32];
        v[0] = -4f;   // the largest magnitude, negative: d = -4 / -8 = 0.5, so x = (q - 8) * 0.5
        v[1] = 1f;    // q = 1/0.5 + 8 = 10
        v[16] = 3.5f; // q = 15
        v[17] = 0.2f; // 0.4 + 8.5 = 8.9 -> 8
        v[2] = -0.3f; // -0.6 + 8.5 = 7.9 -> 7
        byte[] q = Quantizer.quantize(GGMLType.Q4_0, v);
        assertThat(q).hasSize(18);
        assertThat((short) ((q[0] & 0xFF) | (q[1] << 8))).isEqualTo(Float.floatToFloat16(0.5f));
        assertThat(q[2] & 0x0F).isEqualTo(0);          // element 0: (-4 / 0.5) + 8 = 0
        assertThat((q[2] & 0xFF) >>> 4).isEqualTo(15);  // element 16
        assertThat(q[3] & 0x0F).isEqualTo(10);          // element 1
        assertThat((q[3] & 0xFF) >>> 4).isEqualTo(8);   // element 17
        assertThat(q[4] & 0x0F).isEqualTo(7);           // element 2
        assertThat((q[4] & 0xFF) >>> 4).isEqualTo(8);   // element 18 = 0

        float[] back = Quantizer.dequantize(GGMLType.Q4_0, q, 32);
        assertThat(back[0]).isEqualTo(-4f);
        assertThat(back[1]).isEqualTo(1f);
        assertThat(back[16]).isEqualTo(3.5f);
        assertThat(back[2]).isEqualTo(-0.5f);
        assertThat(back[31]).isEqualTo(0f);
    }

    @Test
    void positiveMaxQ4_0ClampsTo15() {
        float[] v = new float[32];
        v[0] = 8f; // d = 8 / -8 = -1, q = -8 + 8.5 = 0.5 -> 0 ; value (0 - 8) * -1 = 8
        v[1] = -8f; // q = 8 + 8.5 = 16.5 -> 16 -> clamped to 15 ; value (15 - 8) * -1 = -7
        float[] back = Quantizer.dequantize(GGMLType.Q4_0, Quantizer.quantize(GGMLType.Q4_0, v), 32);
        assertThat(back[0]).isEqualTo(8f);
        assertThat(back[1]).isEqualTo(-7f);
    }
}
