package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q4_K weights: super-blocks of 256 values as fp16 {@code d} and {@code dmin}, eight 6-bit scales and
 * eight 6-bit mins packed in 12 bytes, and 128 bytes of nibbles: each 64 values {@code p} are the low
 * then the high nibbles of 32 bytes, sub-blocks {@code 2p} and {@code 2p + 1}; value =
 * d * scale * q - dmin * min.
 *
 * <p>The bulk of a Q4_K_M model, so its multiply is fused: nibbles are decoded in registers and go
 * straight into the fused multiply-adds, never through memory.
 */
final class Q4_KMatrix extends BlockMatrix {
    private static final int BLOCK = 256;
    private static final int BLOCK_BYTES = 144;

    /** Per-thread sub-block scales and mins of the super-block at hand (avoids recomputing them per lane step). */
    private static final ThreadLocal<float[]> SCALES = ThreadLocal.withInitial(() -> new float[16]);

    Q4_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q4_K, rows, cols, data);
    }

    /** {@code sm[2j] = d * scale_j}, {@code sm[2j + 1] = dmin * min_j}. */
    private void scales(long block, float[] sm) {
        float d = half(block), min = half(block + 2);
        for (int j = 0; j < 8; j++) {
            int s = ReferenceDequantizer.kScaleMin(data, block + 4, j);
            sm[2 * j] = d * (s & 0xFF);
            sm[2 * j + 1] = min * (s >>> 8);
        }
    }

    private static FloatVector low(IntVector q, float d, float m) {
        return toFloat(q.lanewise(VectorOperators.AND, 0xF)).mul(d).sub(m);
    }

    private static FloatVector high(IntVector q, float d, float m) {
        return toFloat(q.lanewise(VectorOperators.ASHR, 4).lanewise(VectorOperators.AND, 0xF)).mul(d).sub(m);
    }

    @Override
    void decode(long at, int count, float[] out) {
        int step = F.length();
        float[] sm = SCALES.get();
        for (int o = 0; o < count; o += BLOCK, at += BLOCK_BYTES) {
            scales(at, sm);
            for (int p = 0; p < 4; p++) {
                for (int l = 0; l < 32; l += step) {
                    var q = rawBytes(at + 16 + 32 * p + l);
                    low(q, sm[4 * p], sm[4 * p + 1]).intoArray(out, o + 64 * p + l);
                    high(q, sm[4 * p + 2], sm[4 * p + 3]).intoArray(out, o + 64 * p + 32 + l);
                }
            }
        }
    }

    @Override
    float dot(long rowOffset, float[] x, int xOffset) {
        float[] sm = SCALES.get();
        float sum = 0;
        long block = rowOffset;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            scales(block, sm);
            for (int p = 0; p < 4; p++) {
                sum += pairDot(block + 16 + 32 * p, sm[4 * p], sm[4 * p + 1], sm[4 * p + 2], sm[4 * p + 3], x,
                        xOffset + c + 64 * p);
            }
        }
        return sum;
    }

    /**
     * 64 values' dot product (32 bytes: low nibbles, then high). A method of its own, ending in a
     * scalar: C2 stops inlining the vector helpers (and boxes every vector) in bigger unrolled bodies.
     */
    private float pairDot(long qs, float d1, float m1, float d2, float m2, float[] x, int xc) {
        int step = F.length();
        var acc0 = FloatVector.zero(F);
        var acc1 = FloatVector.zero(F);
        for (int l = 0; l < 32; l += step) {
            var q = rawBytes(qs + l);
            acc0 = low(q, d1, m1).fma(FloatVector.fromArray(F, x, xc + l), acc0);
            acc1 = high(q, d2, m2).fma(FloatVector.fromArray(F, x, xc + 32 + l), acc1);
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }

    @Override
    void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex) {
        int step = F.length();
        int x1 = xOffset + cols, x2 = x1 + cols, x3 = x2 + cols;
        float[] sm = SCALES.get();
        var a0 = FloatVector.zero(F);
        var a1 = FloatVector.zero(F);
        var a2 = FloatVector.zero(F);
        var a3 = FloatVector.zero(F);
        long block = rowOffset;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            scales(block, sm);
            for (int p = 0; p < 4; p++) {
                float d1 = sm[4 * p], m1 = sm[4 * p + 1], d2 = sm[4 * p + 2], m2 = sm[4 * p + 3];
                long qs = block + 16 + 32 * p;
                for (int l = 0; l < 32; l += step) {
                    var q = rawBytes(qs + l);
                    var w = low(q, d1, m1);
                    int cl = c + 64 * p + l;
                    a0 = w.fma(FloatVector.fromArray(F, x, xOffset + cl), a0);
                    a1 = w.fma(FloatVector.fromArray(F, x, x1 + cl), a1);
                    a2 = w.fma(FloatVector.fromArray(F, x, x2 + cl), a2);
                    a3 = w.fma(FloatVector.fromArray(F, x, x3 + cl), a3);
                    w = high(q, d2, m2);
                    int ch = cl + 32;
                    a0 = w.fma(FloatVector.fromArray(F, x, xOffset + ch), a0);
                    a1 = w.fma(FloatVector.fromArray(F, x, x1 + ch), a1);
                    a2 = w.fma(FloatVector.fromArray(F, x, x2 + ch), a2);
                    a3 = w.fma(FloatVector.fromArray(F, x, x3 + ch), a3);
                }
            }
        }
        out[outIndex] = a0.reduceLanes(VectorOperators.ADD);
        out[outIndex + rows] = a1.reduceLanes(VectorOperators.ADD);
        out[outIndex + 2 * rows] = a2.reduceLanes(VectorOperators.ADD);
        out[outIndex + 3 * rows] = a3.reduceLanes(VectorOperators.ADD);
    }
}
