package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Random;

/**
 * Not a test: prints the read bandwidth of {@link WeightMatrix#multiply} for a 2048 x 8192 matrix
 * (several copies, cycled, so the weights come from memory rather than the cache), and compares the
 * float-dequantizing Q8_0 kernel with an int8 dot-product variant. Run with the test classpath:
 * {@code java --add-modules jdk.incubator.vector -cp ... dev.inferd.engine.tensor.MatMulBench [threads]}.
 */
public final class MatMulBench {
    private static final int COPIES = 6;

    public static void main(String[] args) {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 2048;
        int cols = args.length > 2 ? Integer.parseInt(args[2]) : 8192;
        WorkerPool.configure(threads);
        System.out.printf("threads %d, %s, matrix %d rows x %d cols%n", threads, FloatVector.SPECIES_PREFERRED, rows, cols);
        var rnd = new Random(1);
        float[] values = new float[rows * cols];
        for (int i = 0; i < values.length; i++) values[i] = (float) rnd.nextGaussian();
        try (Arena arena = Arena.ofShared()) {
            for (GGMLType type : new GGMLType[] {GGMLType.Q8_0, GGMLType.Q4_0, GGMLType.F16, GGMLType.BF16, GGMLType.F32}) {
                byte[] bytes = Quantizer.quantize(type, values);
                WeightMatrix[] ms = new WeightMatrix[COPIES];
                for (int i = 0; i < COPIES; i++) {
                    MemorySegment seg = arena.allocate(bytes.length, 64);
                    MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
                    ms[i] = WeightMatrix.of(type, rows, cols, seg);
                }
                for (int batch : new int[] {1, 16, 64}) {
                    float[] x = new float[batch * cols];
                    for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
                    float[] out = new float[batch * rows];
                    int iters = batch == 1 ? 60 : Math.max(3, 60 / batch);
                    double sec = bestOf(15, iters, i -> ms[i % COPIES].multiply(x, batch, out));
                    double gbs = (double) bytes.length * iters / sec / 1e9;
                    double gflops = 2.0 * rows * cols * batch * iters / sec / 1e9;
                    System.out.printf("%-5s batch %3d: %7.3f ms/call  %6.1f GB/s of weights  %7.1f GFLOP/s%n",
                            type, batch, sec * 1e3 / iters, gbs, gflops);
                }
                if (type == GGMLType.Q8_0) int8Variant(arena, bytes, rows, cols, threads);
            }
        }
    }

    /** The fastest of {@code trials} runs of {@code iters} calls (the machine is shared: the best run is the least disturbed). */
    private static double bestOf(int trials, int iters, java.util.function.IntConsumer call) {
        for (int i = 0; i < iters * 3; i++) call.accept(i); // warm-up
        double best = Double.MAX_VALUE;
        for (int t = 0; t < trials; t++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < iters; i++) call.accept(i);
            best = Math.min(best, (System.nanoTime() - t0) / 1e9);
        }
        return best;
    }

    // ---- the alternative Q8_0 kernel: activations quantized to int8 blocks, integer products ----

    private static final VectorSpecies<Short> S = ShortVector.SPECIES_256;
    private static final VectorSpecies<Byte> B16 = ByteVector.SPECIES_128;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;

    private static void int8Variant(Arena arena, byte[] bytes, int rows, int cols, int threads) {
        MemorySegment[] segs = new MemorySegment[COPIES];
        for (int i = 0; i < COPIES; i++) {
            segs[i] = arena.allocate(bytes.length, 64);
            MemorySegment.copy(bytes, 0, segs[i], ValueLayout.JAVA_BYTE, 0, bytes.length);
        }
        var rnd = new Random(2);
        float[] x = new float[cols];
        for (int i = 0; i < cols; i++) x[i] = (float) rnd.nextGaussian();
        short[] xq = new short[cols];
        float[] xd = new float[cols / 32];
        float[] out = new float[rows];
        long rowBytes = cols / 32 * 34L;
        int iters = 600;
        var pool = WorkerPool.shared();
        int tasks = threads * 4;
        iters = 60;
        double sec = bestOf(15, iters, it -> {
            MemorySegment seg = segs[it % COPIES];
            quantizeActivations(x, xq, xd);
            pool.parallelFor(tasks, t -> {
                int from = rows * t / tasks, to = rows * (t + 1) / tasks;
                for (int r = from; r < to; r++) out[r] = int8Dot(seg, r * rowBytes, xq, xd, cols);
            });
        });
        System.out.printf("Q8_0 int8-activation variant batch 1: %7.3f ms/call  %6.1f GB/s of weights%n",
                sec * 1e3 / iters, (double) bytes.length * iters / sec / 1e9);
    }

    private static void quantizeActivations(float[] x, short[] xq, float[] xd) {
        for (int b = 0; b < xd.length; b++) {
            float amax = 0;
            for (int j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[b * 32 + j]));
            float d = amax / 127;
            float id = d != 0 ? 1 / d : 0;
            xd[b] = d;
            for (int j = 0; j < 32; j++) xq[b * 32 + j] = (short) Math.round(x[b * 32 + j] * id);
        }
    }

    private static float int8Dot(MemorySegment seg, long rowOffset, short[] xq, float[] xd, int cols) {
        var acc = FloatVector.zero(FloatVector.SPECIES_256);
        long block = rowOffset;
        for (int c = 0; c < cols; c += 32, block += 34) {
            float d = Float.float16ToFloat(seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, block)) * xd[c / 32];
            var w0 = (ShortVector) ByteVector.fromMemorySegment(B16, seg, block + 2, ByteOrder.LITTLE_ENDIAN).convertShape(VectorOperators.B2S, S, 0);
            var w1 = (ShortVector) ByteVector.fromMemorySegment(B16, seg, block + 18, ByteOrder.LITTLE_ENDIAN).convertShape(VectorOperators.B2S, S, 0);
            // |q| <= 127 on both sides, so two products fit in a short
            var p = w0.mul(ShortVector.fromArray(S, xq, c)).add(w1.mul(ShortVector.fromArray(S, xq, c + 16)));
            var s = ((IntVector) p.convertShape(VectorOperators.S2I, I, 0)).add((IntVector) p.convertShape(VectorOperators.S2I, I, 1));
            acc = ((FloatVector) s.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(FloatVector.SPECIES_256, d), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }
}
