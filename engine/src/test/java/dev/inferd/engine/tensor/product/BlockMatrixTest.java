package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.QuantizerTest;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.format.WeightMatrixTest;
import dev.inferd.engine.tensor.parallel.TwoWorkerThreads;
import dev.inferd.engine.tensor.format.WeightMatrices;
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

/**
 * The kernels of Q4_1, Q5_0, Q5_1, Q2_K-Q6_K, IQ4_NL and IQ4_XS: their decoding equals the scalar
 * reference bit for bit, and their products match double-precision sums over it, on random valid
 * blocks (every bit pattern occurs).
 */
@ExtendWith(TwoWorkerThreads.class)
class BlockMatrixTest {
    private static final String TYPES = "Q4_1|Q5_0|Q5_1|Q2_K|Q3_K|Q4_K|Q5_K|Q6_K|IQ4_NL|IQ4_XS";

    /** Row lengths: one and three super-blocks, or for 32-value blocks a multiple of 32 that is not of 256. */
    private static int[] widths(GGMLType type) {
        return type.blockSize() == 256 ? new int[] {256, 768} : new int[] {96, 416};
    }

    @ParameterizedTest
    @EnumSource(mode = EnumSource.Mode.MATCH_ALL, names = TYPES)
    void dequantizeRowIsTheReferenceDecodingExactly(GGMLType type) {
        for (int cols : widths(type)) {
            int rows = 5;
            byte[] bytes = Quantizer.randomBlocks(type, rows * cols / type.blockSize(), 3, 1f);
            WeightMatrix m = WeightMatrices.of(type, rows, cols, MemorySegment.ofArray(bytes));
            float[] expected = Quantizer.dequantize(type, bytes, rows * cols);
            float[] row = new float[cols + 3];
            for (int r = 0; r < rows; r++) {
                m.dequantizeRow(r, row, 3);
                for (int c = 0; c < cols; c++) {
                    assertThat(row[3 + c]).as("%s row %d col %d", type, r, c).isEqualTo(expected[r * cols + c]);
                }
            }
            assertThat(m.toFloatArray()).containsExactly(expected);
        }
    }

    @ParameterizedTest
    @EnumSource(mode = EnumSource.Mode.MATCH_ALL, names = TYPES)
    void multiplyMatchesADoublePrecisionReference(GGMLType type) {
        for (int cols : widths(type)) {
            for (int batch : new int[] {1, 3, 8}) checkMultiply(type, 37, cols, batch);
        }
        checkMultiply(type, 300, widths(type)[1], 1); // split over the pool
        checkMultiply(type, 300, widths(type)[0], 9);
        // rows in whole sets of 16, which Q4_K multiplies through its interleaved copy, split over the pool
        checkMultiply(type, 320, widths(type)[1], 1);
        checkMultiply(type, 160, widths(type)[0], 3);
    }

    @ParameterizedTest
    @EnumSource(mode = EnumSource.Mode.MATCH_ALL, names = TYPES)
    void randomBlocksHaveTheAskedMagnitude(GGMLType type) {
        byte[] bytes = Quantizer.randomBlocks(type, 64, 5, 0.5f);
        float[] v = Quantizer.dequantize(type, bytes, 64 * type.blockSize());
        double sumSquares = 0, amax = 0;
        for (float f : v) {
            sumSquares += f * f;
            amax = Math.max(amax, Math.abs(f));
        }
        double rms = Math.sqrt(sumSquares / v.length);
        assertThat(amax).as("%s largest", type).isLessThanOrEqualTo(1.01); // twice the scale, and fp16 rounding
        assertThat(rms).as("%s rms", type).isBetween(0.02, 0.5);
    }

    private static void checkMultiply(GGMLType type, int rows, int cols, int batch) {
        try (Arena arena = Arena.ofShared()) {
            byte[] bytes = Quantizer.randomBlocks(type, rows * cols / type.blockSize(), rows + cols, 1f);
            // a misaligned copy: the kernels must not assume alignment
            MemorySegment seg = arena.allocate(bytes.length + 1L, 64).asSlice(1, bytes.length);
            MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
            WeightMatrix m = WeightMatrices.of(type, rows, cols, seg);
            assertThat(m.type()).isEqualTo(type);
            float[] x = QuantizerTest.randomValues(batch * cols, 12);
            float[] out = new float[batch * rows];
            m.multiply(x, batch, out);
            float[] w = Quantizer.dequantize(type, bytes, rows * cols);
            WeightMatrixTest.assertCloseToReference(m, w, x, out, String.format("%s %dx%d batch %d", type, rows, cols, batch));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"Q4_1", "Q5_0", "Q5_1", "Q4_K", "Q5_K", "Q6_K"})
    void quantizeRoundTripsWithASmallError(GGMLType type) {
        float[] v = QuantizerTest.randomValues(1024, 7);
        float[] back = Quantizer.dequantize(type, Quantizer.quantize(type, v), v.length);
        double err = 0, norm = 0;
        for (int i = 0; i < v.length; i++) {
            err += (v[i] - back[i]) * (v[i] - back[i]);
            norm += v[i] * v[i];
        }
        double bits = switch (type) {
            case Q4_1, Q4_K -> 4;
            case Q5_0, Q5_1, Q5_K -> 5;
            default -> 6;
        };
        // uniform rounding over a range of about 6 sigma in 2^bits steps, with room for the coarse scales
        double expected = 6 / Math.pow(2, bits) / Math.sqrt(12);
        assertThat(Math.sqrt(err / norm)).as("%s relative rms error", type).isLessThan(2 * expected);
    }

    // ---- hand-built blocks, decoded from the block formulas ----

    @Test
    void q4_KHandBuiltBlock() {
        byte[] b = new byte[144];
        putHalf(b, 0, 0.5f);   // d
        putHalf(b, 2, 0.25f);  // dmin
        b[4] = 3;              // scale 0 = 3 (+ top bits of scale 4 = 1 in bits 6-7)
        b[4] |= (byte) (1 << 6);
        b[8] = 2;              // min 0 = 2
        b[12] = 0x25;          // scale 4 low bits 5, min 4 low bits 2: scale 4 = 5 | 1 << 4 = 21
        b[16] = (byte) 0x97;   // value 0: q 7, value 32: q 9
        b[16 + 32 * 2] = 0x0F; // value 128 (sub-block 4): q 15
        float[] v = decode(GGMLType.Q4_K, b, 256);
        assertThat(v[0]).isEqualTo(0.5f * 3 * 7 - 0.25f * 2);
        assertThat(v[1]).isEqualTo(-0.25f * 2);
        assertThat(v[128]).isEqualTo(0.5f * 21 * 15 - 0.25f * 2);
        assertThat(v[32]).isEqualTo(0f * 9); // sub-block 1: scale 0, min 0
    }

    @Test
    void q6_KHandBuiltBlock() {
        byte[] b = new byte[210];
        putHalf(b, 208, 0.5f);     // d
        b[192] = 2;                // scale of values 0-15
        b[192 + 6] = -3;           // scale of values 96-111
        b[0] = 0x15;               // value 0 low nibble 5, value 64 low nibble 1
        b[32] = (byte) 0xF0;       // value 96 low nibble 15
        b[128] = (byte) 0b11_00_00_10; // value 0 high bits 2, value 96 high bits 3
        float[] v = decode(GGMLType.Q6_K, b, 256);
        assertThat(v[0]).isEqualTo(0.5f * 2 * ((5 | 2 << 4) - 32));
        assertThat(v[96]).isEqualTo(0.5f * -3 * ((15 | 3 << 4) - 32));
    }

    @Test
    void q5_0HandBuiltBlock() {
        byte[] b = new byte[22];
        putHalf(b, 0, 0.5f);
        b[2] = 1;          // fifth bit of value 0
        b[5] = (byte) 0x80; // fifth bit of value 31
        b[6] = 0x73;       // value 0 low 3, value 16 low 7
        b[6 + 15] = (byte) 0xF0; // value 31 low 15
        float[] v = decode(GGMLType.Q5_0, b, 32);
        assertThat(v[0]).isEqualTo((19 - 16) * 0.5f);
        assertThat(v[16]).isEqualTo((7 - 16) * 0.5f);
        assertThat(v[31]).isEqualTo((31 - 16) * 0.5f);
        assertThat(v[1]).isEqualTo(-8f);
    }

    @Test
    void q3_KHandBuiltBlock() {
        byte[] b = new byte[110];
        putHalf(b, 108, 0.25f);
        b[96] = 0x05;              // scale 0 low bits 5 (scale 8 low bits 0)
        b[96 + 8] = 0b10;          // scale 0 high bits 2: scale 0 = 37 - 32 = 5
        b[32] = 0b01_00_00_11;     // value 0: low bits 3; value 96: low bits 1
        b[0] = 0b0000_0001;        // value 0 high bit set (no -4)
        float[] v = decode(GGMLType.Q3_K, b, 256);
        assertThat(v[0]).isEqualTo(0.25f * 5 * 3);
        assertThat(v[1]).isEqualTo(0.25f * 5 * -4);
        assertThat(v[96]).isEqualTo(0.25f * -32 * (1 - 4)); // scale 6 is 0 - 32
    }

    @Test
    void iq4_XsHandBuiltBlock() {
        byte[] b = new byte[136];
        putHalf(b, 0, 0.5f);
        putShort(b, 2, 0b10 << 2); // sub-block 1 scale high bits 2
        b[4] = 0x30;               // sub-block 0 low 0, sub-block 1 low 3: scale 1 = 35 - 32 = 3
        b[8 + 16] = (byte) 0xF0;   // sub-block 1: value 32 level 0 (-127), value 48 level 15 (113)
        float[] v = decode(GGMLType.IQ4_XS, b, 256);
        assertThat(v[32]).isEqualTo(0.5f * 3 * -127);
        assertThat(v[48]).isEqualTo(0.5f * 3 * 113);
        assertThat(v[0]).isEqualTo(0.5f * -32 * -127);
    }

    /** Decodes with the reference and checks the kernel's row decoding agrees. */
    private static float[] decode(GGMLType type, byte[] block, int count) {
        float[] ref = Quantizer.dequantize(type, block, count);
        float[] row = new float[count];
        WeightMatrices.of(type, 1, count, MemorySegment.ofArray(block)).dequantizeRow(0, row, 0);
        assertThat(row).containsExactly(ref);
        return ref;
    }

    private static void putHalf(byte[] b, int at, float v) {
        putShort(b, at, Float.floatToFloat16(v));
    }

    private static void putShort(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
    }
}
