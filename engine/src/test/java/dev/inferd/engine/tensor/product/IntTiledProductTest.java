package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.QuantizerTest;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.format.WeightMatrixTest;
import dev.inferd.engine.tensor.parallel.TwoWorkerThreads;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.product.IntTiledProduct;
import dev.inferd.engine.tensor.product.MappedMatrix;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The integer GEMM of a Q4_0 or Q4_K copy ({@link IntTiledProduct}): every row it computes is bit for bit the row
 * kernel's ({@link InterleavedRows#dot}), so that a batch may take either path by its size alone, and close to a
 * double-precision product. Shapes that end inside a panel (rows), a panel depth (columns) and a tile
 * (activation rows).
 */
@ExtendWith(TwoWorkerThreads.class)
class IntTiledProductTest {
    /** Three passes (a panel and a half), four: two whole panels, five: two and a half. */
    private static final int[] ROWS = {96, 128, 160};
    private static final int[] BATCHES = {IntTiledProduct.MIN_BATCH, IntTiledProduct.MIN_BATCH + 1, IntTiledProduct.MIN_BATCH + IntTiledProduct.ROWS + 3};

    @BeforeEach
    void needs512BitVectors() {
        assumeThat(IntTiledProduct.SUPPORTED).as("512-bit vectors and groups of 16 rows").isTrue();
    }

    /** One panel depth and a part of one (a block of the type past it), and exactly one. */
    private static int[] cols(GGMLType type) {
        return new int[] {IntTiledProduct.DEPTH + type.blockSize(), IntTiledProduct.DEPTH};
    }

    @ParameterizedTest
    @EnumSource(names = {"Q4_0", "Q4_K"})
    void everyRowIsTheRowKernelsBitForBit(GGMLType type) {
        try (Arena arena = Arena.ofShared()) {
            for (int rows : ROWS) {
                for (int cols : cols(type)) {
                    WeightMatrix m = matrix(arena, type, weights(type, rows, cols, rows + cols), rows, cols);
                    for (int batch : BATCHES) {
                        float[] x = QuantizerTest.randomValues(batch * cols, batch);
                        float[] out = new float[batch * rows];
                        m.multiply(x, batch, out, batch);
                        for (int b = 0; b < batch; b++) {
                            float[] alone = new float[rows];
                            m.multiply(Arrays.copyOfRange(x, b * cols, (b + 1) * cols), 1, alone);
                            assertThat(Arrays.copyOfRange(out, b * rows, (b + 1) * rows))
                                    .as("%s %d x %d, row %d of a batch of %d", type, rows, cols, b, batch)
                                    .containsExactly(alone);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"Q4_0", "Q4_K"})
    void manyRowsAreCloseToADoublePrecisionProduct(GGMLType type) {
        try (Arena arena = Arena.ofShared()) {
            int rows = 160, cols = IntTiledProduct.DEPTH + type.blockSize(), batch = IntTiledProduct.MIN_BATCH + 5;
            byte[] bytes = weights(type, rows, cols, 5);
            WeightMatrix m = matrix(arena, type, bytes, rows, cols);
            float[] x = QuantizerTest.randomValues(batch * cols, 6);
            float[] out = new float[batch * rows];
            m.multiply(x, batch, out, batch - 3);
            WeightMatrixTest.assertCloseToReference(m, Quantizer.dequantize(type, bytes, rows * cols), x, out,
                    type + " 160 x " + cols + ", a batch of " + batch);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"Q4_0", "Q4_K"})
    void theMachineTakesTheIntegerProduct(GGMLType type) {
        try (Arena arena = Arena.ofShared()) {
            assertThat(matrix(arena, type, weights(type, 96, 256, 1), 96, 256)).isInstanceOfSatisfying(MappedMatrix.class,
                    matrix -> assertThat(matrix.rolesShareBits()).isTrue());
        }
    }

    private static byte[] weights(GGMLType type, int rows, int cols, long seed) {
        return Quantizer.supports(type)
                ? Quantizer.quantize(type, QuantizerTest.randomValues(rows * cols, seed))
                : Quantizer.randomBlocks(type, rows * cols / type.blockSize(), seed, 1f);
    }

    private static WeightMatrix matrix(Arena arena, GGMLType type, byte[] bytes, int rows, int cols) {
        MemorySegment seg = arena.allocate(bytes.length, 64);
        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return WeightMatrices.of(type, rows, cols, seg);
    }
}
