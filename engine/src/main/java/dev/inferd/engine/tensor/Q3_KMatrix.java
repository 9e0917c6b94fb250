package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q3_K weights: super-blocks of 256 values as 32 bytes of high bits, 64 bytes of 2-bit low parts, 12
 * bytes of sixteen 6-bit scales and an fp16 {@code d}. Value {@code 128n + 32j + l} is bits {@code 2j}
 * of low byte {@code 32n + l}, minus 4 unless bit {@code 4n + j} of high byte {@code l} is set, with
 * scale {@code 8n + 2j + l/16}; value = d * (scale - 32) * q.
 */
final class Q3_KMatrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 110;

    Q3_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q3_K, rows, cols, data);
    }

    @Override
    void decode(long at, int count, float[] out) {
        int step = F.length();
        for (int o = 0; o < count; o += 256, at += BLOCK_BYTES) {
            float dAll = half(at + 108);
            for (int n = 0; n < 2; n++) {
                for (int j = 0; j < 4; j++) {
                    for (int h = 0; h < 2; h++) {
                        float dl = dAll * ReferenceDequantizer.q3_KScale(data, at + 96, 8 * n + 2 * j + h);
                        for (int l = 16 * h; l < 16 * h + 16; l += step) {
                            var low = rawBytes(at + 32 + 32 * n + l).lanewise(VectorOperators.ASHR, 2 * j)
                                    .lanewise(VectorOperators.AND, 3);
                            var high = rawBytes(at + l).lanewise(VectorOperators.ASHR, 4 * n + j)
                                    .lanewise(VectorOperators.AND, 1).lanewise(VectorOperators.LSHL, 2);
                            toFloat(low.add(high).sub(4)).mul(dl).intoArray(out, o + 128 * n + 32 * j + l);
                        }
                    }
                }
            }
        }
    }
}
