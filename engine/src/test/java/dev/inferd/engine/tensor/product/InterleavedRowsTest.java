package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.QuantizerTest;
import dev.inferd.engine.tensor.parallel.TwoWorkerThreads;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.product.IntDotMatrix;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.tensor.product.TiledProduct;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.IntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * The interleaved copies ({@link InterleavedRows}) against the products they stand for: the decoded
 * weights times the activations as rounded to int8 blocks. Their integer sums are exact, so only float
 * rounding may part them, a bound a hundred times tighter than the double-precision tests of the
 * unrounded activations allow: a weight decoded one step off in a quarter of a block fails here and
 * passes there.
 */
@ExtendWith(TwoWorkerThreads.class)
class InterleavedRowsTest {
    @Test
    void aGroupIsALaneOfTheMachinesWidestVectorUnlessTheLayoutIsChosen() {
        String chosen = System.getProperty(InterleavedRows.GROUP_PROPERTY);
        int expected = chosen != null ? Integer.parseInt(chosen) : IntVector.SPECIES_PREFERRED.length() >= 16 ? 16 : 8;
        assertThat(InterleavedRows.GROUP).isEqualTo(expected);
        assertThat(InterleavedRows.GROUP_F.length()).isEqualTo(expected);
        assertThat(InterleavedRows.STEP_S.length()).as("a step: two values of each row").isEqualTo(2 * expected);
    }

    @ParameterizedTest
    @EnumSource(names = {"Q8_0", "Q4_0", "Q5_0", "Q4_K", "Q5_K", "Q6_K"})
    void generatedTokensMatchTheDecodedWeightsTimesTheRoundedActivations(GGMLType type) {
        int pass = InterleavedRows.ROWS_PER_PASS;
        check(type, pass, 512, 1);
        check(type, 3 * pass, 768, 3); // three passes: split unevenly over the two workers
        check(type, 20 * pass, 256, 2);
    }

    @ParameterizedTest
    @EnumSource(names = {"Q8_0", "Q4_0", "Q5_0", "Q4_K", "Q5_K", "Q6_K"})
    void everyRowDecodesFromTheCopyBitForBitAsStored(GGMLType type) {
        int rows = 3 * InterleavedRows.ROWS_PER_PASS, cols = 1024;
        byte[] bytes = Quantizer.randomBlocks(type, rows * cols / type.blockSize(), 11, 1f);
        var m = (IntDotMatrix) WeightMatrices.of(type, rows, cols, MemorySegment.ofArray(bytes));
        assertThat(m.hasCopy()).isTrue();
        float[] stored = Quantizer.dequantize(type, bytes, rows * cols);
        float[] copied = new float[rows * cols];
        for (int r = 0; r < rows; r++) m.dequantizeRow(r, copied, r * cols);
        assertThat(copied).isEqualTo(stored);

        // a run of columns from inside a row, as the tiled product's panels take them
        int from = 2 * type.blockSize(), count = 2 * type.blockSize();
        float[] run = new float[count];
        m.dequantize(37 * m.rowBytes + (long) from / type.blockSize() * type.blockBytes(), count, run, 0);
        assertThat(run).isEqualTo(java.util.Arrays.copyOfRange(stored, 37 * cols + from, 37 * cols + from + count));
    }

    @ParameterizedTest
    @EnumSource(names = {"Q8_0", "Q4_0", "Q5_0", "Q4_K", "Q5_K", "Q6_K"})
    void promptPanelsDecodeFromTheCopyBitForBitAsStored(GGMLType type) {
        int group = InterleavedRows.GROUP;
        int rows = 3 * InterleavedRows.ROWS_PER_PASS, cols = 2048, stride = Math.max(TiledProduct.WIDTH, 2 * group);
        byte[] bytes = Quantizer.randomBlocks(type, rows * cols / type.blockSize(), 13, 1f);
        var m = (IntDotMatrix) WeightMatrices.of(type, rows, cols, MemorySegment.ofArray(bytes));
        float[] stored = Quantizer.dequantize(type, bytes, rows * cols);
        // two groups from the second on (the first pass's second, the second pass's first), columns from
        // the second block on: nothing starts at zero
        int r0 = group, width = 2 * group, k0 = type.blockSize(), depth = 2 * 256;
        float[] panel = new float[depth * stride];
        assertThat(m.decodePanel(r0, width, k0, depth, panel, stride)).isTrue();
        for (int k = 0; k < depth; k++) {
            for (int i = 0; i < width; i++) {
                assertThat(panel[k * stride + i]).as("%s row %d column %d", type, r0 + i, k0 + k)
                        .isEqualTo(stored[(r0 + i) * cols + k0 + k]);
            }
        }
    }

    /**
     * The Q4_0, Q8_0, Q5_0, Q4_K and Q5_K copies keep the file's half scales (the k-quants' d and dmin) and their kernels widen them with a shift, a mask and a
     * multiply: subnormal, zero, negative and the largest halves must come out as {@link Float#float16ToFloat} gives
     * them. The bound here is relative only, so that a row of tiny scales is held to it too.
     */
    @ParameterizedTest
    @EnumSource(names = {"Q4_0", "Q8_0", "Q5_0", "Q4_K", "Q5_K"})
    void halfScalesOfEveryFiniteKindWidenExactly(GGMLType type) {
        short[] halves = {0x0001, (short) 0x8001, 0x03FF, (short) 0x83FF, 0x0400, (short) 0x8400, 0x0000, (short) 0x8000,
                0x7BFF, (short) 0xFBFF, 0x3C00, (short) 0xBC00, 0x1234, (short) 0x9234};
        int rows = 2 * InterleavedRows.ROWS_PER_PASS, cols = 512;
        int blocksPerRow = cols / type.blockSize();
        byte[] bytes = Quantizer.randomBlocks(type, rows * blocksPerRow, 5, 1f);
        for (int k = 0; k < rows * blocksPerRow; k++) {
            // a row's blocks share a kind of scale, or its sum would be the large ones' alone
            short half = halves[k / blocksPerRow % halves.length];
            bytes[k * type.blockBytes()] = (byte) half;
            bytes[k * type.blockBytes() + 1] = (byte) (half >> 8);
            if (type == GGMLType.Q4_K || type == GGMLType.Q5_K) { // dmin, a half as well, after d
                bytes[k * type.blockBytes() + 2] = (byte) half;
                bytes[k * type.blockBytes() + 3] = (byte) (half >> 8);
            }
        }
        check(type, rows, cols, 1, bytes, 0);
        check(type, rows, cols, 2, bytes, 0); // two entries: the batch kernel
        var m = (IntDotMatrix) WeightMatrices.of(type, rows, cols, MemorySegment.ofArray(bytes));
        float[] copied = new float[rows * cols];
        for (int r = 0; r < rows; r++) m.dequantizeRow(r, copied, r * cols);
        assertThat(copied).isEqualTo(Quantizer.dequantize(type, bytes, rows * cols));
    }

    /**
     * Per block and row the copies of the 32-value types take llama.cpp's float steps in its order: the block's
     * exact integer sum, converted, times the weight scale times the activation scale, added with one fused
     * multiply-add. Written here as scalar code over the stored bytes, every row's product must come out bit
     * for bit, for one activation row and for two (the batch kernel).
     */
    @ParameterizedTest
    @EnumSource(names = {"Q8_0", "Q4_0", "Q5_0"})
    void aCopiedRowIsTheBlockArithmeticOfItsStoredBytesBitForBit(GGMLType type) {
        int rows = 2 * InterleavedRows.ROWS_PER_PASS, cols = 1024, blocks = cols / 32;
        byte[] bytes = Quantizer.randomBlocks(type, rows * blocks, 17, 1f);
        var random = new java.util.Random(19);
        for (int k = 0; k < rows * blocks; k++) { // scales of many sizes and both signs
            short half = Float.floatToFloat16((random.nextBoolean() ? 1 : -1) * (float) Math.pow(2, -12 + 10 * random.nextDouble()));
            bytes[k * type.blockBytes()] = (byte) half;
            bytes[k * type.blockBytes() + 1] = (byte) (half >> 8);
        }
        var m = (IntDotMatrix) WeightMatrices.of(type, rows, cols, MemorySegment.ofArray(bytes));
        assertThat(m.rowUnit()).isEqualTo(InterleavedRows.ROWS_PER_PASS);
        for (int batch = 1; batch <= 2; batch++) {
            float[] x = QuantizerTest.randomValues(batch * cols, 23 + batch);
            float[] out = new float[batch * rows];
            m.multiply(x, batch, out, 0);
            var q8 = new Q8Activations();
            q8.quantize(x, 0, batch, cols, Q8Activations.Q8_0);
            float[] expected = new float[batch * rows];
            for (int b = 0; b < batch; b++) {
                for (int r = 0; r < rows; r++) {
                    float acc = 0;
                    for (int k = 0; k < blocks; k++) {
                        int at = (r * blocks + k) * type.blockBytes();
                        int sum = 0;
                        for (int j = 0; j < 32; j++) sum += storedValue(type, bytes, at, j) * q8.q[b * cols + 32 * k + j];
                        float scale = Float.float16ToFloat((short) (bytes[at] & 0xFF | bytes[at + 1] << 8));
                        acc = Math.fma((float) sum, scale * q8.d[b * blocks + k], acc);
                    }
                    expected[b * rows + r] = acc;
                }
            }
            assertThat(out).as("%s, %d activation rows", type, batch).containsExactly(expected);
        }
    }

    /** Value j of the stored block at {@code at} as the signed integer its scale multiplies (ggml's layouts). */
    private static int storedValue(GGMLType type, byte[] bytes, int at, int j) {
        return switch (type) {
            case Q8_0 -> bytes[at + 2 + j];
            case Q4_0 -> ((j < 16 ? bytes[at + 2 + j] : bytes[at + 2 + j - 16] >> 4) & 0x0F) - 8;
            case Q5_0 -> {
                int qh = bytes[at + 2] & 0xFF | (bytes[at + 3] & 0xFF) << 8 | (bytes[at + 4] & 0xFF) << 16 | (bytes[at + 5] & 0xFF) << 24;
                int nibble = (j < 16 ? bytes[at + 6 + j] : bytes[at + 6 + j - 16] >> 4) & 0x0F;
                yield (nibble | (qh >>> j & 1) << 4) - 16;
            }
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static void check(GGMLType type, int rows, int cols, int batch) {
        check(type, rows, cols, batch, Quantizer.randomBlocks(type, rows * cols / type.blockSize(), rows + cols, 1f), 1e-6);
    }

    private static void check(GGMLType type, int rows, int cols, int batch, byte[] bytes, double absoluteSlack) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment seg = arena.allocate(bytes.length, 64);
            MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
            var m = (IntDotMatrix) WeightMatrices.of(type, rows, cols, seg);
            assertThat(m.rowUnit()).as("%s %dx%d takes the interleaved copy", type, rows, cols).isEqualTo(InterleavedRows.ROWS_PER_PASS);
            float[] x = QuantizerTest.randomValues(batch * cols, 7);
            float[] out = new float[batch * rows];
            m.multiply(x, batch, out, 0);

            var rounded = new Q8Activations();
            rounded.quantize(x, 0, batch, cols, m.activationBlock());
            float[] xq = new float[batch * cols];
            for (int i = 0; i < xq.length; i++) xq[i] = rounded.rounded(i);
            float[] w = Quantizer.dequantize(type, bytes, rows * cols);
            for (int b = 0; b < batch; b++) {
                for (int r = 0; r < rows; r++) {
                    double sum = 0, size = 0;
                    for (int c = 0; c < cols; c++) {
                        double p = (double) w[r * cols + c] * xq[b * cols + c];
                        sum += p;
                        size += Math.abs(p);
                    }
                    assertThat((double) out[b * rows + r]).as("%s %dx%d entry %d row %d", type, rows, cols, b, r)
                            .isCloseTo(sum, offset(size * 1e-6 + absoluteSlack));
                }
            }
        }
    }
}
