package dev.inferd.bench.kernels;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@link WeightMatrix#multiply} per weight type, at batch 1 (decode: memory-bound) and batch 64
 * (prefill: compute-bound), on the matrix shapes of real models:
 * <ul>
 *   <li>{@code 8192x2048}: Llama 3.2 1B {@code ffn_gate}/{@code ffn_up} (8192 rows of 2048);</li>
 *   <li>{@code 2048x8192}: Llama 3.2 1B {@code ffn_down};</li>
 *   <li>{@code 4864x896}: Qwen2.5 0.5B {@code ffn_gate}/{@code ffn_up};</li>
 *   <li>{@code 1536x576}: SmolLM2 135M {@code ffn_gate}/{@code ffn_up}.</li>
 * </ul>
 * The weights are cycled through enough copies (256 MB by default, {@link #cycledMegabytes}) that each
 * call reads them from memory rather than the cache, as in a real forward pass. Weight bandwidth is
 * {@code weightBytes x calls/s}: the first line of the run prints {@code weightBytes} per shape.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1) // the forked JVM inherits the host's options: run it as java @jvm.options -jar ... (see package-info)
public class MatMulBenchmark {

    @Param({"Q8_0", "Q4_0", "F16", "BF16", "F32"})
    public String type;

    @Param({"1", "64"})
    public int batch;

    @Param({"8192x2048", "2048x8192", "4864x896", "1536x576"})
    public String shape;

    @Param({"2"})
    public int threads;

    /**
     * Megabytes of copies cycled through: 256 reads the weights from memory, as a forward pass does;
     * 0 keeps one copy, which a small shape leaves in the cache, to measure the kernel's own speed.
     */
    @Param({"256"})
    public int cycledMegabytes;

    private Arena arena;
    private WeightMatrix[] copies;
    private float[] x;
    private float[] out;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        WorkerPool.configure(threads);
        String[] rc = shape.split("x");
        int rows = Integer.parseInt(rc[0]);
        int cols = Integer.parseInt(rc[1]);
        GGMLType t = GGMLType.valueOf(type);
        var random = new SplittableRandom(1);
        float[] values = new float[rows * cols];
        for (int i = 0; i < values.length; i++) values[i] = (float) (random.nextDouble() * 2 - 1);
        byte[] bytes = Quantizer.quantize(t, values);
        long cycledBytes = (long) cycledMegabytes << 20;
        int count = (int) Math.max(1, (cycledBytes + bytes.length - 1) / bytes.length);
        System.out.printf("%n%s %s: %d bytes of weights per call, %d copies cycled%n", type, shape, bytes.length, count);
        arena = Arena.ofShared();
        copies = new WeightMatrix[count];
        for (int i = 0; i < count; i++) {
            MemorySegment seg = arena.allocate(bytes.length, 64);
            MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
            copies[i] = WeightMatrices.of(t, rows, cols, seg);
        }
        x = new float[batch * cols];
        for (int i = 0; i < x.length; i++) x[i] = (float) (random.nextDouble() * 2 - 1);
        out = new float[batch * rows];
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public float[] multiply() {
        WeightMatrix m = copies[next];
        next = next + 1 == copies.length ? 0 : next + 1;
        m.multiply(x, batch, out);
        return out;
    }
}
