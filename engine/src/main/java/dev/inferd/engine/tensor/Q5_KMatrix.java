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
        int step = F.length();
        for (int o = 0; o < count; o += 256, at += BLOCK_BYTES) {
            float d = half(at), min = half(at + 2);
            for (int p = 0; p < 4; p++) {
                int sm1 = ReferenceDequantizer.kScaleMin(data, at + 4, 2 * p);
                int sm2 = ReferenceDequantizer.kScaleMin(data, at + 4, 2 * p + 1);
                float d1 = d * (sm1 & 0xFF), m1 = min * (sm1 >>> 8);
                float d2 = d * (sm2 & 0xFF), m2 = min * (sm2 >>> 8);
                for (int l = 0; l < 32; l += step) {
                    var q = rawBytes(at + 48 + 32 * p + l);
                    var h = rawBytes(at + 16 + l);
                    var lo = q.lanewise(VectorOperators.AND, 0xF)
                            .or(h.lanewise(VectorOperators.ASHR, 2 * p).lanewise(VectorOperators.AND, 1).lanewise(VectorOperators.LSHL, 4));
                    var hi = q.lanewise(VectorOperators.ASHR, 4).lanewise(VectorOperators.AND, 0xF)
                            .or(h.lanewise(VectorOperators.ASHR, 2 * p + 1).lanewise(VectorOperators.AND, 1).lanewise(VectorOperators.LSHL, 4));
                    toFloat(lo).mul(d1).sub(m1).intoArray(out, o + 64 * p + l);
                    toFloat(hi).mul(d2).sub(m2).intoArray(out, o + 64 * p + 32 + l);
                }
            }
        }
    }
}
