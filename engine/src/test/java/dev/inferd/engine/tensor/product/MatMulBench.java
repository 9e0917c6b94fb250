package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;

/**
 * Not a test: prints the speed of {@link WeightMatrix#multiply} per weight type and shape: GB/s of
 * weights read at batch 1 (decode; several copies of the matrix are cycled so the weights come from
 * memory, not the cache) and GFLOP/s at larger batches (prefill). Reports the median and the best of
 * several timed runs (the machine is shared). Run with the test classpath:
 * {@code java @jvm.options -cp ... dev.inferd.engine.tensor.product.MatMulBench
 * [threads [types [shapes [batches [role]]]]]}, e.g. {@code 2 Q8_0,Q4_0 2048x8192,8192x2048 1,512 prompt}; the role
 * is {@code generated} (the default) or {@code prompt}, which tokens of the batch are.
 */
public final class MatMulBench {
    private static final long COPY_BYTES = 256L << 20;
    private static final int TRIALS = 9;

    public static void main(String[] args) {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
        String types = args.length > 1 ? args[1] : "Q8_0,Q4_0,F16,BF16,F32";
        String shapes = args.length > 2 ? args[2] : "2048x2048,512x2048,8192x2048,2048x8192";
        String batches = args.length > 3 ? args[3] : "1,512";
        boolean prompt = args.length > 4 && args[4].equals("prompt");
        WorkerPool.configure(threads);
        System.out.printf("threads %d, %s%n", threads, FloatVector.SPECIES_PREFERRED);
        var rnd = new Random(1);
        try (Arena arena = Arena.ofShared()) {
            for (String shape : shapes.split(",")) {
                int rows = Integer.parseInt(shape.split("x")[0]);
                int cols = Integer.parseInt(shape.split("x")[1]);
                float[] values = new float[rows * cols];
                for (int i = 0; i < values.length; i++) values[i] = (float) rnd.nextGaussian();
                for (String typeName : types.split(",")) {
                    GGMLType type = GGMLType.valueOf(typeName);
                    byte[] bytes = Quantizer.quantize(type, values);
                    int copies = (int) Math.max(1, Math.min(8, COPY_BYTES / bytes.length));
                    WeightMatrix[] ms = new WeightMatrix[copies];
                    for (int i = 0; i < copies; i++) {
                        MemorySegment seg = arena.allocate(bytes.length, 64);
                        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
                        ms[i] = WeightMatrices.of(type, rows, cols, seg);
                    }
                    for (String batchText : batches.split(",")) {
                        int batch = Integer.parseInt(batchText);
                        float[] x = new float[batch * cols];
                        for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
                        float[] out = new float[batch * rows];
                        double flopsPerCall = 2.0 * rows * cols * batch;
                        int iters = (int) Math.max(2, Math.min(200, 2e9 / flopsPerCall));
                        double[] sec = time(TRIALS, iters, i -> ms[i % ms.length].multiply(x, batch, out, prompt ? batch : 0));
                        double median = sec[sec.length / 2], best = sec[0];
                        System.out.printf("%-5s %5dx%-5d batch %3d: %8.3f ms/call  %6.1f GB/s (best %6.1f)  %6.1f GFLOP/s (best %6.1f)%n",
                                type, rows, cols, batch, median * 1e3 / iters,
                                (double) bytes.length * iters / median / 1e9, (double) bytes.length * iters / best / 1e9,
                                flopsPerCall * iters / median / 1e9, flopsPerCall * iters / best / 1e9);
                    }
                }
            }
        }
    }

    /**
     * Seconds of {@code trials} runs of {@code iters} calls each, sorted. With one thread, the calling
     * thread's CPU time: on a busy shared machine that still measures the kernel, not the scheduler.
     */
    static double[] time(int trials, int iters, java.util.function.IntConsumer call) {
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        boolean cpuTime = WorkerPool.shared().threads() == 1;
        java.util.function.LongSupplier clock = cpuTime ? mx::getCurrentThreadCpuTime : System::nanoTime;
        for (int i = 0; i < iters * 2; i++) call.accept(i); // warm-up
        double[] sec = new double[trials];
        for (int t = 0; t < trials; t++) {
            long t0 = clock.getAsLong();
            for (int i = 0; i < iters; i++) call.accept(i);
            sec[t] = (clock.getAsLong() - t0) / 1e9;
        }
        Arrays.sort(sec);
        return sec;
    }
}
