package dev.inferd.engine.tensor.format.q5_k;

import dev.inferd.engine.tensor.format.q4_k.Q4_KMatrix;
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
 * Q5_K weights: super-blocks of 256 values as fp16 {@code d} and {@code dmin}, eight 6-bit scales and
 * mins packed in 12 bytes (as Q4_K), 32 bytes of fifth bits and 128 bytes of low nibbles. Each 64 values
 * {@code p} are 32 bytes' low then high nibbles, their fifth bits being bits {@code 2p} and
 * {@code 2p + 1} of the high-bit bytes; value = d * scale * q - dmin * min.
 *
 * <p>Multiplied as Q4_K ({@link Q4_KMatrix}): with the activations in Q8_K blocks, a super-block's share
 * of the dot product is {@code d * xd * sum_j(scale_j * sum(q * xq)) - dmin * xd * sum_j(min_j * sum_j(xq))},
 * integer but for the two float multiplies. Matrices whose rows come in sets of 16 take their
 * {@link Q5_KInterleaved} copy; this stored-layout kernel serves the others.
 */
public final class Q5_KMatrix extends IntDotMatrix {
    private static final int SUPER_BLOCK = 256;
    private static final int BLOCK_BYTES = 176;
    private static final int QH_AT = 16;
    private static final int QS_AT = 48;
    private static final int HALF_BLOCK = 16;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Over {@code data}, generated tokens reading {@code copy} where there is one (see {@link InterleavedRows#of}). */
    public Q5_KMatrix(int rows, int cols, MemorySegment data, InterleavedRows copy) {
        super(GGMLType.Q5_K, rows, cols, data, Q8Activations.Q8_K, copy);
    }

    @Override public GGMLType type() { return GGMLType.Q5_K; }

    /** The 256 values q (0..31) of the super-block at {@code from}, in order, into {@code q}. */
    public static void values(MemorySegment q5_K, long from, int[] q) {
        for (int p = 0; p < 4; p++) {
            for (int l = 0; l < 32; l++) {
                int nibbles = q5_K.get(ValueLayout.JAVA_BYTE, from + QS_AT + 32 * p + l);
                int high = q5_K.get(ValueLayout.JAVA_BYTE, from + QH_AT + l) >>> 2 * p;
                q[64 * p + l] = (nibbles & 0xF) | (high & 1) << 4;
                q[64 * p + 32 + l] = (nibbles >>> 4 & 0xF) | (high & 2) << 3;
            }
        }
    }

    /** Sub-block {@code j}'s 16 values from column {@code l}: nibbles {@code w} (shifted down already) with fifth bits {@code h}. */
    private static ShortVector withFifthBits(ShortVector w, ShortVector h, int j) {
        return S16_CLASS.cast(w).and((short) 0x0F).or(S16_CLASS.cast(h).lanewise(VectorOperators.ASHR, j).and((short) 1).lanewise(VectorOperators.LSHL, 4));
    }

    /**
     * {@code sum_j(scale_j * sum(q * xq))} of the super-block at {@code block} with the activations from
     * {@code c}, exact; a pass takes two sub-blocks' 32 bytes of nibbles once, as {@link Q4_KMatrix}'s.
     * Products are at most 31 * 127, so four of them still fit a 16-bit pair sum.
     */
    private int integerDot(long block, Q8Activations x, int c, long scales) {
        var isum = IntVector.zero(I8);
        var h0 = S16_CLASS.cast(bytes(block + QH_AT));
        var h1 = S16_CLASS.cast(bytes(block + QH_AT + HALF_BLOCK));
        for (int p = 0; p < 4; p++) {
            long qs = block + QS_AT + 32 * p;
            var w0 = S16_CLASS.cast(bytes(qs));
            var w1 = S16_CLASS.cast(bytes(qs + HALF_BLOCK));
            int at = c + 64 * p;
            var low = S16_CLASS.cast(withFifthBits(w0, h0, 2 * p)).mul(activations(x, at))
                    .add(S16_CLASS.cast(withFifthBits(w1, h1, 2 * p)).mul(activations(x, at + HALF_BLOCK)));
            var high = S16_CLASS.cast(withFifthBits(w0.lanewise(VectorOperators.ASHR, 4), h0, 2 * p + 1)).mul(activations(x, at + 2 * HALF_BLOCK))
                    .add(S16_CLASS.cast(withFifthBits(w1.lanewise(VectorOperators.ASHR, 4), h1, 2 * p + 1)).mul(activations(x, at + 3 * HALF_BLOCK)));
            isum = I8_CLASS.cast(isum).add(I8_CLASS.cast(smallPairSums(low)).mul((int) (scales >>> 16 * p) & 0xFF))
                    .add(I8_CLASS.cast(smallPairSums(high)).mul((int) (scales >>> 16 * p + 8) & 0xFF));
        }
        return isum.reduceLanes(VectorOperators.ADD);
    }

    /** {@code sum_j(min_j * sum_j(xq))} for the super-block whose first 32-value sum is {@code sums[k]}. */
    private static int minSum(long mins, int[] sums, int k) {
        int sum = 0;
        for (int j = 0; j < 8; j++) sum += ((int) (mins >>> 8 * j) & 0xFF) * sums[k + j];
        return sum;
    }

    @Override
    public float dot(long rowOffset, Q8Activations x, int b) {
        float acc = 0f;
        long block = rowOffset;
        int s = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += SUPER_BLOCK, block += BLOCK_BYTES, s++) {
            long h0 = data.get(U64, block), h1 = data.get(U64, block + 8);
            long low = Q4_KMatrix.low(h0, h1), high = h1 >>> 32;
            float xd = x.d[s];
            acc += Q4_KMatrix.d(h0) * xd * integerDot(block, x, c, Q4_KMatrix.scales(low, high))
                    - Q4_KMatrix.dmin(h0) * xd * minSum(Q4_KMatrix.mins(low, high), x.sums, s * 8);
        }
        return acc;
    }

    /** The scalar reference decoding ({@link Q5_KReference}): prompt panels and rows where there is no copy. */
    @Override
    public void dequantizeStored(long at, int count, float[] out, int offset) {
        int blocks = count / GGMLType.Q5_K.blockSize();
        for (int b = 0; b < blocks; b++) {
            Q5_KReference.dequantizeBlock(data, at + (long) b * GGMLType.Q5_K.blockBytes(), out, offset + b * GGMLType.Q5_K.blockSize());
        }
    }
}
