package dev.inferd.engine.tensor.format.q4_k;

import dev.inferd.engine.tensor.product.IntDotMatrix;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
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
public final class Q4_KMatrix extends IntDotMatrix {
    private static final int SUPER_BLOCK = 256;
    private static final int BLOCK_BYTES = 144;
    private static final int HALF_BLOCK = 16;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Per thread: {@link #integerDots}'s two results. */
    private static final ThreadLocal<int[]> PAIR = ThreadLocal.withInitial(() -> new int[2]);

    /** Over {@code data}, generated tokens reading {@code copy} where there is one (see {@link InterleavedRows#of}). */
    public Q4_KMatrix(int rows, int cols, MemorySegment data, InterleavedRows copy) {
        super(GGMLType.Q4_K, rows, cols, data, Q8Activations.Q8_K, copy);
    }

    @Override public GGMLType type() { return GGMLType.Q4_K; }

    /**
     * The eight 6-bit scales of a super-block, one per byte (ggml's {@code get_scale_min_k4} for all eight
     * at once), from its header bytes 4-11 ({@code low}) and 12-15 ({@code high}): scales 0-3 are the low
     * 6 bits of bytes 4-7; scales 4-7 the low nibbles of bytes 12-15 under the top 2 bits of bytes 4-7.
     */
    public static long scales(long low, long high) {
        return (low & 0x3F3F3F3FL) | (((high & 0x0F0F0F0FL) | ((low >>> 2) & 0x30303030L)) << 32);
    }

    /** The eight 6-bit mins, likewise: bytes 8-11 for mins 0-3; high nibbles of bytes 12-15 under bytes 8-11's top bits. */
    public static long mins(long low, long high) {
        return ((low >>> 32) & 0x3F3F3F3FL) | ((((high >>> 4) & 0x0F0F0F0FL) | ((low >>> 34) & 0x30303030L)) << 32);
    }

    /** Header bytes 4-11 from its first two longs. */
    public static long low(long h0, long h1) {
        return (h0 >>> 32) | (h1 << 32);
    }

    public static float d(long h0) {
        return Float.float16ToFloat((short) h0);
    }

    public static float dmin(long h0) {
        return Float.float16ToFloat((short) (h0 >>> 16));
    }

    private static int sixBits(long packed, int j) {
        return (int) (packed >>> (8 * j)) & 0xFF;
    }

    /**
     * {@code sum_j(min_j * sum_j(xq))} for the super-block whose first 32-value sum is {@code sums[k]}.
     * Written out: as a loop of eight, C2 split it into three loops with their own bounds checks, about
     * a tenth of the kernel's time.
     */
    private static int minSum(long mins, int[] sums, int k) {
        return sixBits(mins, 0) * sums[k] + sixBits(mins, 1) * sums[k + 1]
                + sixBits(mins, 2) * sums[k + 2] + sixBits(mins, 3) * sums[k + 3]
                + sixBits(mins, 4) * sums[k + 4] + sixBits(mins, 5) * sums[k + 5]
                + sixBits(mins, 6) * sums[k + 6] + sixBits(mins, 7) * sums[k + 7];
    }

    /**
     * {@code sum_j(scale_j * sum(q * xq))} of the super-block at {@code block} with the activations from
     * {@code c}: exact, so the lanes may be added in any order. Each pass takes 32 bytes once for the two
     * sub-blocks they hold (low nibbles, then high). The passes stay a loop that C2 does not unroll while
     * inlining: a body with every sub-block written out outgrows its inlining node budget, and the
     * vector operations it then leaves as calls are boxed (ten times slower).
     */
    private int integerDot(long block, Q8Activations x, int c, long scales) {
        var isum = IntVector.zero(I8);
        for (int p = 0; p < 4; p++) {
            long qs = block + 16 + 32 * p;
            var w0 = S16_CLASS.cast(bytes(qs));
            var w1 = S16_CLASS.cast(bytes(qs + HALF_BLOCK));
            int at = c + 64 * p;
            var low = w0.and((short) 0x0F).mul(activations(x, at))
                    .add(w1.and((short) 0x0F).mul(activations(x, at + HALF_BLOCK)));
            var high = w0.lanewise(VectorOperators.ASHR, 4).and((short) 0x0F).mul(activations(x, at + 2 * HALF_BLOCK))
                    .add(w1.lanewise(VectorOperators.ASHR, 4).and((short) 0x0F).mul(activations(x, at + 3 * HALF_BLOCK)));
            isum = I8_CLASS.cast(isum).add(I8_CLASS.cast(smallPairSums(low)).mul(sixBits(scales, 2 * p)))
                    .add(I8_CLASS.cast(smallPairSums(high)).mul(sixBits(scales, 2 * p + 1)));
        }
        return isum.reduceLanes(VectorOperators.ADD);
    }

    @Override
    public float dot(long rowOffset, Q8Activations x, int b) {
        float acc = 0f;
        long block = rowOffset;
        int s = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += SUPER_BLOCK, block += BLOCK_BYTES, s++) {
            // the 16 header bytes in two reads: each segment read inlines many nodes, and the budget they
            // take is what left the last helpers of this loop as calls
            long h0 = data.get(U64, block), h1 = data.get(U64, block + 8);
            long low = low(h0, h1), high = h1 >>> 32;
            float xd = x.d[s];
            acc += d(h0) * xd * integerDot(block, x, c, scales(low, high))
                    - dmin(h0) * xd * minSum(mins(low, high), x.sums, s * 8);
        }
        return acc;
    }

    /**
     * {@link #integerDot(long, Q8Activations, int, long)} for the activations from {@code c0} and {@code c1}
     * at once, into {@code pair}; the integer sums are exact, so both give the same bits. Still one
     * sub-block per pass: with two activation rows, the two-sub-block pass outgrew C2's node budget and
     * ran as boxed calls (a third of the speed at batch 8).
     */
    private void integerDots(long block, Q8Activations x, int c0, int c1, long scales, int[] pair) {
        var isum0 = IntVector.zero(I8);
        var isum1 = IntVector.zero(I8);
        for (int j = 0; j < 8; j++) {
            long qs = block + 16 + 32 * (j / 2);
            var w0 = S16_CLASS.cast(bytes(qs));
            var w1 = S16_CLASS.cast(bytes(qs + HALF_BLOCK));
            if (j % 2 == 1) {
                w0 = w0.lanewise(VectorOperators.ASHR, 4);
                w1 = w1.lanewise(VectorOperators.ASHR, 4);
            }
            w0 = S16_CLASS.cast(w0).and((short) 0x0F);
            w1 = S16_CLASS.cast(w1).and((short) 0x0F);
            int scale = sixBits(scales, j);
            int at0 = c0 + 32 * j, at1 = c1 + 32 * j;
            isum0 = I8_CLASS.cast(isum0).add(I8_CLASS.cast(smallPairSums(w0.mul(activations(x, at0)).add(w1.mul(activations(x, at0 + HALF_BLOCK))))).mul(scale));
            isum1 = I8_CLASS.cast(isum1).add(I8_CLASS.cast(smallPairSums(w0.mul(activations(x, at1)).add(w1.mul(activations(x, at1 + HALF_BLOCK))))).mul(scale));
        }
        pair[0] = isum0.reduceLanes(VectorOperators.ADD);
        pair[1] = isum1.reduceLanes(VectorOperators.ADD);
    }

    @Override
    public void dot2(long rowOffset, Q8Activations x, int b, float[] out, int outIndex) {
        int[] pair = PAIR.get();
        float acc0 = 0f, acc1 = 0f;
        long block = rowOffset;
        int s0 = b * x.blocksPerRow, s1 = s0 + x.blocksPerRow;
        for (int c0 = b * cols, end = c0 + cols; c0 < end; c0 += SUPER_BLOCK, block += BLOCK_BYTES, s0++, s1++) {
            long h0 = data.get(U64, block), h1 = data.get(U64, block + 8);
            long low = low(h0, h1), high = h1 >>> 32;
            long mins = mins(low, high);
            integerDots(block, x, c0, c0 + cols, scales(low, high), pair);
            float xd0 = x.d[s0], xd1 = x.d[s1];
            acc0 += d(h0) * xd0 * pair[0] - dmin(h0) * xd0 * minSum(mins, x.sums, s0 * 8);
            acc1 += d(h0) * xd1 * pair[1] - dmin(h0) * xd1 * minSum(mins, x.sums, s1 * 8);
        }
        out[outIndex] = acc0;
        out[outIndex + rows] = acc1;
    }

    /** The scalar reference decoding ({@link Q4_KReference}): prompt panels and rows where there is no copy. */
    @Override
    public void dequantizeStored(long at, int count, float[] out, int offset) {
        int blocks = count / GGMLType.Q4_K.blockSize();
        for (int b = 0; b < blocks; b++) {
            Q4_KReference.dequantizeBlock(data, at + (long) b * GGMLType.Q4_K.blockBytes(), out, offset + b * GGMLType.Q4_K.blockSize());
        }
    }
}
