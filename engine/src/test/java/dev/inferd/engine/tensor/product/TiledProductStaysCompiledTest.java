package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.QuantizerTest;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.CompileLog;
import dev.inferd.engine.OwnJvm;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The float prompt product's tile kernel ({@link TiledProduct#kernel})
 * compiles into a shape that allocates nothing, whatever prompt products came first. Prompt products of two rows
 * and then four (the two-row kernel compiled first, the tile's then reached only through a tile cut short) made C2
 * compile it with its fused multiply-adds as the Vector API's Java code: a product of 512 rows then took 17 times
 * as long, for the rest of the process ({@code MatMulBench 2 Q8_0 2048x2048 2,4,512 prompt}). Kept out of its callers
 * ({@code -XX:CompileCommand=dontinline}, as jvm.options has it), it compiles
 * as a unit of its own. In a JVM of its own, since what ran before decides how C2 compiles it.
 *
 * <p>What ran before also decides what the Vector API's shared methods' type profiles hold: eight-lane vectors
 * stored by other code (here the prompt rows' rounding) made C2 dispatch the kernel's stores on both shapes, and
 * box its accumulators on every step, in one run of twelve. The kernels type their vectors exactly
 * ({@code TiledProduct.F_CLASS}), so that no Vector API call in them is dispatched on a profile.
 */
@Tag("jit")
class TiledProductStaysCompiledTest {
    private static final long DEADLINE_NANOS = 30_000_000_000L;

    @Test
    void aPromptProductOfManyRowsAllocatesNothingAfterProductsOfTwoAndFourRows() throws Exception {
        OwnJvm.run(AfterSmallPrompts.class, List.of());
    }

    @Test
    void theKernelsDispatchNoVectorCallOnATypeProfile(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("compilation.log");
        OwnJvm.run(AfterSmallPrompts.class, CompileLog.flags(log));
        var kernels = CompileLog.c2Compiles(log).stream()
                .filter(c -> c.of(TiledProduct.class, "kernel") || c.of(TiledProduct.class, "kernel2")).toList();
        assertThat(kernels).as("C2's compiles of the tile kernels").isNotEmpty();
        assertThat(kernels).allSatisfy(c -> assertThat(c.profiledVectorCalls()).as(c.method()).isEmpty());
    }

    /** The other JVM's side: products of 2, then 4, then 512 prompt rows, each until compiled, as MatMulBench ran them. */
    public static final class AfterSmallPrompts {
        public static void main(String[] args) {
            int rows = 2048, cols = 2048;
            byte[] bytes = Quantizer.quantize(GGMLType.Q8_0, QuantizerTest.randomValues(rows * cols, 3));
            WeightMatrix m = WeightMatrices.of(GGMLType.Q8_0, rows, cols, MemorySegment.ofArray(bytes));
            float[] x = QuantizerTest.randomValues(512 * cols, 4);
            float[] out = new float[512 * rows];
            for (int batch : new int[] {2, 4}) {
                for (int call = 0; call < 300; call++) m.multiply(x, batch, out, batch);
            }
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long start = System.nanoTime();
            long allocated = Long.MAX_VALUE;
            while (allocated > 1 << 20 && System.nanoTime() - start < DEADLINE_NANOS) {
                long before = threads.getTotalThreadAllocatedBytes();
                m.multiply(x, 512, out, 512);
                allocated = threads.getTotalThreadAllocatedBytes() - before;
            }
            assertThat(allocated).as("bytes allocated by a product of 512 prompt rows, the last before the deadline")
                    .isLessThanOrEqualTo(1 << 20);
        }
    }
}
