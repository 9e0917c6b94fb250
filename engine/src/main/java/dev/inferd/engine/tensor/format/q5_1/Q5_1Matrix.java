package dev.inferd.engine.tensor.format.q5_1;

import dev.inferd.engine.tensor.product.BlockMatrix;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q5_1 weights: blocks of 32 values as an fp16 scale {@code d}, an fp16 offset {@code m}, the 32 fifth
 * bits and 16 bytes of low nibbles, laid out as in Q5_0; value = q * d + m.
 */
public final class Q5_1Matrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 24;

    public Q5_1Matrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q5_1, rows, cols, data);
    }

    @Override
    public void decode(long at, int count, float[] out) {
        int step = F.length();
        for (int o = 0; o < count; o += 32, at += BLOCK_BYTES) {
            float d = half(at), m = half(at + 2);
            int qh = data.get(U32, at + 4);
            for (int k = 0; k < 16; k += step) {
                var q = I_CLASS.cast(bytes(at + 8 + k));
                var lo = F_CLASS.cast(toFloat(q.lanewise(VectorOperators.AND, 0xF).or(fifthBits(qh >>> k))));
                var hi = F_CLASS.cast(toFloat(q.lanewise(VectorOperators.LSHR, 4).or(fifthBits(qh >>> (16 + k)))));
                F_CLASS.cast(lo.mul(d).add(m)).intoArray(out, o + k);
                F_CLASS.cast(hi.mul(d).add(m)).intoArray(out, o + 16 + k);
            }
        }
    }

    /** Lane i gets bit i of {@code bits} as 16 or 0. */
    private static IntVector fifthBits(int bits) {
        return IntVector.broadcast(I, bits).lanewise(VectorOperators.LSHR, LANE).lanewise(VectorOperators.AND, 1)
                .lanewise(VectorOperators.LSHL, 4);
    }
}
