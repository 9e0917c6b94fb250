package dev.inferd.engine.tensor.format;

import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.parallel.TwoWorkerThreads;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.product.IntDotMatrix;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(TwoWorkerThreads.class)
public class WeightMatrixTest {
    // 37 rows: odd, and not a multiple of the row tile or of the tasks; 96 cols: a multiple of 32 but
    // not of 64, and not of any vector length on the 512-bit machines; 416: longer, also 32 * odd.
    private static final int ROWS = 37;

    /** Double-precision products over the reference dequantization of the same bytes. */
    static float[] reference(WeightMatrix m, byte[] bytes, float[] x, int batch) {
        float[] w = Quantizer.dequantize(m.type(), bytes, m.rows() * m.cols());
        float[] out = new float[batch * m.rows()];
        for (int b = 0; b < batch; b++) {
            for (int r = 0; r < m.rows(); r++) {
                double s = 0;
                for (int c = 0; c < m.cols(); c++) s += (double) w[r * m.cols() + c] * x[b * m.cols() + c];
                out[b * m.rows() + r] = (float) s;
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(names = {"F32", "F16", "BF16", "Q8_0", "Q4_0"})
    void multiplyMatchesADoublePrecisionReference(GGMLType type) {
        for (int cols : new int[] {96, 416}) {
            for (int batch : new int[] {1, 5, 8}) {
                checkMultiply(type, ROWS, cols, batch);
            }
        }
        checkMultiply(type, 700, 96, 1); // big enough to be split over the pool
        checkMultiply(type, 300, 416, 9);
        checkMultiply(type, 300, 416, 2);
        // prefill-sized batches: rows not a multiple of a task's share, batch not a multiple of four
        checkMultiply(type, ROWS, 96, 17);
        checkMultiply(type, 300, 416, 23);
        // rows in whole sets of 16, which Q4_0 multiplies through its interleaved copy, split over the pool
        checkMultiply(type, 704, 96, 1);
        checkMultiply(type, 320, 416, 3);
    }

    private static void checkMultiply(GGMLType type, int rows, int cols, int batch) {
        try (Arena arena = Arena.ofShared()) {
            float[] values = QuantizerTest.randomValues(rows * cols, 11);
            byte[] bytes = Quantizer.quantize(type, values);
            MemorySegment seg = arena.allocate(bytes.length + 1L, 64).asSlice(1, bytes.length);
            MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
            WeightMatrix m = WeightMatrices.of(type, rows, cols, seg);
            float[] x = QuantizerTest.randomValues(batch * cols, 12);
            float[] out = new float[batch * rows];
            m.multiply(x, batch, out);
            float[] expected = reference(m, bytes, x, batch);
            // error relative to the size of the terms: |sum| can cancel to near zero
            float[] w = Quantizer.dequantize(type, bytes, rows * cols);
            for (int i = 0; i < out.length; i++) {
                int b = i / rows;
                int r = i % rows;
                double scale = 0;
                for (int c = 0; c < cols; c++) scale += Math.abs((double) w[r * cols + c] * x[b * cols + c]);
                assertThat((double) Math.abs(out[i] - expected[i]))
                        .as("%s %dx%d batch %d at %d", type, rows, cols, batch, i)
                        .isLessThanOrEqualTo(scale * 1e-5 + 1e-6 + activationQuantization(m, w, x, r, b));
            }
        }
    }

    /**
     * Checks {@code out} (a batch of {@code x}'s rows times {@code m}) against the double-precision
     * products with the decoded weights {@code w}: within float rounding of the sum of |products|,
     * plus what rounding the activations to int8 blocks may add for the types that do.
     */
    public static void assertCloseToReference(WeightMatrix m, float[] w, float[] x, float[] out, String what) {
        int rows = m.rows(), cols = m.cols();
        for (int i = 0; i < out.length; i++) {
            int b = i / rows, r = i % rows;
            double sum = 0, scale = 0;
            for (int c = 0; c < cols; c++) {
                double p = (double) w[r * cols + c] * x[b * cols + c];
                sum += p;
                scale += Math.abs(p);
            }
            assertThat((double) Math.abs(out[i] - sum))
                    .as("%s at %d", what, i)
                    .isLessThanOrEqualTo(scale * 1e-5 + 1e-6 + activationQuantization(m, w, x, r, b));
        }
    }

    /**
     * The most that quantizing the activations to int8 blocks (as llama.cpp does, for the types that
     * multiply in integers) can move row {@code r}'s product with entry {@code b}: each x moves by at
     * most half a step (max |x| of its block / 254) plus the rounding of the step (fp16 for Q8_0 blocks:
     * 2^-11 of max |x|), so the product by at most sum |w| times that. Zero for the types that multiply
     * in floats.
     */
    static double activationQuantization(WeightMatrix m, float[] w, float[] x, int r, int b) {
        if (!(m instanceof IntDotMatrix matrix)) return 0;
        int cols = m.cols();
        int block = matrix.activationBlock();
        double stepRounding = block == Q8Activations.Q8_0 ? 1.0 / 2048 : 1e-6;
        double bound = 0;
        for (int c = 0; c < cols; c += block) {
            double amax = 0, wsum = 0;
            for (int j = c; j < c + block; j++) {
                amax = Math.max(amax, Math.abs(x[b * cols + j]));
                wsum += Math.abs(w[r * cols + j]);
            }
            bound += wsum * amax * (1.0 / 254 + stepRounding);
        }
        return bound;
    }

    @ParameterizedTest
    @EnumSource(names = {"F32", "F16", "BF16", "Q8_0", "Q4_0"})
    void dequantizeRowMatchesTheReference(GGMLType type) {
        try (Arena arena = Arena.ofShared()) {
            float[] values = QuantizerTest.randomValues(5 * 64, 3);
            byte[] bytes = Quantizer.quantize(type, values);
            MemorySegment seg = arena.allocate(bytes.length);
            MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
            WeightMatrix m = WeightMatrices.of(type, 5, 64, seg);
            assertThat(m.toFloatArray()).containsExactly(Quantizer.dequantize(type, bytes, 5 * 64));
            float[] row = new float[70];
            m.dequantizeRow(3, row, 6);
            float[] ref = Quantizer.dequantize(type, bytes, 5 * 64);
            for (int c = 0; c < 64; c++) assertThat(row[6 + c]).isEqualTo(ref[3 * 64 + c]);
        }
    }

    @Test
    void f32AndHalvesHandleRowsThatAreNotAWholeNumberOfVectors() {
        for (GGMLType type : new GGMLType[] {GGMLType.F32, GGMLType.F16, GGMLType.BF16}) {
            for (int cols : new int[] {1, 7, 19}) {
                for (int batch : new int[] {1, 4, 6}) checkMultiply(type, 3, cols, batch);
            }
        }
    }

    @Test
    void f16WidensSubnormalsAndSignsExactly() {
        short[] halves = {0x0001, (short) 0x8001, 0x03FF, 0x0400, 0x3C00, (short) 0xBC00, 0x7BFF, (short) 0xFBFF, 0, (short) 0x8000,
                0x3555, (short) 0xC123, 0x0200, 0x1234, 0x5678, (short) 0x9ABC};
        MemorySegment seg = MemorySegment.ofArray(new byte[halves.length * 2]);
        for (int i = 0; i < halves.length; i++) seg.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2L * i, halves[i]);
        WeightMatrix m = WeightMatrices.of(GGMLType.F16, 1, halves.length, seg);
        for (int i = 0; i < halves.length; i++) {
            float[] x = new float[halves.length];
            x[i] = 1;
            float[] out = new float[1];
            m.multiply(x, 1, out);
            assertThat(out[0]).as("half %04x", halves[i]).isEqualTo(Float.float16ToFloat(halves[i]));
        }
    }

    @Test
    void q8_0AndQ4_0BlocksWrittenByHand() {
        // Q8_0: d = 0.5 (fp16 0x3800), q = 0, 1, -2, 3, ... : value = q * d
        byte[] q8 = new byte[34];
        q8[0] = 0x00;
        q8[1] = 0x38;
        for (int j = 0; j < 32; j++) q8[2 + j] = (byte) ((j % 2 == 0 ? 1 : -1) * j * 4);
        // Q4_0: d = -0.25 (fp16 0xB400); byte j = low nibble j % 16, high nibble 15 - j % 16
        byte[] q4 = new byte[18];
        q4[0] = 0x00;
        q4[1] = (byte) 0xB4;
        for (int j = 0; j < 16; j++) q4[2 + j] = (byte) ((j & 0x0F) | ((15 - j) << 4));

        // integers up to 127: exact also where the activations are quantized to int8 (max |x| / 127 = 1)
        float[] x = new float[32];
        for (int j = 0; j < 32; j++) x[j] = j == 31 ? 127 : j + 1;

        double expected8 = 0;
        for (int j = 0; j < 32; j++) expected8 += ((j % 2 == 0 ? 1 : -1) * j * 4) * 0.5 * x[j];
        double expected4 = 0;
        for (int j = 0; j < 16; j++) {
            expected4 += (j - 8) * -0.25 * x[j];                 // element j: low nibble
            expected4 += ((15 - j) - 8) * -0.25 * x[16 + j];     // element 16 + j: high nibble
        }
        float[] out = new float[1];
        WeightMatrices.of(GGMLType.Q8_0, 1, 32, MemorySegment.ofArray(q8)).multiply(x, 1, out);
        assertThat(out[0]).isEqualTo((float) expected8);
        WeightMatrices.of(GGMLType.Q4_0, 1, 32, MemorySegment.ofArray(q4)).multiply(x, 1, out);
        assertThat(out[0]).isEqualTo((float) expected4);

        float[] row = new float[32];
        WeightMatrices.of(GGMLType.Q4_0, 1, 32, MemorySegment.ofArray(q4)).dequantizeRow(0, row, 0);
        assertThat(row[0]).isEqualTo(2f);      // (0 - 8) * -0.25
        assertThat(row[16]).isEqualTo(-1.75f); // (15 - 8) * -0.25
        assertThat(row[31]).isEqualTo(2f);     // (0 - 8) * -0.25
    }

    @Test
    void rejectsMismatchedSizes() {
        assertThatThrownBy(() -> WeightMatrices.of(GGMLType.Q8_0, 2, 32, MemorySegment.ofArray(new byte[60])))
                .hasMessageContaining("68 bytes");
        assertThatThrownBy(() -> WeightMatrices.of(GGMLType.Q4_0, 1, 48, MemorySegment.ofArray(new byte[27])))
                .hasMessageContaining("block size");
        assertThatThrownBy(() -> WeightMatrices.of(GGMLType.IQ2_XXS, 1, 256, MemorySegment.ofArray(new byte[66])))
                .isInstanceOf(UnsupportedOperationException.class);
        WeightMatrix m = WeightMatrices.of(GGMLType.F32, 2, 4, MemorySegment.ofArray(new byte[32]));
        assertThatThrownBy(() -> m.multiply(new float[4], 2, new float[4])).hasMessageContaining("x has 4 floats");
        assertThatThrownBy(() -> m.multiply(new float[8], 2, new float[3])).hasMessageContaining("out has 3 floats");
    }
}
