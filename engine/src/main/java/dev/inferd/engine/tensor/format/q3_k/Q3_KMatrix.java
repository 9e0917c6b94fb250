package dev.inferd.engine.tensor.format.q3_k;

import dev.inferd.engine.tensor.product.BlockMatrix;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q3_K weights: super-blocks of 256 values as 32 bytes of high bits, 64 bytes of 2-bit low parts, 12
 * bytes of sixteen 6-bit scales and an fp16 {@code d}. Value {@code 128n + 32j + l} is bits {@code 2j}
 * of low byte {@code 32n + l}, minus 4 unless bit {@code 4n + j} of high byte {@code l} is set, with
 * scale {@code 8n + 2j + l/16}; value = d * (scale - 32) * q.
 */
public final class Q3_KMatrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 110;

    public Q3_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q3_K, rows, cols, data);
    }

    @Override
    public void decode(long at, int count, float[] out) {
        for (int o = 0; o < count; o += 256, at += BLOCK_BYTES) {
            float dAll = half(at + 108);
            for (int n = 0; n < 2; n++) {
                for (int j = 0; j < 4; j++) {
                    decode32(at + 32 + 32 * n, 2 * j, at, 4 * n + j, at + 96, 8 * n + 2 * j, dAll, out,
                            o + 128 * n + 32 * j);
                }
            }
        }
    }

    /**
     * 32 values: bits {@code shift} of the bytes at {@code qs}, less 4 where bit {@code bit} of the bytes
     * at {@code hm} is clear, with scales {@code scale} and {@code scale + 1} of the table at
     * {@code scales}. Small on purpose: C2 boxes vectors in methods it cannot inline whole.
     */
    private void decode32(long qs, int shift, long hm, int bit, long scales, int scale, float dAll, float[] out, int o) {
        int step = F.length();
        for (int l = 0; l < 32; l += step) {
            float dl = dAll * Q3_KReference.scale(data, scales, scale + l / 16);
            var low = I_CLASS.cast(rawBytes(qs + l)).lanewise(VectorOperators.ASHR, shift).lanewise(VectorOperators.AND, 3);
            var high = I_CLASS.cast(rawBytes(hm + l)).lanewise(VectorOperators.ASHR, bit).lanewise(VectorOperators.AND, 1)
                    .lanewise(VectorOperators.LSHL, 2);
            var value = F_CLASS.cast(toFloat(I_CLASS.cast(low).add(high).sub(4)));
            F_CLASS.cast(value.mul(dl)).intoArray(out, o + l);
        }
    }
}
