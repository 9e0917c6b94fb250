package dev.inferd.engine.tensor.format.q2_k;

import dev.inferd.engine.tensor.product.BlockMatrix;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q2_K weights: super-blocks of 256 values as 16 scale bytes (4-bit scale, 4-bit min per 16 values),
 * 64 bytes of 2-bit {@code q}, and fp16 {@code d} and {@code dmin}. Value {@code 128n + 32j + l} is bits
 * {@code 2j} of byte {@code 32n + l}, with scale byte {@code 8n + 2j + l/16}; value =
 * d * scale * q - dmin * min.
 */
public final class Q2_KMatrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 84;

    public Q2_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q2_K, rows, cols, data);
    }

    @Override
    public void decode(long at, int count, float[] out) {
        for (int o = 0; o < count; o += 256, at += BLOCK_BYTES) {
            float d = half(at + 80), min = half(at + 82);
            for (int n = 0; n < 2; n++) {
                for (int j = 0; j < 4; j++) {
                    decode32(at + 16 + 32 * n, 2 * j, at + 8 * n + 2 * j, d, min, out, o + 128 * n + 32 * j);
                }
            }
        }
    }

    /**
     * 32 values: bits {@code shift} of the bytes at {@code qs}, with the scale and min bytes at
     * {@code sc} (one per 16 values). Small on purpose: C2 boxes vectors in methods it cannot inline whole.
     */
    private void decode32(long qs, int shift, long sc, float d, float min, float[] out, int o) {
        int step = F.length();
        for (int l = 0; l < 32; l += step) {
            int s = u8(sc + l / 16);
            float dl = d * (s & 0xF), ml = min * (s >>> 4);
            var q = I_CLASS.cast(rawBytes(qs + l)).lanewise(VectorOperators.ASHR, shift).lanewise(VectorOperators.AND, 3);
            var value = F_CLASS.cast(toFloat(q));
            F_CLASS.cast(value.mul(dl).sub(ml)).intoArray(out, o + l);
        }
    }
}
