package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.QuantizerTest;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.copies.CopyStore;
import dev.inferd.engine.tensor.product.IntDotMatrix;
import dev.inferd.engine.tensor.product.IntTiledProduct;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.tensor.product.ShortPanels;
import dev.inferd.engine.tensor.product.TiledProduct;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.OwnJvm;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.List;

import static jdk.incubator.vector.VectorOperators.ADD;
import static jdk.incubator.vector.VectorOperators.BITWISE_BLEND;
import static jdk.incubator.vector.VectorOperators.NEG;
import static jdk.incubator.vector.VectorOperators.SUB;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Once compiled, the interleaved kernels (and the decoding of prompt panels from the copies) allocate nothing. Their bodies are written out step by step,
 * and a body past C2's inlining budget leaves some Vector API calls out of line, whose vectors are then
 * boxed on the heap: the results stay right and the kernel runs two to a hundred times slower
 * (the Q8_0 kernel with all sixteen steps written out, the Q4_0 one with a helper in its epilogue).
 * Only allocation tells that apart from a slow machine, so this watches it: the kernel runs until a
 * window of calls allocates nothing, or fails when none does within the deadline.
 *
 * <p>Every case runs in a JVM of its own ({@link OwnJvm}): run after other test classes in the test
 * JVM ({@code KVCacheTest} and {@code InterpretedAndCompiledTest}), the kernels ran boxed
 * in two of three runs of that selection, the Q4_0 and Q4_K ones in one and all eight in the other
 * (one way other code does that is described below). A
 * fresh JVM checks the kernels as the engine's own work compiles them.
 */
@Tag("jit")
class InterleavedKernelsAllocateNothingTest {
    private static final long DEADLINE_NANOS = 30_000_000_000L;
    private static final int CALLS_PER_WINDOW = 500;
    /** The child JVMs' flags beside this JVM's: {@link #callKernel} out of line. */
    private static final List<String> FLAGS =
            List.of("-XX:CompileCommand=dontinline,dev.inferd.engine.tensor.product.InterleavedKernelsAllocateNothingTest::callKernel");

    @ParameterizedTest
    @EnumSource(names = {"Q8_0", "Q4_0", "Q5_0", "Q4_K", "Q5_K", "Q6_K"})
    void aCompiledKernelAllocatesNothing(GGMLType type) throws Exception {
        OwnJvm.run(OneKernel.class, FLAGS, type.name(), Kernel.ONE_ENTRY.name());
    }

    @ParameterizedTest
    @EnumSource(names = {"Q8_0", "Q4_0", "Q5_0", "Q4_K", "Q5_K", "Q6_K"})
    void aCompiledKernelForTwoEntriesAllocatesNothing(GGMLType type) throws Exception {
        OwnJvm.run(OneKernel.class, FLAGS, type.name(), Kernel.TWO_ENTRIES.name());
    }

    @ParameterizedTest
    @EnumSource(names = {"Q8_0", "Q4_0", "Q5_0", "Q4_K", "Q5_K", "Q6_K"})
    void compiledPanelDecodingAllocatesNothing(GGMLType type) throws Exception {
        OwnJvm.run(OneKernel.class, FLAGS, type.name(), Kernel.PANEL.name());
    }

    /** The integer GEMM of many rows with a Q4_0 or Q4_K copy ({@link IntTiledProduct}): its kernel, its panels and its sums' conversion. */
    @ParameterizedTest
    @EnumSource(names = {"Q4_0", "Q4_K"})
    void theCompiledIntegerProductOfManyRowsAllocatesNothing(GGMLType type) throws Exception {
        Assumptions.assumeTrue(IntTiledProduct.SUPPORTED, "the integer product needs 512-bit vectors");
        OwnJvm.run(OneKernel.class, FLAGS, type.name(), Kernel.MANY_ROWS.name());
    }

    /** The other JVM's side of the cases above: the type and the kernel by name. */
    public static final class OneKernel {
        public static void main(String[] args) {
            assertKernelAllocatesNothing(GGMLType.valueOf(args[0]), Kernel.valueOf(args[1]));
        }
    }

    /**
     * The Vector API's shared methods keep one profile for all their callers, so what runs before a kernel
     * first compiles can change how C2 compiles it: after prompts of a few rows, whose row decoding then
     * converted with {@code ZERO_EXTEND_B2I}, the Q4_K kernel ran boxed in three of five fresh JVMs
     *; on AVX-512, with nothing zero-extending, kernels compiled after six seconds of prompt
     * products of all four types still ran boxed in four of six, and compiled before them in
     * none of five. So the server's warm-up compiles the kernels for generated tokens first ({@code WarmUp}),
     * and a JVM of its own checks that order: the kernels until they allocate nothing, prompt products of a
     * few rows and of whole panels, then the kernels again, still allocation-free.
     */
    @Test
    void kernelsCompiledBeforePromptProductsStayAllocationFree() throws Exception {
        OwnJvm.run(AfterPromptProducts.class, FLAGS);
    }

    /** The other JVM's side of {@link #kernelsCompiledBeforePromptProductsStayAllocationFree}. */
    public static final class AfterPromptProducts {
        private static final long PROMPT_NANOS = 6_000_000_000L;

        public static void main(String[] args) {
            GGMLType[] types = {GGMLType.Q8_0, GGMLType.Q4_0, GGMLType.Q5_0, GGMLType.Q4_K, GGMLType.Q5_K, GGMLType.Q6_K};
            for (GGMLType type : types) {
                assertKernelAllocatesNothing(type, Kernel.ONE_ENTRY);
                assertKernelAllocatesNothing(type, Kernel.TWO_ENTRIES);
            }
            int rows = 32, cols = 2048;
            WeightMatrix[] matrices = new WeightMatrix[types.length];
            for (int t = 0; t < types.length; t++) {
                byte[] bytes = Quantizer.randomBlocks(types[t], rows * cols / types[t].blockSize(), 7, 1f);
                matrices[t] = WeightMatrices.of(types[t], rows, cols, MemorySegment.ofArray(bytes));
            }
            float[] x = QuantizerTest.randomValues(TiledProduct.WIDTH * cols, 9);
            float[] out = new float[TiledProduct.WIDTH * rows];
            float[] row = new float[cols];
            long end = System.nanoTime() + PROMPT_NANOS;
            while (System.nanoTime() < end) {
                for (WeightMatrix m : matrices) {
                    m.multiply(x, 4, out, 4);
                    m.multiply(x, TiledProduct.WIDTH, out, TiledProduct.WIDTH);
                    m.dequantizeRow(5, row, 0);
                }
            }
            for (GGMLType type : types) {
                assertKernelAllocatesNothing(type, Kernel.ONE_ENTRY);
                assertKernelAllocatesNothing(type, Kernel.TWO_ENTRIES);
            }
        }
    }

    /**
     * C2 stops speculating on a class (and so stops inlining calls whose receiver it cannot prove) once the
     * uncommon traps of that kind recorded in a method and in everything inlined into it add up to
     * {@code -XX:PerMethodTrapLimit}, 100 by default. A kernel inlines the Vector API's small shared helpers
     * ({@code VectorOperators.opKind}, {@code opCode}) some 200 times each, so a handful of deoptimizations
     * inside them anywhere in the process, which any other vector code can cause, crosses that limit:
     * the kernel's vector calls then stay virtual and their vectors are boxed (C2's compilation
     * log of a boxed Q4_K kernel: 120 virtual calls, "observe trap='class_check'" at a count of 231 and up).
     * The launcher and the test JVMs raise the limit (jvm.options); without that, this case
     * failed in 3 of 3 runs and, in {@code bench}, the 1B Q4_K_M decoded boxed on 4 of 6 starts (0 of 12 with it).
     * The same deoptimizations, summed over all a kernel inlines, also pass half of
     * {@code -XX:PerMethodRecompilationCutoff}, after which C2 leaves a call whose profile saw two classes
     * virtual: with only the trap limit raised this case failed in 3 of 25 runs (one vector
     * boxed per call of the Q4_0 or Q8_0 kernel), and in none of 30 with the cutoffs raised too.
     */
    @Test
    void kernelsCompiledAfterVectorApiDeoptimizationsStayAllocationFree() throws Exception {
        OwnJvm.run(AfterVectorApiDeoptimizations.class, FLAGS);
    }

    /** The other JVM's side of {@link #kernelsCompiledAfterVectorApiDeoptimizationsStayAllocationFree}. */
    public static final class AfterVectorApiDeoptimizations {
        /** Operators of one class, then of others, through the same call sites: each change deoptimizes them. */
        private static final VectorOperators.Operator[][] PHASES = {
                {ADD}, {SUB}, {NEG}, {BITWISE_BLEND}, {ADD, NEG, SUB},
        };

        public static void main(String[] args) {
            long sink = 0;
            for (var phase : PHASES) {
                for (int round = 0; round < 20; round++) {
                    for (var op : phase) {
                        sink += applyRepeatedly(op, 5_000);
                    }
                }
            }
            System.out.println(sink);
            for (GGMLType type : new GGMLType[] {GGMLType.Q8_0, GGMLType.Q4_0, GGMLType.Q5_0, GGMLType.Q4_K, GGMLType.Q5_K, GGMLType.Q6_K}) {
                assertKernelAllocatesNothing(type, Kernel.ONE_ENTRY);
                assertKernelAllocatesNothing(type, Kernel.TWO_ENTRIES);
            }
        }

        /** An operator the compiler cannot see as a constant, so the helpers' type checks meet it at run time. */
        private static int applyRepeatedly(VectorOperators.Operator op, int times) {
            var v = IntVector.broadcast(IntVector.SPECIES_PREFERRED, 3);
            for (int i = 0; i < times; i++) {
                v = switch (op) {
                    case VectorOperators.Binary binary -> v.lanewise(binary, v);
                    case VectorOperators.Unary unary -> v.lanewise(unary);
                    case VectorOperators.Ternary ternary -> v.lanewise(ternary, v, v);
                    default -> throw new IllegalArgumentException(op.toString());
                };
            }
            return v.lane(0);
        }
    }

    /**
     * One call of the kernel under test, kept out of line of the measuring loop ({@link #FLAGS}) so that C2
     * compiles the kernel into a method invoked call by call, as the engine's {@code multiplyRows} is.
     * Inlined into the measuring loop, which runs once for the whole test, the kernel was compiled only
     * as part of an on-stack-replacement compile of that loop, and on some runs that compile boxed its
     * vectors until the deadline, while the kernel's own compile allocated nothing.
     */
    static void callKernel(InterleavedRows copy, Kernel kernel, int pass, float[] input, Q8Activations x, int activationBlock,
                           float[] out, float[] panel, int rows, int blocks) {
        switch (kernel) {
            case ONE_ENTRY -> copy.dot(pass, x, 0, out, pass * InterleavedRows.ROWS_PER_PASS);
            case TWO_ENTRIES -> copy.dot2(pass, x, 0, out, pass * InterleavedRows.ROWS_PER_PASS, rows);
            case PANEL -> {
                copy.decodePanel(2 * pass, 0, blocks, panel, TiledProduct.WIDTH, 0);
                copy.decodePanel(2 * pass + 1, 0, blocks, panel, TiledProduct.WIDTH, InterleavedRows.GROUP);
            }
            case MANY_ROWS -> {
                // the whole product on this thread, a task at a time; every pass at once, so only the first
                if (pass > 0) return;
                ShortPanels panels = (ShortPanels) copy;
                MANY_ROWS_PRODUCT.start(panels, rows, blocks * panels.panelBlock(), input, x, activationBlock, IntTiledProduct.ROWS, out);
                for (int task = 0; task < MANY_ROWS_PRODUCT.packingTasks(); task++) MANY_ROWS_PRODUCT.packing().run(task, 0);
                for (int task = 0; task < MANY_ROWS_PRODUCT.tasks(); task++) MANY_ROWS_PRODUCT.run(task, 0);
            }
        }
    }

    private static final IntTiledProduct MANY_ROWS_PRODUCT = new IntTiledProduct();

    /** What the test calls: the kernel for one activation row, for two, the decoding of prompt panels, or the integer GEMM. */
    private enum Kernel { ONE_ENTRY, TWO_ENTRIES, PANEL, MANY_ROWS }

    private static void assertKernelAllocatesNothing(GGMLType type, Kernel kernel) {
        int rows = 32, cols = 2048;
        try (Arena arena = Arena.ofShared()) {
            byte[] bytes = Quantizer.randomBlocks(type, rows * cols / type.blockSize(), 5, 1f);
            MemorySegment stored = arena.allocate(bytes.length, 64);
            MemorySegment.copy(bytes, 0, stored, ValueLayout.JAVA_BYTE, 0, bytes.length);
            InterleavedRows copy = WeightMatrices.interleaved(type, stored, rows, cols, CopyStore.inMemory(), "t");
            var x = new Q8Activations();
            int activationBlock = ((IntDotMatrix) WeightMatrices.of(type, rows, cols, stored)).activationBlock();
            int entries = IntTiledProduct.ROWS;
            float[] input = QuantizerTest.randomValues(entries * cols, 3);
            x.quantize(input, 0, entries, cols, activationBlock);
            float[] out = new float[entries * rows];
            float[] panel = new float[cols * TiledProduct.WIDTH];

            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long start = System.nanoTime();
            long allocated = Long.MAX_VALUE;
            while (allocated > 0 && System.nanoTime() - start < DEADLINE_NANOS) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int call = 0; call < CALLS_PER_WINDOW; call++) {
                    for (int pass = 0; pass < rows / InterleavedRows.ROWS_PER_PASS; pass++) {
                        callKernel(copy, kernel, pass, input, x, activationBlock, out, panel, rows, cols / type.blockSize());
                    }
                }
                allocated = threads.getCurrentThreadAllocatedBytes() - before;
            }
            assertThat(allocated).as("bytes allocated by %d calls of the %s kernel (%s), the last window before the deadline",
                    CALLS_PER_WINDOW, type, kernel).isZero();
        }
    }
}
