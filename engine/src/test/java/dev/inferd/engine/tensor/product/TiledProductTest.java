package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.QuantizerTest;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.format.WeightMatrixTest;
import dev.inferd.engine.tensor.parallel.TwoWorkerThreads;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.TiledProduct;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The prompt rows' product ({@code multiply(x, batch, out, promptRows)}): right for every type, with
 * batches and matrices that end inside a tile, and the same bits for a prompt row whatever the batch
 * around it, as continuous batching needs.
 */
@ExtendWith(TwoWorkerThreads.class)
class TiledProductTest {
    private static final String TYPES = "F32|F16|BF16|Q8_0|Q4_0|Q4_1|Q5_0|Q5_1|Q2_K|Q3_K|Q4_K|Q5_K|Q6_K|IQ4_NL|IQ4_XS";

    /** Rows past a tile's end, columns past one panel depth and short of the next (for each block size). */
    private static int cols(GGMLType type) {
        return switch (type) {
            case F32, F16, BF16 -> TiledProduct.DEPTH + 168;
            default -> type.blockSize() == 256 ? TiledProduct.DEPTH + 256 : TiledProduct.DEPTH + 160;
        };
    }

    private static WeightMatrix matrix(Arena arena, GGMLType type, int rows, int cols, byte[] bytes) {
        // a misaligned copy: the decoders must not assume alignment
        MemorySegment seg = arena.allocate(bytes.length + 1L, 64).asSlice(1, bytes.length);
        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return WeightMatrices.of(type, rows, cols, seg);
    }

    private static byte[] weights(GGMLType type, int rows, int cols, long seed) {
        return Quantizer.supports(type)
                ? Quantizer.quantize(type, QuantizerTest.randomValues(rows * cols, seed))
                : Quantizer.randomBlocks(type, rows * cols / type.blockSize(), seed, 1f);
    }

    @ParameterizedTest
    @EnumSource(mode = EnumSource.Mode.MATCH_ALL, names = TYPES)
    void promptRowsMatchADoublePrecisionReference(GGMLType type) {
        int cols = cols(type);
        // 37 and 300 rows: not whole panels; batches of 1, 7 and 13: not whole tiles, 13 with
        // generated rows after the prompt rows
        int[][] cases = {{37, 1, 1}, {37, 7, 7}, {300, 13, 9}, {16, 12, 12}};
        try (Arena arena = Arena.ofShared()) {
            for (int[] c : cases) {
                int rows = c[0], batch = c[1], prompt = c[2];
                byte[] bytes = weights(type, rows, cols, rows + batch);
                WeightMatrix m = matrix(arena, type, rows, cols, bytes);
                float[] x = QuantizerTest.randomValues(batch * cols, 12 + batch);
                float[] out = new float[batch * rows];
                m.multiply(x, batch, out, prompt);
                float[] w = Quantizer.dequantize(type, bytes, rows * cols);
                // the integer-kernel types round prompt rows to their int8 blocks too
                WeightMatrixTest.assertCloseToReference(m, w, x, out,
                        String.format("%s %dx%d, batch %d with %d prompt rows", type, rows, cols, batch, prompt));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(mode = EnumSource.Mode.MATCH_ALL, names = TYPES)
    void aPromptRowsProductIsTheSameWhateverTheBatch(GGMLType type) {
        // 40 rows: whole panels and a part of one, and no interleaved copy, so a few rows take the narrow
        // kernel; three passes of rows: the copied types' panels come from their copy at every batch
        for (int rows : new int[] {40, 3 * InterleavedRows.ROWS_PER_PASS}) {
            assertSameBitsWhateverTheBatch(type, rows);
        }
    }

    private static void assertSameBitsWhateverTheBatch(GGMLType type, int rows) {
        int cols = cols(type);
        try (Arena arena = Arena.ofShared()) {
            WeightMatrix m = matrix(arena, type, rows, cols, weights(type, rows, cols, 21));
            float[] row = QuantizerTest.randomValues(cols, 22);
            float[] alone = new float[rows];
            m.multiply(row, 1, alone, 1);
            for (int round = 0; round < 12; round++) {
                for (int batch : new int[] {2, 5, 6, 7, 12, 13, 31}) {
                    float[] x = QuantizerTest.randomValues(batch * cols, 100 + round * 10 + batch);
                    int prompt = round % 3 == 0 ? batch : Math.max(1, batch - 1 - round % 4);
                    int place = (round + batch) % prompt;
                    System.arraycopy(row, 0, x, place * cols, cols);
                    float[] out = new float[batch * rows];
                    m.multiply(x, batch, out, prompt);
                    assertThat(Arrays.copyOfRange(out, place * rows, (place + 1) * rows))
                            .as("%s %d rows, prompt row at %d of %d in a batch of %d", type, rows, place, prompt, batch)
                            .containsExactly(alone);
                }
            }
        }
    }

    @Test
    void promptRowsMustBeWithinTheBatch() {
        WeightMatrix m = WeightMatrices.of(GGMLType.F32, 2, 4, MemorySegment.ofArray(new float[8]));
        assertThatThrownBy(() -> m.multiply(new float[8], 2, new float[4], 3)).hasMessageContaining("3 prompt rows");
        assertThatThrownBy(() -> m.multiply(new float[8], 2, new float[4], -1)).hasMessageContaining("-1 prompt rows");
    }
}
