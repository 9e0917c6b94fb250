package dev.inferd.engine.tensor.format.q4_1;

import dev.inferd.engine.tensor.product.BlockMatrix;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q4_1 weights: blocks of 32 values as an fp16 scale {@code d}, an fp16 offset {@code m} and 16 bytes
 * of 4-bit {@code q} (low nibbles are values 0-15, high nibbles 16-31); value = q * d + m.
 */
public final class Q4_1Matrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 20;

    public Q4_1Matrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q4_1, rows, cols, data);
    }

    @Override
    public void decode(long at, int count, float[] out) {
        int step = F.length();
        for (int o = 0; o < count; o += 32, at += BLOCK_BYTES) {
            float d = half(at), m = half(at + 2);
            for (int k = 0; k < 16; k += step) {
                var q = I_CLASS.cast(bytes(at + 4 + k));
                var low = F_CLASS.cast(toFloat(q.lanewise(VectorOperators.AND, 0xF)));
                var high = F_CLASS.cast(toFloat(q.lanewise(VectorOperators.LSHR, 4)));
                F_CLASS.cast(low.mul(d).add(m)).intoArray(out, o + k);
                F_CLASS.cast(high.mul(d).add(m)).intoArray(out, o + 16 + k);
            }
        }
    }
}
