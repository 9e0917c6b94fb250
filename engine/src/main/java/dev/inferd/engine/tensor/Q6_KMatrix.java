package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Q6_K weights: super-blocks of 256 values as 128 bytes of low nibbles, 64 bytes of 2-bit high parts,
 * sixteen int8 scales (one per 16 values) and an fp16 {@code d}. Per half {@code n} (128 values: low
 * bytes from {@code 64n}, high bytes from {@code 32n}, scales from {@code 8n}), value {@code 32k + l}
 * ({@code k < 4}, {@code l < 32}) is nibble {@code k / 2} of low byte {@code l + 32 (k % 2)} with bits
 * {@code 2k} of high byte {@code l} above it, minus 32, times {@code d * scale[2k + l / 16]}.
 *
 * <p>Q4_K_M files keep their most sensitive tensors in Q6_K, so its multiply is fused like Q4_K's.
 */
final class Q6_KMatrix extends BlockMatrix {
    private static final int BLOCK = 256;
    private static final int BLOCK_BYTES = 210;

    Q6_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q6_K, rows, cols, data);
    }

    private float scale(long at, float d) {
        return d * data.get(ValueLayout.JAVA_BYTE, at);
    }

    // the four 6-bit values (minus 32) that low bytes a (l), b (l + 32) and high byte h (l) hold
    private static IntVector q1(IntVector a, IntVector h) {
        return a.lanewise(VectorOperators.AND, 0xF)
                .or(h.lanewise(VectorOperators.LSHL, 4).lanewise(VectorOperators.AND, 0x30)).sub(32);
    }

    private static IntVector q2(IntVector b, IntVector h) {
        return b.lanewise(VectorOperators.AND, 0xF)
                .or(h.lanewise(VectorOperators.LSHL, 2).lanewise(VectorOperators.AND, 0x30)).sub(32);
    }

    private static IntVector q3(IntVector a, IntVector h) {
        return a.lanewise(VectorOperators.ASHR, 4).lanewise(VectorOperators.AND, 0xF)
                .or(h.lanewise(VectorOperators.AND, 0x30)).sub(32);
    }

    private static IntVector q4(IntVector b, IntVector h) {
        return b.lanewise(VectorOperators.ASHR, 4).lanewise(VectorOperators.AND, 0xF)
                .or(h.lanewise(VectorOperators.ASHR, 2).lanewise(VectorOperators.AND, 0x30)).sub(32);
    }

    @Override
    void decode(long at, int count, float[] out) {
        int step = F.length();
        for (int o = 0; o < count; o += BLOCK, at += BLOCK_BYTES) {
            float d = half(at + 208);
            for (int n = 0; n < 2; n++) {
                long ql = at + 64 * n, qh = at + 128 + 32 * n, sc = at + 192 + 8 * n;
                for (int l = 0; l < 32; l += step) {
                    int is = l / 16;
                    var a = rawBytes(ql + l);
                    var b = rawBytes(ql + 32 + l);
                    var h = rawBytes(qh + l);
                    int base = o + 128 * n + l;
                    toFloat(q1(a, h)).mul(scale(sc + is, d)).intoArray(out, base);
                    toFloat(q2(b, h)).mul(scale(sc + is + 2, d)).intoArray(out, base + 32);
                    toFloat(q3(a, h)).mul(scale(sc + is + 4, d)).intoArray(out, base + 64);
                    toFloat(q4(b, h)).mul(scale(sc + is + 6, d)).intoArray(out, base + 96);
                }
            }
        }
    }

    @Override
    float dot(long rowOffset, float[] x, int xOffset) {
        float sum = 0;
        long block = rowOffset;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            float d = half(block + 208);
            sum += halfBlockDot(block, block + 128, block + 192, d, x, xOffset + c);
            sum += halfBlockDot(block + 64, block + 160, block + 200, d, x, xOffset + c + 128);
        }
        return sum;
    }

    /**
     * 128 values' dot product. A method of its own, ending in a scalar: C2 stops inlining the vector
     * helpers (and boxes every vector) when one method holds a whole unrolled super-block.
     */
    private float halfBlockDot(long ql, long qh, long sc, float d, float[] x, int xc) {
        int step = F.length();
        var acc0 = FloatVector.zero(F);
        var acc1 = FloatVector.zero(F);
        for (int l = 0; l < 32; l += step) {
            int is = l / 16;
            var a = rawBytes(ql + l);
            var b = rawBytes(ql + 32 + l);
            var h = rawBytes(qh + l);
            int xl = xc + l;
            acc0 = toFloat(q1(a, h)).mul(scale(sc + is, d)).fma(FloatVector.fromArray(F, x, xl), acc0);
            acc1 = toFloat(q2(b, h)).mul(scale(sc + is + 2, d)).fma(FloatVector.fromArray(F, x, xl + 32), acc1);
            acc0 = toFloat(q3(a, h)).mul(scale(sc + is + 4, d)).fma(FloatVector.fromArray(F, x, xl + 64), acc0);
            acc1 = toFloat(q4(b, h)).mul(scale(sc + is + 6, d)).fma(FloatVector.fromArray(F, x, xl + 96), acc1);
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }

    @Override
    void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex) {
        int step = F.length();
        int x1 = xOffset + cols, x2 = x1 + cols, x3 = x2 + cols;
        var a0 = FloatVector.zero(F);
        var a1 = FloatVector.zero(F);
        var a2 = FloatVector.zero(F);
        var a3 = FloatVector.zero(F);
        long block = rowOffset;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            float d = half(block + 208);
            for (int n = 0; n < 2; n++) {
                long ql = block + 64 * n, qh = block + 128 + 32 * n, sc = block + 192 + 8 * n;
                for (int l = 0; l < 32; l += step) {
                    int is = l / 16;
                    var a = rawBytes(ql + l);
                    var b = rawBytes(ql + 32 + l);
                    var h = rawBytes(qh + l);
                    int cl = c + 128 * n + l;
                    var w = toFloat(q1(a, h)).mul(scale(sc + is, d));
                    a0 = w.fma(FloatVector.fromArray(F, x, xOffset + cl), a0);
                    a1 = w.fma(FloatVector.fromArray(F, x, x1 + cl), a1);
                    a2 = w.fma(FloatVector.fromArray(F, x, x2 + cl), a2);
                    a3 = w.fma(FloatVector.fromArray(F, x, x3 + cl), a3);
                    w = toFloat(q2(b, h)).mul(scale(sc + is + 2, d));
                    a0 = w.fma(FloatVector.fromArray(F, x, xOffset + cl + 32), a0);
                    a1 = w.fma(FloatVector.fromArray(F, x, x1 + cl + 32), a1);
                    a2 = w.fma(FloatVector.fromArray(F, x, x2 + cl + 32), a2);
                    a3 = w.fma(FloatVector.fromArray(F, x, x3 + cl + 32), a3);
                    w = toFloat(q3(a, h)).mul(scale(sc + is + 4, d));
                    a0 = w.fma(FloatVector.fromArray(F, x, xOffset + cl + 64), a0);
                    a1 = w.fma(FloatVector.fromArray(F, x, x1 + cl + 64), a1);
                    a2 = w.fma(FloatVector.fromArray(F, x, x2 + cl + 64), a2);
                    a3 = w.fma(FloatVector.fromArray(F, x, x3 + cl + 64), a3);
                    w = toFloat(q4(b, h)).mul(scale(sc + is + 6, d));
                    a0 = w.fma(FloatVector.fromArray(F, x, xOffset + cl + 96), a0);
                    a1 = w.fma(FloatVector.fromArray(F, x, x1 + cl + 96), a1);
                    a2 = w.fma(FloatVector.fromArray(F, x, x2 + cl + 96), a2);
                    a3 = w.fma(FloatVector.fromArray(F, x, x3 + cl + 96), a3);
                }
            }
        }
        out[outIndex] = a0.reduceLanes(VectorOperators.ADD);
        out[outIndex + rows] = a1.reduceLanes(VectorOperators.ADD);
        out[outIndex + 2 * rows] = a2.reduceLanes(VectorOperators.ADD);
        out[outIndex + 3 * rows] = a3.reduceLanes(VectorOperators.ADD);
    }
}
