package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.QuantizerTest;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.parallel.TwoWorkerThreads;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Continuous batching puts one sequence's activation row next to any mix of others, so the product
 * of a row must not depend on its neighbours or its place in the batch: a fixed seed then gives the
 * same tokens alone or interleaved. Checked bit for bit, at every place of batches of 1 to 9 rows
 * (the kernels take rows four at a time, plus a remainder one by one).
 */
@ExtendWith(TwoWorkerThreads.class)
class BatchInvarianceTest {

    @ParameterizedTest
    @EnumSource(names = {"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K",
            "Q5_K", "Q6_K", "IQ4_NL", "IQ4_XS"})
    void aRowsProductIsTheSameWhateverTheBatch(GGMLType type) {
        int rows = 160;
        int cols = switch (type) {
            case F32, F16, BF16 -> 423;
            default -> type.blockSize() == 256 ? 768 : 416;
        };
        try (Arena arena = Arena.ofShared()) {
            byte[] bytes = Quantizer.supports(type)
                    ? Quantizer.quantize(type, QuantizerTest.randomValues(rows * cols, 21))
                    : Quantizer.randomBlocks(type, rows * cols / type.blockSize(), 21, 1f);
            MemorySegment seg = arena.allocate(bytes.length);
            MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
            WeightMatrix m = WeightMatrices.of(type, rows, cols, seg);
            float[] row = QuantizerTest.randomValues(cols, 22);
            float[] alone = new float[rows];
            m.multiply(row, 1, alone);
            // enough rounds for the JIT to compile both the one-row and the four-row kernel
            for (int round = 0; round < 20; round++) {
                for (int batch : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 17}) {
                    float[] x = QuantizerTest.randomValues(batch * cols, 100 + round * 10 + batch);
                    int place = (round + batch) % batch;
                    System.arraycopy(row, 0, x, place * cols, cols);
                    float[] out = new float[batch * rows];
                    m.multiply(x, batch, out);
                    assertThat(Arrays.copyOfRange(out, place * rows, (place + 1) * rows))
                            .as("%s, row at %d of a batch of %d", type, place, batch)
                            .containsExactly(alone);
                }
            }
        }
    }
}
