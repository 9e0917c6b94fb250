package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Q4_K weights: super-blocks of 256 values as fp16 {@code d} and {@code dmin}, eight 6-bit scales and
 * eight 6-bit mins packed in 12 bytes, and 128 bytes of nibbles: each 64 values {@code p} are the low
 * then the high nibbles of 32 bytes, sub-blocks {@code 2p} and {@code 2p + 1}; value =
 * d * scale * q - dmin * min.
 *
 * <p>With the activations in Q8_K blocks (one scale {@code xd} per super-block), a super-block's share
 * of the dot product is {@code d * xd * sum_j(scale_j * sum(q * xq)) - dmin * xd * sum_j(min_j * sum_j(xq))}:
 * all integer but for two float multiplies per 256 values. Products are at most 15 * 127 and the
 * scaled sums stay far inside 32 bits.
 */
final class Q4_KMatrix extends IntDotMatrix {
    private static final int SUPER_BLOCK = 256;
    private static final int BLOCK_BYTES = 144;
    private static final int HALF_BLOCK = 16;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;

    /** Per thread: {@link #integerDots}'s two results. */
    private static final ThreadLocal<int[]> PAIR = ThreadLocal.withInitial(() -> new int[2]);

    Q4_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q4_K, rows, cols, data, Q8Activations.Q8_K);
    }

    @Override public GGMLType type() { return GGMLType.Q4_K; }

    /**
     * The eight 6-bit scales of the super-block at {@code block}, one per byte (ggml's
     * {@code get_scale_min_k4} for all eight at once): scales 0-3 are the low 6 bits of bytes 0-3;
     * scales 4-7 the low nibbles of bytes 8-11 under the top 2 bits of bytes 0-3.
     */
    private long scales(long block) {
        long lo = data.get(U64, block + 4);
        long hi = data.get(U32, block + 12) & 0xFFFFFFFFL;
        return (lo & 0x3F3F3F3FL) | (((hi & 0x0F0F0F0FL) | ((lo >>> 2) & 0x30303030L)) << 32);
    }

    /** The eight 6-bit mins, likewise: bytes 4-7 for mins 0-3; high nibbles of bytes 8-11 under bytes 4-7's top bits. */
    private long mins(long block) {
        long lo = data.get(U64, block + 4) >>> 32;
        long hi = data.get(U32, block + 12) & 0xFFFFFFFFL;
        return (lo & 0x3F3F3F3FL) | ((((hi >>> 4) & 0x0F0F0F0FL) | ((lo >>> 2) & 0x30303030L)) << 32);
    }

    private static int sixBits(long packed, int j) {
        return (int) (packed >>> (8 * j)) & 0xFF;
    }

    /**
     * {@code sum_j(scale_j * sum(q * xq))} of the super-block at {@code block} with the activations from
     * {@code c}: exact, so the lanes may be added in any order. One sub-block per pass of a loop that C2
     * does not unroll while inlining: a body with every sub-block written out outgrows its inlining
     * node budget, and the vector operations it then leaves as calls are boxed (ten times slower).
     */
    private int integerDot(long block, Q8Activations x, int c, long scales) {
        var isum = IntVector.zero(I8);
        for (int j = 0; j < 8; j++) {
            long qs = block + 16 + 32 * (j / 2);
            var w0 = bytes(qs);
            var w1 = bytes(qs + HALF_BLOCK);
            if (j % 2 == 1) { // high nibbles; a shift by a count C2 cannot see as constant is not compiled to vector code
                w0 = w0.lanewise(VectorOperators.ASHR, 4);
                w1 = w1.lanewise(VectorOperators.ASHR, 4);
            }
            int at = c + 32 * j;
            var products = w0.and((short) 0x0F).mul(activations(x, at)).add(w1.and((short) 0x0F).mul(activations(x, at + HALF_BLOCK)));
            isum = isum.add(smallPairSums(products).mul(sixBits(scales, j)));
        }
        return isum.reduceLanes(VectorOperators.ADD);
    }

    /** {@code sum_j(min_j * sum_j(xq))} for the super-block whose first 32-value sum is {@code sums[k]}. */
    private static int minSum(long mins, int[] sums, int k) {
        int s = 0;
        for (int j = 0; j < 8; j++) s += sixBits(mins, j) * sums[k + j];
        return s;
    }

    @Override
    float dot(long rowOffset, Q8Activations x, int b) {
        float acc = 0f;
        long block = rowOffset;
        int s = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += SUPER_BLOCK, block += BLOCK_BYTES, s++) {
            float xd = x.d[s];
            acc += scale(block) * xd * integerDot(block, x, c, scales(block))
                    - scale(block + 2) * xd * minSum(mins(block), x.sums, s * 8);
        }
        return acc;
    }

    /** {@link #integerDot(long, Q8Activations, int, long)} for the activations from {@code c0} and {@code c1} at once, into {@code pair}. */
    private void integerDots(long block, Q8Activations x, int c0, int c1, long scales, int[] pair) {
        var isum0 = IntVector.zero(I8);
        var isum1 = IntVector.zero(I8);
        for (int j = 0; j < 8; j++) {
            long qs = block + 16 + 32 * (j / 2);
            var w0 = bytes(qs);
            var w1 = bytes(qs + HALF_BLOCK);
            if (j % 2 == 1) {
                w0 = w0.lanewise(VectorOperators.ASHR, 4);
                w1 = w1.lanewise(VectorOperators.ASHR, 4);
            }
            w0 = w0.and((short) 0x0F);
            w1 = w1.and((short) 0x0F);
            int scale = sixBits(scales, j);
            int at0 = c0 + 32 * j, at1 = c1 + 32 * j;
            isum0 = isum0.add(smallPairSums(w0.mul(activations(x, at0)).add(w1.mul(activations(x, at0 + HALF_BLOCK)))).mul(scale));
            isum1 = isum1.add(smallPairSums(w0.mul(activations(x, at1)).add(w1.mul(activations(x, at1 + HALF_BLOCK)))).mul(scale));
        }
        pair[0] = isum0.reduceLanes(VectorOperators.ADD);
        pair[1] = isum1.reduceLanes(VectorOperators.ADD);
    }

    @Override
    void dot2(long rowOffset, Q8Activations x, int b, float[] out, int outIndex) {
        int[] pair = PAIR.get();
        float acc0 = 0f, acc1 = 0f;
        long block = rowOffset;
        int s0 = b * x.blocksPerRow, s1 = s0 + x.blocksPerRow;
        for (int c0 = b * cols, end = c0 + cols; c0 < end; c0 += SUPER_BLOCK, block += BLOCK_BYTES, s0++, s1++) {
            long mins = mins(block);
            integerDots(block, x, c0, c0 + cols, scales(block), pair);
            float xd0 = x.d[s0], xd1 = x.d[s1];
            acc0 += scale(block) * xd0 * pair[0] - scale(block + 2) * xd0 * minSum(mins, x.sums, s0 * 8);
            acc1 += scale(block) * xd1 * pair[1] - scale(block + 2) * xd1 * minSum(mins, x.sums, s1 * 8);
        }
        out[outIndex] = acc0;
        out[outIndex + rows] = acc1;
    }
}
