package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q5_0 weights: blocks of 32 values as an fp16 scale {@code d}, a 32-bit word whose bit {@code j} is
 * value j's fifth bit, and 16 bytes of low nibbles (values 0-15 low, 16-31 high); value = (q - 16) * d.
 */
final class Q5_0Matrix extends BlockMatrix {
    private static final int BLOCK_BYTES = 22;

    Q5_0Matrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q5_0, rows, cols, data);
    }

    @Override
    void decode(long at, int count, float[] out) {
        int step = F.length();
        for (int o = 0; o < count; o += 32, at += BLOCK_BYTES) {
            float d = half(at);
            int qh = data.get(U32, at + 2);
            for (int k = 0; k < 16; k += step) {
                var q = bytes(at + 6 + k);
                var lo = q.lanewise(VectorOperators.AND, 0xF).or(fifthBits(qh >>> k));
                var hi = q.lanewise(VectorOperators.LSHR, 4).or(fifthBits(qh >>> (16 + k)));
                toFloat(lo.sub(16)).mul(d).intoArray(out, o + k);
                toFloat(hi.sub(16)).mul(d).intoArray(out, o + 16 + k);
            }
        }
    }

    /** Lane i gets bit i of {@code bits} as 16 or 0. */
    static IntVector fifthBits(int bits) {
        return IntVector.broadcast(I, bits).lanewise(VectorOperators.LSHR, LANE).lanewise(VectorOperators.AND, 1)
                .lanewise(VectorOperators.LSHL, 4);
    }
}
