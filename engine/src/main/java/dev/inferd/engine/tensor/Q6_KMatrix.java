package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
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
 * <p>{@link #dot} is fused (weights decoded in registers, never stored), one vector at a time so that
 * the loop body stays small enough for C2 to inline every vector operation; it keeps the order of
 * {@link BlockMatrix}'s loops (vectors alternately into two accumulators), whose {@link #dot4} this
 * class keeps: fused, four activation rows made the loop too big for C2, and slower.
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

    @Override
    void decode(long at, int count, float[] out) {
        for (int o = 0; o < count; o += BLOCK, at += BLOCK_BYTES) {
            float d = half(at + 208);
            for (int n = 0; n < 2; n++) {
                long ql = at + 64 * n, qh = at + 128 + 32 * n, sc = at + 192 + 8 * n;
                for (int k = 0; k < 4; k++) {
                    decode32(ql + 32 * (k % 2), 4 * (k / 2), qh, 2 * k, sc + 2 * k, d, out, o + 128 * n + 32 * k);
                }
            }
        }
    }

    /**
     * 32 values (bit for bit {@link #weights}): the nibbles at bit {@code lowShift} of the bytes at {@code ql} under bits
     * {@code highShift} of those at {@code qh}, minus 32, times {@code d} and the scales at {@code sc}
     * (one per 16 values). One output per method: C2's node budget runs out (and vectors get boxed) when
     * a method holds more.
     */
    private void decode32(long ql, int lowShift, long qh, int highShift, long sc, float d, float[] out, int o) {
        int step = F.length();
        for (int l = 0; l < 32; l += step) {
            var low = rawBytes(ql + l).lanewise(VectorOperators.ASHR, lowShift).lanewise(VectorOperators.AND, 0xF);
            var high = rawBytes(qh + l).lanewise(VectorOperators.ASHR, highShift).lanewise(VectorOperators.AND, 3);
            toFloat(low.or(high.lanewise(VectorOperators.LSHL, 4)).sub(32)).mul(scale(sc + l / 16, d))
                    .intoArray(out, o + l);
        }
    }

    /** Quarter {@code k}'s weights at {@code l}: see the class comment. */
    private FloatVector weights(long ql, long qh, long sc, int k, int l, float d) {
        int lowShift = 4 * (k / 2), highShift = 2 * k;
        var low = rawBytes(ql + 32 * (k % 2) + l).lanewise(VectorOperators.ASHR, lowShift)
                .lanewise(VectorOperators.AND, 0xF);
        var high = rawBytes(qh + l).lanewise(VectorOperators.ASHR, highShift).lanewise(VectorOperators.AND, 3);
        return toFloat(low.or(high.lanewise(VectorOperators.LSHL, 4)).sub(32)).mul(scale(sc + 2 * k + l / 16, d));
    }

    @Override
    float dot(long rowOffset, float[] x, int xOffset) {
        int step = F.length();
        var acc0 = FloatVector.zero(F);
        var acc1 = FloatVector.zero(F);
        long block = rowOffset;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            float d = half(block + 208);
            for (int n = 0; n < 2; n++) {
                long ql = block + 64 * n, qh = block + 128 + 32 * n, sc = block + 192 + 8 * n;
                int xn = xOffset + c + 128 * n;
                for (int k = 0; k < 4; k++) {
                    int xk = xn + 32 * k;
                    for (int l = 0; l < 32; l += 2 * step) {
                        acc0 = weights(ql, qh, sc, k, l, d).fma(FloatVector.fromArray(F, x, xk + l), acc0);
                        acc1 = weights(ql, qh, sc, k, l + step, d).fma(FloatVector.fromArray(F, x, xk + l + step), acc1);
                    }
                }
            }
        }
        return sum(acc0.add(acc1));
    }
}
