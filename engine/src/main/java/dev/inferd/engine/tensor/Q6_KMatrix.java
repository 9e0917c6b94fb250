package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Q6_K weights: super-blocks of 256 values as 128 bytes of low nibbles, 64 bytes of 2-bit high parts,
 * sixteen int8 scales (one per 16 values) and an fp16 {@code d}. Per half {@code n} (128 values: low
 * bytes from {@code 64n}, high bytes from {@code 32n}, scales from {@code 8n}), value {@code 32k + l}
 * ({@code k < 4}, {@code l < 32}) is nibble {@code k / 2} of low byte {@code l + 32 (k % 2)} with bits
 * {@code 2k} of high byte {@code l} above it, minus 32, times {@code d * scale[2k + l / 16]}.
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
     * 32 values: the nibbles at bit {@code lowShift} of the bytes at {@code ql} under bits
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
}
