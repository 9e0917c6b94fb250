package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Q6_K weights: super-blocks of 256 values as 128 bytes of low nibbles, 64 bytes of 2-bit high parts,
 * sixteen int8 scales (one per 16 values) and an fp16 {@code d}. Per half {@code n} (128 values: low
 * bytes from {@code 64n}, high bytes from {@code 32n}, scales from {@code 8n}), value {@code 32k + l}
 * ({@code k < 4}, {@code l < 32}) is nibble {@code k / 2} of low byte {@code l + 32 (k % 2)} with bits
 * {@code 2k} of high byte {@code l} above it, minus 32, times {@code d * scale[2k + l / 16]}.
 *
 * <p>With the activations in Q8_K blocks, a super-block's share is {@code d * xd * sum(scale * sum(q * xq))}
 * over its sixteen 16-value groups: one 16-lane product per group (at most 32 * 127 per lane), its pair
 * sums times the group's scale, all in integers. Each 16 bytes of high bits serve four groups and each
 * 16 bytes of nibbles two, so they are read once per 16 values of {@code l}.
 */
final class Q6_KMatrix extends IntDotMatrix {
    private static final int SUPER_BLOCK = 256;
    private static final int BLOCK_BYTES = 210;

    Q6_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q6_K, rows, cols, data, Q8Activations.Q8_K);
    }

    @Override public GGMLType type() { return GGMLType.Q6_K; }

    /**
     * The super-block at {@code block} with the activations from {@code c}: the sum over its sixteen
     * 16-value groups of {@code scale * sum(q * xq)}, exact, so the lanes may be added in any order. One
     * group per pass of a loop that C2 does not unroll while inlining: a body with the groups written
     * out outgrows its inlining node budget, and the vector operations it then leaves as calls are
     * boxed (ten times slower).
     */
    private int integerDot(long block, Q8Activations x, int c) {
        var isum = IntVector.zero(I8);
        for (int g = 0; g < 16; g++) {
            int n = g / 8, k = (g / 2) % 4, h = g % 2; // half, quarter, which 16 of the quarter's 32
            long ql = block + 64 * n + 32 * (k % 2) + 16 * h;
            long qh = block + 128 + 32 * n + 16 * h;
            // shifts by constants only: a count C2 cannot see as constant is not compiled to vector code
            var low = bytes(ql);
            if (k >= 2) low = low.lanewise(VectorOperators.ASHR, 4);
            var bits = bytes(qh);
            var high = switch (k) { // bits 2k and 2k + 1, moved to bits 4 and 5
                case 0 -> bits.lanewise(VectorOperators.LSHL, 4);
                case 1 -> bits.lanewise(VectorOperators.LSHL, 2);
                case 2 -> bits;
                default -> bits.lanewise(VectorOperators.ASHR, 2);
            };
            low = low.and((short) 0x0F);
            high = high.and((short) 0x30);
            var w = low.or(high).sub((short) 32);
            int scale = data.get(ValueLayout.JAVA_BYTE, block + 192 + 8 * n + 2 * k + h);
            isum = isum.add(smallPairSums(w.mul(activations(x, c + 128 * n + 32 * k + 16 * h))).mul(scale));
        }
        return isum.reduceLanes(VectorOperators.ADD);
    }

    @Override
    float dot(long rowOffset, Q8Activations x, int b) {
        float acc = 0f;
        long block = rowOffset;
        int s = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += SUPER_BLOCK, block += BLOCK_BYTES, s++) {
            acc += scale(block + 208) * x.d[s] * integerDot(block, x, c);
        }
        return acc;
    }

    @Override
    public void dequantizeRow(int row, float[] out, int offset) {
        ReferenceDequantizer.dequantize(GGMLType.Q6_K, data, row * rowBytes, cols, out, offset);
    }
}
