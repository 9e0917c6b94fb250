package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.QuantizerTest;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.parallel.TwoWorkerThreads;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.product.SameInputProducts;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link WeightMatrix#multiplyEach}: matrices of one input handed out together give each matrix's own
 * {@link WeightMatrix#multiply} bits, whether the batch takes the shared hand-out (generated rows only, few
 * enough for the row kernels) or falls back to one matrix at a time (prompt rows, many rows).
 */
@ExtendWith(TwoWorkerThreads.class)
class SameInputProductsTest {
    private static final int COLS = 512;

    /** Stand-ins for a layer's query, key and value: both families of kernels, matrices with a copy and without, rows of several sizes. */
    private static WeightMatrix[] mixedMatrices() {
        return new WeightMatrix[] {
                matrix(GGMLType.Q4_0, 256, 1),
                matrix(GGMLType.Q8_0, 64, 2),
                matrix(GGMLType.F16, 48, 3),
                matrix(GGMLType.Q4_1, 32, 4),
        };
    }

    private static WeightMatrix matrix(GGMLType type, int rows, long seed) {
        byte[] bytes = Quantizer.supports(type)
                ? Quantizer.quantize(type, QuantizerTest.randomValues(rows * COLS, seed))
                : Quantizer.randomBlocks(type, rows * COLS / type.blockSize(), seed, 1f);
        return WeightMatrices.of(type, rows, COLS, java.lang.foreign.MemorySegment.ofArray(bytes));
    }

    @ParameterizedTest(name = "batch {0}, {1} prompt rows")
    @CsvSource({"1, 0", "2, 0", "7, 0", "8, 0", "5, 2", "40, 0", "40, 40"})
    void eachMatrixGetsItsOwnProductsBits(int batch, int promptRows) {
        WeightMatrix[] matrices = mixedMatrices();
        float[] x = QuantizerTest.randomValues(batch * COLS, 9);
        float[][] together = new float[matrices.length][];
        float[][] alone = new float[matrices.length][];
        for (int i = 0; i < matrices.length; i++) {
            together[i] = new float[batch * matrices[i].rows()];
            alone[i] = new float[batch * matrices[i].rows()];
            matrices[i].multiply(x, batch, alone[i], promptRows);
        }
        SameInputProducts.multiply(matrices, x, batch, together, promptRows);
        for (int i = 0; i < matrices.length; i++) {
            assertThat(together[i]).as("matrix %d (%s)", i, matrices[i].type()).isEqualTo(alone[i]);
            assertThat(together[i]).as("matrix %d computed", i).isNotEqualTo(new float[together[i].length]);
        }
    }

    @Test
    void anOutputTooSmallIsRefusedBeforeAnyProduct() {
        WeightMatrix[] matrices = mixedMatrices();
        float[] x = QuantizerTest.randomValues(2 * COLS, 9);
        float[][] outs = new float[matrices.length][];
        for (int i = 0; i < matrices.length; i++) outs[i] = new float[2 * matrices[i].rows()];
        outs[2] = new float[matrices[2].rows()];
        assertThatThrownBy(() -> SameInputProducts.multiply(matrices, x, 2, outs, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out has");
        assertThat(outs[0]).isEqualTo(new float[outs[0].length]);
        assertThatThrownBy(() -> SameInputProducts.multiply(matrices, x, 2, new float[1][], 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outputs");
    }
}
