package dev.inferd.speech.whisper;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.parallel.WorkerPool;

import dev.inferd.engine.tensor.vector.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;

/** The row-wise operations of Whisper's transformer, over {@code rows x width} float arrays. */
final class Ops {
    private static final float LN_EPS = 1e-5f;
    private static final float SQRT_2_OVER_PI = 0.7978845608f;

    private Ops() {
    }

    /** Rows per task of the row-wise operations spread over the worker pool. */
    private static final int ROWS_PER_TASK = 64;

    static void layerNorm(float[] x, int rows, int d, Layers.Norm norm, float[] out) {
        if (rows >= 2 * ROWS_PER_TASK) {
            WorkerPool.shared().parallelFor((rows + ROWS_PER_TASK - 1) / ROWS_PER_TASK,
                    t -> layerNorm(x, t * ROWS_PER_TASK, Math.min(rows, (t + 1) * ROWS_PER_TASK), d, norm, out));
        } else {
            layerNorm(x, 0, rows, d, norm, out);
        }
    }

    private static void layerNorm(float[] x, int from, int to, int d, Layers.Norm norm, float[] out) {
        for (int r = from; r < to; r++) {
            int o = r * d;
            double mean = 0;
            for (int i = 0; i < d; i++) mean += x[o + i];
            mean /= d;
            double var = 0;
            for (int i = 0; i < d; i++) {
                double c = x[o + i] - mean;
                var += c * c;
            }
            float inv = (float) (1 / Math.sqrt(var / d + LN_EPS));
            float m = (float) mean;
            for (int i = 0; i < d; i++) out[o + i] = (x[o + i] - m) * inv * norm.weight()[i] + norm.bias()[i];
        }
    }

    /** Below this many rows the engine's per-row kernels beat its tiled product (which first unpacks the weights into panels). */
    private static final int TILED_ROWS = 16;

    /** {@code out = x W^T + b} for {@code rows} rows. */
    static void linear(Layers.Linear l, float[] x, int rows, float[] out) {
        l.weight().multiply(x, rows, out, rows >= TILED_ROWS ? rows : 0);
        if (l.bias() != null) addBias(out, rows, l.bias());
    }

    static void addBias(float[] x, int rows, float[] bias) {
        int d = bias.length;
        for (int r = 0; r < rows; r++) {
            int o = r * d;
            for (int i = 0; i < d; i++) x[o + i] += bias[i];
        }
    }

    /**
     * GELU with the tanh approximation as whisper.cpp (ggml) computes it: looked up by the input's
     * half-precision bits in a table of half-precision results, 0 below -10 and the input above 10.
     */
    static void gelu(float[] x, int n) {
        int chunk = ROWS_PER_TASK * 1024;
        if (n >= 2 * chunk) {
            WorkerPool.shared().parallelFor((n + chunk - 1) / chunk, t -> gelu(x, t * chunk, Math.min(n, (t + 1) * chunk)));
        } else {
            gelu(x, 0, n);
        }
    }

    private static void gelu(float[] x, int from, int to) {
        float[] table = GeluTable.VALUES;
        for (int i = from; i < to; i++) {
            float v = x[i];
            x[i] = v <= -10f ? 0f : v >= 10f ? v : table[Float.floatToFloat16(v) & 0xFFFF];
        }
    }

    private static final class GeluTable {
        static final float[] VALUES = new float[1 << 16];

        static {
            for (int i = 0; i < VALUES.length; i++) {
                float v = Float.float16ToFloat((short) i);
                float g = 0.5f * v * (1 + (float) Math.tanh(SQRT_2_OVER_PI * v * (1 + 0.044715f * v * v)));
                VALUES[i] = Float.float16ToFloat(Float.floatToFloat16(g));
            }
        }
    }

    static void add(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) x[i] += y[i];
    }

    /**
     * Attention of {@code n} queries over {@code m} keys with no mask, head by head through the engine's
     * matrix product: scores {@code Q_h K_h^T}, softmax, then the product with {@code V_h}.
     * {@code q} is {@code n x d}, {@code k} and {@code v} are {@code m x d}.
     */
    static void fullAttention(float[] q, int n, float[] k, float[] v, int m, int d, int heads, float[] out, Scratch s) {
        int dh = d / heads;
        float scale = (float) (1 / Math.sqrt(dh));
        for (int h = 0; h < heads; h++) {
            int c0 = h * dh;
            for (int i = 0; i < n; i++) System.arraycopy(q, i * d + c0, s.qh, i * dh, dh);
            for (int j = 0; j < m; j++) {
                System.arraycopy(k, j * d + c0, s.kh, j * dh, dh);
                for (int c = 0; c < dh; c++) s.vt[c * m + j] = v[j * d + c0 + c];
            }
            var kMatrix = WeightMatrices.of(GGMLType.F32, m, dh, MemorySegment.ofArray(s.kh).asSlice(0, 4L * m * dh));
            kMatrix.multiply(s.qh, n, s.scores, n);
            WorkerPool.shared().parallelFor(n, i -> softmax(s.scores, i * m, m, scale));
            var vMatrix = WeightMatrices.of(GGMLType.F32, dh, m, MemorySegment.ofArray(s.vt).asSlice(0, 4L * m * dh));
            vMatrix.multiply(s.scores, n, s.oh, n);
            for (int i = 0; i < n; i++) System.arraycopy(s.oh, i * dh, out, i * d + c0, dh);
        }
    }

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    /** {@code x[from .. from+n)} scaled by {@code scale}, then replaced by its softmax; vectorised, e^x by {@link Lanes#expNonPositive}. */
    static void softmax(float[] x, int from, int n, float scale) {
        int bound = from + SPECIES.loopBound(n), end = from + n;
        var maxes = FloatVector.broadcast(SPECIES, Float.NEGATIVE_INFINITY);
        int i = from;
        for (; i < bound; i += SPECIES.length()) maxes = maxes.max(FloatVector.fromArray(SPECIES, x, i));
        float max = maxes.reduceLanes(VectorOperators.MAX);
        for (; i < end; i++) max = Math.max(max, x[i]);
        max *= scale;
        var sums = FloatVector.zero(SPECIES);
        for (i = from; i < bound; i += SPECIES.length()) {
            var e = Lanes.expNonPositive(FloatVector.fromArray(SPECIES, x, i).fma(scale, -max));
            e.intoArray(x, i);
            sums = sums.add(e);
        }
        float sum = sums.reduceLanes(VectorOperators.ADD);
        for (; i < end; i++) {
            float e = (float) Math.exp(x[i] * scale - max);
            x[i] = e;
            sum += e;
        }
        float inv = 1 / sum;
        for (i = from; i < bound; i += SPECIES.length()) FloatVector.fromArray(SPECIES, x, i).mul(inv).intoArray(x, i);
        for (; i < end; i++) x[i] *= inv;
    }

    /** Buffers of {@link #fullAttention}. */
    static final class Scratch {
        final float[] qh, kh, vt, scores, oh;

        Scratch(int n, int m, int dh) {
            qh = new float[n * dh];
            kh = new float[m * dh];
            vt = new float[m * dh];
            scores = new float[n * m];
            oh = new float[n * dh];
        }
    }
}
