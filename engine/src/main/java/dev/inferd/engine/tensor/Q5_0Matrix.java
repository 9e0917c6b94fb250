package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q5_0 weights: blocks of 32 values as an fp16 scale {@code d}, a 32-bit word whose bit {@code j} is
 * value j's fifth bit, and 16 bytes of low nibbles (values 0-15 low, 16-31 high); value = (q - 16) * d.
 *
 * <p>The bulk of small Q4_K_M models (their rows are too short for k-quants), so {@link #dot} is fused:
 * weights decoded in registers, in the order of {@link BlockMatrix}'s loops (vectors alternately into
 * two accumulators), whose {@link #dot4} this class keeps.
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

    /** Values {@code [j, j + F.length())} of the block at {@code block}, {@code d} its scale: as {@link #decode}. */
    private FloatVector weights(long block, int j, float d) {
        int qh = data.get(U32, block + 2);
        var q = bytes(block + 6 + j % 16).lanewise(VectorOperators.LSHR, 4 * (j / 16)).lanewise(VectorOperators.AND, 0xF);
        return toFloat(q.or(fifthBits(qh >>> j)).sub(16)).mul(d);
    }

    @Override
    float dot(long rowOffset, float[] x, int xOffset) {
        int step = F.length();
        var acc0 = FloatVector.zero(F);
        var acc1 = FloatVector.zero(F);
        long block = rowOffset;
        for (int c = 0; c < cols; c += 32, block += BLOCK_BYTES) {
            float d = half(block);
            int xc = xOffset + c;
            for (int j = 0; j < 32; j += 2 * step) {
                acc0 = weights(block, j, d).fma(FloatVector.fromArray(F, x, xc + j), acc0);
                acc1 = weights(block, j + step, d).fma(FloatVector.fromArray(F, x, xc + j + step), acc1);
            }
        }
        return sum(acc0.add(acc1));
    }

    /** Lane i gets bit i of {@code bits} as 16 or 0. */
    static IntVector fifthBits(int bits) {
        return IntVector.broadcast(I, bits).lanewise(VectorOperators.LSHR, LANE).lanewise(VectorOperators.AND, 1)
                .lanewise(VectorOperators.LSHL, 4);
    }
}
