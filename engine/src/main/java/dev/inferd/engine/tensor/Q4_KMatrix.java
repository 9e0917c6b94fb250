package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q4_K weights: super-blocks of 256 values as fp16 {@code d} and {@code dmin}, eight 6-bit scales and
 * eight 6-bit mins packed in 12 bytes, and 128 bytes of nibbles: each 64 values {@code p} are the low
 * then the high nibbles of 32 bytes, sub-blocks {@code 2p} and {@code 2p + 1}; value =
 * d * scale * q - dmin * min.
 */
final class Q4_KMatrix extends BlockMatrix {
    private static final int BLOCK = 256;
    private static final int BLOCK_BYTES = 144;

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
}
