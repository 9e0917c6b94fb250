package dev.inferd.engine.tensor;

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
final class Q6_KMatrix extends IntDotMatrix {
    private static final int SUPER_BLOCK = 256;
    private static final int BLOCK_BYTES = 210;

    /** Per thread: the 8 lanes of a super-block's integer sum. */
    private static final ThreadLocal<int[]> LANES = ThreadLocal.withInitial(() -> new int[8]);

    Q6_KMatrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q6_K, rows, cols, data, Q8Activations.Q8_K);
    }

    @Override public GGMLType type() { return GGMLType.Q6_K; }

    /**
     * The super-block at {@code block} with the activations from {@code c}: the sum over its sixteen
     * 16-value groups of {@code scale * sum(q * xq)}, exact, so the lanes may be added in any order.
     */
    private int integerDot(long block, Q8Activations x, int c, int[] lanes) {
        Arrays.fill(lanes, 0);
        for (int n = 0; n < 2; n++) {
            for (int k = 0; k < 4; k++) {
                for (int h = 0; h < 2; h++) {
                    group(block + 64 * n + 32 * (k % 2) + 16 * h, k, block + 128 + 32 * n + 16 * h,
                            data.get(ValueLayout.JAVA_BYTE, block + 192 + 8 * n + 2 * k + h), x, c + 128 * n + 32 * k + 16 * h, lanes);
                }
            }
        }
        return IntVector.fromArray(I8, lanes, 0).reduceLanes(VectorOperators.ADD);
    }

    /**
     * Adds one 16-value group's {@code scale * sum(q * xq)} (8 lanes) into {@code lanes}: for quarter k,
     * nibble {@code k / 2} of the bytes at {@code ql} under bits {@code 2k} of those at {@code qh}, minus 32. One group per call, its lanes kept in an array: every vector stays inside a method small
     * enough for C2's inlining node budget (vectors that cross a call it does not inline are boxed, ten
     * times slower).
     */
    private void group(long ql, int quarter, long qh, int scale, Q8Activations x, int at, int[] lanes) {
        // shifts by constants: by a variable count, 16-bit lanes are shifted in an emulation twice as slow
        var low = bytes(ql);
        var bits = bytes(qh);
        ShortVector high;
        switch (quarter) { // the nibble, and the high bits 2k and 2k + 1 moved to bits 4 and 5
            case 0 -> high = bits.lanewise(VectorOperators.LSHL, 4);
            case 1 -> high = bits.lanewise(VectorOperators.LSHL, 2);
            case 2 -> {
                low = low.lanewise(VectorOperators.ASHR, 4);
                high = bits;
            }
            default -> {
                low = low.lanewise(VectorOperators.ASHR, 4);
                high = bits.lanewise(VectorOperators.ASHR, 2);
            }
        }
        low = low.and((short) 0x0F);
        high = high.and((short) 0x30);
        var products = low.or(high).sub((short) 32).mul(activations(x, at));
        IntVector.fromArray(I8, lanes, 0).add(smallPairSums(products).mul(scale)).intoArray(lanes, 0);
    }

    @Override
    float dot(long rowOffset, Q8Activations x, int b) {
        int[] lanes = LANES.get();
        float acc = 0f;
        long block = rowOffset;
        int s = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += SUPER_BLOCK, block += BLOCK_BYTES, s++) {
            acc += scale(block + 208) * x.d[s] * integerDot(block, x, c, lanes);
        }
        return acc;
    }
}
