package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q5_K weights: super-blocks of 256 values as fp16 {@code d} and {@code dmin}, eight 6-bit scales and
 * mins packed in 12 bytes (as Q4_K), 32 bytes of fifth bits and 128 bytes of low nibbles. Each 64 values
 * {@code p} are 32 bytes' low then high nibbles, their fifth bits being bits {@code 2p} and
 * {@code 2p + 1} of the high-bit bytes; value = d * scale * q - dmin * min.
 */
final class Q5_KMatrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 176;

    Q5_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q5_K, rows, cols, data);
    }

    @Override
    void decode(long at, int count, float[] out) {
        for (int o = 0; o < count; o += 256, at += BLOCK_BYTES) {
            float d = half(at), min = half(at + 2);
            for (int j = 0; j < 8; j++) {
                int sm = ReferenceDequantizer.kScaleMin(data, at + 4, j);
                decode32(at + 48 + 32 * (j / 2), 4 * (j % 2), at + 16, j, d * (sm & 0xFF), min * (sm >>> 8),
                        out, o + 32 * j);
            }
        }
    }

    /**
     * Sub-block {@code bit}'s 32 values: the nibbles at bit {@code shift} of the bytes at {@code qs}
     * with bit {@code bit} of those at {@code qh} above them, times {@code d1} minus {@code m1}. One
     * output per method: C2's node budget runs out (and vectors get boxed) when a method holds more.
     */
    private void decode32(long qs, int shift, long qh, int bit, float d1, float m1, float[] out, int o) {
        int step = F.length();
        for (int l = 0; l < 32; l += step) {
            var low = rawBytes(qs + l).lanewise(VectorOperators.ASHR, shift).lanewise(VectorOperators.AND, 0xF);
            var high = rawBytes(qh + l).lanewise(VectorOperators.ASHR, bit).lanewise(VectorOperators.AND, 1);
            toFloat(low.or(high.lanewise(VectorOperators.LSHL, 4))).mul(d1).sub(m1).intoArray(out, o + l);
        }
    }
}
