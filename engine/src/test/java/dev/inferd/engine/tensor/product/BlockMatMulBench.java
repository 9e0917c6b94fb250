package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

/**
 * Not a test: prints the weight-read bandwidth of {@link WeightMatrix#multiply} for the block types of
 * {@link BlockMatrix} on a 2048 x 8192 matrix (several copies, cycled, so weights come from memory).
 * Arguments: [threads] [types, comma-separated, default Q4_K,Q6_K].
 */
public final class BlockMatMulBench {
    private static final int COPIES = 6;

    public static void main(String[] args) {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
        String[] types = (args.length > 1 ? args[1] : "Q4_K,Q6_K").split(",");
        int rows = 2048, cols = 8192;
        WorkerPool.configure(threads);
        var rnd = new Random(1);
        try (Arena arena = Arena.ofShared()) {
            for (String name : types) {
                GGMLType type = GGMLType.valueOf(name);
                byte[] bytes = Quantizer.randomBlocks(type, rows * cols / type.blockSize(), 1, 1f);
                WeightMatrix[] ms = new WeightMatrix[COPIES];
                for (int i = 0; i < COPIES; i++) {
                    MemorySegment seg = arena.allocate(bytes.length, 64);
                    MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
                    ms[i] = WeightMatrices.of(type, rows, cols, seg);
                }
                for (int batch : new int[] {1, 16}) {
                    float[] x = new float[batch * cols];
                    for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
                    float[] out = new float[batch * rows];
                    int iters = batch == 1 ? 40 : 4;
                    for (int i = 0; i < iters * 3; i++) ms[i % COPIES].multiply(x, batch, out);
                    double best = Double.MAX_VALUE;
                    for (int t = 0; t < 10; t++) {
                        long t0 = System.nanoTime();
                        for (int i = 0; i < iters; i++) ms[i % COPIES].multiply(x, batch, out);
                        best = Math.min(best, (System.nanoTime() - t0) / 1e9);
                    }
                    System.out.printf("%-6s batch %2d, %d threads: %7.3f ms/call  %6.2f GB/s of weights  %6.1f GFLOP/s%n",
                            type, batch, threads, best * 1e3 / iters, (double) bytes.length * iters / best / 1e9,
                            2.0 * rows * cols * batch * iters / best / 1e9);
                }
            }
        }
    }
}
