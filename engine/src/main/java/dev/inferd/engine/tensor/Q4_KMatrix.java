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
 * straight into the multiply-adds (measured faster than decoding to a buffer first). {@link #dot} and
 * {@link #dot4} do the same operations in the same order per activation row: low nibbles into one
 * accumulator, high nibbles into another, added and folded by {@link #sum} at the end.
 */
final class Q4_KMatrix extends BlockMatrix {
    private static final int BLOCK = 256;
    private static final int BLOCK_BYTES = 144;

    /** Per-thread sub-block scales and mins of the super-block at hand. */
    private static final ThreadLocal<float[]> SCALES = ThreadLocal.withInitial(() -> new float[16]);

    Q4_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q4_K, rows, cols, data);
    }

    @Override
    void decode(long at, int count, float[] out) {
        for (int o = 0; o < count; o += BLOCK, at += BLOCK_BYTES) {
            float d = half(at), min = half(at + 2);
            for (int p = 0; p < 4; p++) {
                int sm1 = ReferenceDequantizer.kScaleMin(data, at + 4, 2 * p);
                int sm2 = ReferenceDequantizer.kScaleMin(data, at + 4, 2 * p + 1);
                decodePair(at + 16 + 32 * p, d * (sm1 & 0xFF), min * (sm1 >>> 8), d * (sm2 & 0xFF),
                        min * (sm2 >>> 8), out, o + 64 * p);
            }
        }
    }

    /** 64 values from 32 bytes at {@code qs}: the low nibbles with {@code d1, m1}, then the high ones. */
    private void decodePair(long qs, float d1, float m1, float d2, float m2, float[] out, int o) {
        int step = F.length();
        for (int l = 0; l < 32; l += step) {
            var q = rawBytes(qs + l);
            toFloat(q.lanewise(VectorOperators.AND, 0xF)).mul(d1).sub(m1).intoArray(out, o + l);
            toFloat(q.lanewise(VectorOperators.ASHR, 4).lanewise(VectorOperators.AND, 0xF)).mul(d2).sub(m2)
                    .intoArray(out, o + 32 + l);
        }
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
    float dot(long rowOffset, float[] x, int xOffset) {
        int step = F.length();
        float[] sm = SCALES.get();
        var acc0 = FloatVector.zero(F);
        var acc1 = FloatVector.zero(F);
        long block = rowOffset;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            scales(block, sm);
            for (int p = 0; p < 4; p++) {
                float d1 = sm[4 * p], m1 = sm[4 * p + 1], d2 = sm[4 * p + 2], m2 = sm[4 * p + 3];
                long qs = block + 16 + 32 * p;
                int xc = xOffset + c + 64 * p;
                for (int l = 0; l < 32; l += step) {
                    var q = rawBytes(qs + l);
                    acc0 = low(q, d1, m1).fma(FloatVector.fromArray(F, x, xc + l), acc0);
                    acc1 = high(q, d2, m2).fma(FloatVector.fromArray(F, x, xc + 32 + l), acc1);
                }
            }
        }
        return sum(acc0.add(acc1));
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
        var b0 = FloatVector.zero(F);
        var b1 = FloatVector.zero(F);
        var b2 = FloatVector.zero(F);
        var b3 = FloatVector.zero(F);
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
                    b0 = w.fma(FloatVector.fromArray(F, x, xOffset + ch), b0);
                    b1 = w.fma(FloatVector.fromArray(F, x, x1 + ch), b1);
                    b2 = w.fma(FloatVector.fromArray(F, x, x2 + ch), b2);
                    b3 = w.fma(FloatVector.fromArray(F, x, x3 + ch), b3);
                }
            }
        }
        out[outIndex] = sum(a0.add(b0));
        out[outIndex + rows] = sum(a1.add(b1));
        out[outIndex + 2 * rows] = sum(a2.add(b2));
        out[outIndex + 3 * rows] = sum(a3.add(b3));
    }
}
