package dev.inferd.engine.tensor.format.q6_k;

import dev.inferd.engine.tensor.product.IntDotMatrix;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Q6_K weights: super-blocks of 256 values as 128 bytes of low nibbles, 64 bytes of 2-bit high parts,
 * sixteen int8 scales (one per 16 values) and an fp16 {@code d}. Per half {@code n} (128 values: low
 * bytes from {@code 64n}, high bytes from {@code 32n}, scales from {@code 8n}), value {@code 32k + l}
 * ({@code k < 4}, {@code l < 32}) is nibble {@code k / 2} of low byte {@code l + 32 (k % 2)} with bits
 * {@code 2k} of high byte {@code l} above it, minus 32, times {@code d * scale[2k + l / 16]}.
 *
 * <p>With the activations in Q8_K blocks, a super-block's share is {@code d * xd * sum(scale * sum(q * xq))}
 * over its sixteen 16-value groups: one 16-lane product per group (at most 32 * 127 per lane), its pair
 * sums times the group's scale, all in integers. Each group reads its own 16 bytes of nibbles and of
 * high bits (the same bytes serve two and four groups, and stay in L1): decoding several groups at once
 * made the method too big for C2.
 */
public final class Q6_KMatrix extends IntDotMatrix {
    private static final int SUPER_BLOCK = 256;
    private static final int BLOCK_BYTES = 210;

    /** Per thread: the 8 lanes of a super-block's integer sum. */
    private static final ThreadLocal<int[]> LANES = ThreadLocal.withInitial(() -> new int[8]);

    /** Over {@code data}, generated tokens reading {@code copy} where there is one (see {@link InterleavedRows#of}). */
    public Q6_KMatrix(int rows, int cols, MemorySegment data, InterleavedRows copy) {
        super(GGMLType.Q6_K, rows, cols, data, Q8Activations.Q8_K, copy);
    }

    @Override public GGMLType type() { return GGMLType.Q6_K; }

    /**
     * The super-block at {@code block} with the activations from {@code c}: the sum over its sixteen
     * 16-value groups of {@code scale * sum(q * xq)}, exact, so the lanes may be added in any order.
     */
    private int integerDot(long block, Q8Activations x, int c, int[] lanes) {
        Arrays.fill(lanes, 0);
        for (int n = 0; n < 2; n++) {
            for (int h = 0; h < 2; h++) {
                for (int odd = 0; odd < 2; odd++) quarters(block, n, h, odd, x, c, lanes);
            }
        }
        return IntVector.fromArray(I8, lanes, 0).reduceLanes(VectorOperators.ADD);
    }

    /**
     * Adds to {@code lanes} the two groups that share their low bytes: in half n, values
     * {@code 32k + 16h .. 32k + 16h + 15} for quarters {@code k = odd} and {@code k = odd + 2}, from the
     * low bytes {@code 64n + 32 odd + 16h}, nibble {@code k / 2}, under bits {@code 2k} of the high bytes
     * {@code 32n + 16h}. Shifts are by constants: by a variable count, 16-bit lanes are shifted in an
     * emulation twice as slow. The vectors stay in this method (C2 boxes a vector that crosses a call it
     * does not inline), and only the lanes' sum leaves it, through the array; two groups is what fits in
     * C2's node budget for one compiled method.
     */
    private void quarters(long block, int n, int h, int odd, Q8Activations x, int c, int[] lanes) {
        long scales = block + 192 + 8 * n + h + 2 * odd;
        int at = c + 128 * n + 16 * h + 32 * odd;
        // read before the decoding: read after it, past C2's inlining budget, the load dispatched on a shared profile
        var total = I8_CLASS.cast(IntVector.fromArray(I8, lanes, 0));
        var low = S16_CLASS.cast(bytes(block + 64 * n + 32 * odd + 16 * h));
        var high = S16_CLASS.cast(bytes(block + 128 + 32 * n + 16 * h));
        if (odd != 0) high = high.lanewise(VectorOperators.ASHR, 2);
        var q = low.and((short) 0x0F).or(high.lanewise(VectorOperators.LSHL, 4).and((short) 0x30));
        var sum = I8_CLASS.cast(smallPairSums(q.sub((short) 32).mul(activations(x, at)))).mul(scale8(scales));
        q = low.lanewise(VectorOperators.ASHR, 4).and((short) 0x0F).or(high.and((short) 0x30));
        sum = sum.add(I8_CLASS.cast(smallPairSums(q.sub((short) 32).mul(activations(x, at + 64)))).mul(scale8(scales + 4)));
        I8_CLASS.cast(total.add(sum)).intoArray(lanes, 0);
    }

    private int scale8(long at) {
        return data.get(ValueLayout.JAVA_BYTE, at);
    }

    @Override
    public float dot(long rowOffset, Q8Activations x, int b) {
        int[] lanes = LANES.get();
        float acc = 0f;
        long block = rowOffset;
        int s = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += SUPER_BLOCK, block += BLOCK_BYTES, s++) {
            acc += scale(block + 208) * x.d[s] * integerDot(block, x, c, lanes);
        }
        return acc;
    }

    /** The scalar reference decoding ({@link Q6_KReference}): prompt panels and rows where there is no copy. */
    @Override
    public void dequantizeStored(long at, int count, float[] out, int offset) {
        int blocks = count / GGMLType.Q6_K.blockSize();
        for (int b = 0; b < blocks; b++) {
            Q6_KReference.dequantizeBlock(data, at + (long) b * GGMLType.Q6_K.blockBytes(), out, offset + b * GGMLType.Q6_K.blockSize());
        }
    }
}
