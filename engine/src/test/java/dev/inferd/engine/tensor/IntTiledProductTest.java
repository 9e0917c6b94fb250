package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The integer GEMM of a Q4_0 copy ({@link IntTiledProduct}): every row it computes is bit for bit the row
 * kernel's ({@link Q4_0Interleaved#dot}), so that a batch may take either path by its size alone, and close
 * to a double-precision product. Shapes that end inside a panel (rows), a panel depth (columns) and a tile
 * (activation rows).
 */
@ExtendWith(TwoWorkerThreads.class)
class IntTiledProductTest {
    /** Three passes (a panel and a half), four: two whole panels, five: two and a half. */
    private static final int[] ROWS = {96, 128, 160};
    /** One panel depth and a part of one; several depths. */
    private static final int[] COLS = {IntTiledProduct.DEPTH + 160, 2048};
    private static final int[] BATCHES = {IntTiledProduct.MIN_BATCH, IntTiledProduct.MIN_BATCH + 1, IntTiledProduct.MIN_BATCH + IntTiledProduct.ROWS + 3};

    @BeforeEach
    void needs512BitVectors() {
        assumeThat(IntTiledProduct.supports(InterleavedRows.GROUP)).as("512-bit vectors and groups of 16 rows").isTrue();
    }

    @Test
    void everyRowIsTheRowKernelsBitForBit() {
        try (Arena arena = Arena.ofShared()) {
            for (int rows : ROWS) {
                for (int cols : COLS) {
                    WeightMatrix m = matrix(arena, rows, cols, rows + cols);
                    for (int batch : BATCHES) {
                        float[] x = QuantizerTest.randomValues(batch * cols, batch);
                        float[] out = new float[batch * rows];
                        m.multiply(x, batch, out, batch);
                        for (int b = 0; b < batch; b++) {
                            float[] alone = new float[rows];
                            m.multiply(Arrays.copyOfRange(x, b * cols, (b + 1) * cols), 1, alone);
                            assertThat(Arrays.copyOfRange(out, b * rows, (b + 1) * rows))
                                    .as("%d x %d, row %d of a batch of %d", rows, cols, b, batch)
                                    .containsExactly(alone);
                        }
                    }
                }
            }
        }
    }

    @Test
    void manyRowsAreCloseToADoublePrecisionProduct() {
        try (Arena arena = Arena.ofShared()) {
            int rows = 160, cols = IntTiledProduct.DEPTH + 160, batch = IntTiledProduct.MIN_BATCH + 5;
            byte[] bytes = Quantizer.quantize(GGMLType.Q4_0, QuantizerTest.randomValues(rows * cols, 5));
            WeightMatrix m = matrix(arena, bytes, rows, cols);
            float[] x = QuantizerTest.randomValues(batch * cols, 6);
            float[] out = new float[batch * rows];
            m.multiply(x, batch, out, batch - 3);
            WeightMatrixTest.assertCloseToReference(m, Quantizer.dequantize(GGMLType.Q4_0, bytes, rows * cols), x, out,
                    "Q4_0 160 x " + cols + ", a batch of " + batch);
        }
    }

    @Test
    void theMachineTakesTheIntegerProduct() {
        try (Arena arena = Arena.ofShared()) {
            assertThat(matrix(arena, 96, 256, 1)).isInstanceOfSatisfying(MappedMatrix.class,
                    matrix -> assertThat(matrix.rolesShareBits()).isTrue());
        }
    }

    private static WeightMatrix matrix(Arena arena, int rows, int cols, long seed) {
        return matrix(arena, Quantizer.quantize(GGMLType.Q4_0, QuantizerTest.randomValues(rows * cols, seed)), rows, cols);
    }

    private static WeightMatrix matrix(Arena arena, byte[] bytes, int rows, int cols) {
        MemorySegment seg = arena.allocate(bytes.length, 64);
        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return WeightMatrix.of(GGMLType.Q4_0, rows, cols, seg);
    }
}
