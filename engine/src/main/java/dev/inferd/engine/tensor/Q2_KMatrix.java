package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q2_K weights: super-blocks of 256 values as 16 scale bytes (4-bit scale, 4-bit min per 16 values),
 * 64 bytes of 2-bit {@code q}, and fp16 {@code d} and {@code dmin}. Value {@code 128n + 32j + l} is bits
 * {@code 2j} of byte {@code 32n + l}, with scale byte {@code 8n + 2j + l/16}; value =
 * d * scale * q - dmin * min.
 */
final class Q2_KMatrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 84;

    Q2_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q2_K, rows, cols, data);
    }

    @Override
    void decode(long at, int count, float[] out) {
        int step = F.length();
        for (int o = 0; o < count; o += 256, at += BLOCK_BYTES) {
            float d = half(at + 80), min = half(at + 82);
            for (int n = 0; n < 2; n++) {
                for (int j = 0; j < 4; j++) {
                    for (int h = 0; h < 2; h++) {
                        int sc = u8(at + 8 * n + 2 * j + h);
                        float dl = d * (sc & 0xF), ml = min * (sc >>> 4);
                        for (int l = 16 * h; l < 16 * h + 16; l += step) {
                            var q = rawBytes(at + 16 + 32 * n + l).lanewise(VectorOperators.ASHR, 2 * j)
                                    .lanewise(VectorOperators.AND, 3);
                            toFloat(q).mul(dl).sub(ml).intoArray(out, o + 128 * n + 32 * j + l);
                        }
                    }
                }
            }
        }
    }
}
