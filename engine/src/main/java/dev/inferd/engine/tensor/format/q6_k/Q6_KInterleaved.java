package dev.inferd.engine.tensor.format.q6_k;

import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;

import java.lang.foreign.MemorySegment;

import static jdk.incubator.vector.VectorOperators.ADD;
import static jdk.incubator.vector.VectorOperators.ASHR;
import static jdk.incubator.vector.VectorOperators.B2F;
import static jdk.incubator.vector.VectorOperators.B2I;
import static jdk.incubator.vector.VectorOperators.BITWISE_BLEND;
import static jdk.incubator.vector.VectorOperators.FMA;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.MUL;

/**
 * A copy of a Q6_K matrix laid out for generated tokens ({@link InterleavedRows}), its 6-bit values
 * packed eight to three 16-bit lanes, as many bits as the stored layout. The stored layout spreads each
 * value over a nibble and two high bits, and putting them together took most of the stored-layout
 * kernel's time (a Q6_K row cost four times a Q4_K row of the same length); the copy then
 * held one byte a value, 1.3 times the stored size, and a generated token reads all of it: in a Q4_K_M
 * model the Q6_K tensors (the output matrix, half the layers' values and feed-forward down products)
 * made the copy 1.13 times the file, the whole of the one-stream gap to llama.cpp. Three
 * lanes give eight values with fifteen vector operations, most a shift or two, and the copy is 1.01
 * times the stored size (its {@code d} a float).
 *
 * <p>Values are {@code v = q - 32} (-32..31) in six bits, two's complement. For one sub-block of 16
 * values and one group of {@link #GROUP} rows, lane {@code 2r + t} (t = 0, 1) of three {@link #STEP_S}
 * vectors A, B and C holds row r's values {@code v_s}, s = 0..7, each the row's value {@code 2s + t} of
 * the sub-block (the activations' pair s of the sub-block, {@link Q8Activations#pairs}, meets every
 * lane's {@code v_s}):
 * <pre>
 *   A: v_6 bits 0-3 | v_0 << 4 | v_1 << 10
 *   B: v_7 bits 0-3 | v_2 << 4 | v_3 << 10
 *   C: v_4 | v_5 << 6 | v_6 bits 4-5 << 12 | v_7 bits 4-5 << 14
 * </pre>
 * so that {@code v_1}, {@code v_3} are one arithmetic shift out of their lane, {@code v_0}, {@code v_2},
 * {@code v_4}, {@code v_5} a shift up and one down, and {@code v_6}, {@code v_7} their high bits shifted
 * down into bits 4-5 (sign-extended) with the low nibble put in by one bitwise blend.
 *
 * <p>The two groups of a pass store, per super-block of 256 columns, 2 x {@link #BLOCK_BYTES} bytes
 * ({@link InterleavedRows#pairAt}): for each two sub-blocks 2i and 2i + 1, their int8 scales (sub-block
 * 2i's: the first group's {@link #GROUP} bytes, a byte a row, then the second's; then 2i + 1's) and then
 * their values (sub-block 2i's A, B and C of the first group, of the second, then 2i + 1's); after the
 * eight pairs, the first group's {@code d} as floats and the second's. With sixteen rows to a group, scales
 * and values come in whole cache lines, in the order the kernel reads them: with all sixteen sub-blocks'
 * scales first, a thread read two places of each super-block at once and streamed from memory at two
 * thirds of the speed.
 *
 * <p>Per super-block and row the arithmetic is llama.cpp's: an exact integer sum of
 * {@code scale * sum(q * xq)}, then one float multiply-add by {@code d * xd}. A lane adds 8 products of
 * at most 32 * 127 per sub-block, inside 16 bits; every activation row takes the same {@link #dot}
 * call, so a row's result does not depend on the batch around it.
 */
public final class Q6_KInterleaved extends InterleavedRows {
    private static final int SUPER_BLOCK = 256;
    private static final int SUB_BLOCKS = 16;
    private static final int SUB_BLOCK = 16;
    /** Pairs of values a sub-block holds per row: the activations' pairs it meets. */
    private static final int STEPS = 8;
    private static final int LANES = 3;
    private static final int STEP = LANE_STEP_BYTES;
    /** A group's A, B and C of one sub-block. */
    private static final int SUB_BLOCK_BYTES = LANES * STEP;
    /**
     * Two sub-blocks' scales (64 bytes where {@link #GROUP} is 16: sub-block 2i's of the first group, of the
     * second, then sub-block 2i + 1's) and values (the first group's A, B, C of sub-block 2i, the second's,
     * then 2i + 1's), so that both come in whole cache lines, in the order the kernel reads them.
     */
    private static final int TWIN_BYTES = 4 * GROUP + 4 * SUB_BLOCK_BYTES;
    /** After the sixteen sub-blocks; the second group's come GROUP floats after the first's. */
    private static final int D_AT = SUB_BLOCKS / 2 * TWIN_BYTES;
    /** A group's share of a super-block: 212 bytes a row against 210 stored. */
    public static final int BLOCK_BYTES = (D_AT + 2 * GROUP * Float.BYTES) / 2;
    private static final long LOW_NIBBLES = 0x0F0F0F0F0F0F0F0FL;
    private static final long TWO_BITS = 0x0303030303030303L;
    private static final long BIT_5 = 0x2020202020202020L;
    /** Per thread: a super-block's values, eight to a long, while it is copied. */
    private static final ThreadLocal<long[]> SUPER_BLOCK_VALUES = ThreadLocal.withInitial(() -> new long[SUPER_BLOCK / Long.BYTES]);
    /** Per thread: one group's eight steps of a sub-block, decoded to shorts (a {@link #STEP_S} vector each), for a panel. */
    private static final ThreadLocal<short[]> PANEL_STEPS = ThreadLocal.withInitial(() -> new short[STEPS * 2 * GROUP]);

    public Q6_KInterleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q6_K, rows, cols, BLOCK_BYTES, memory);
    }

    @Override
    public void fillBlock(MemorySegment q6_K, long from, long pair, int place, int r) {
        long[] q = SUPER_BLOCK_VALUES.get();
        decode(q6_K, from, q);
        long inPair = (long) place * GROUP + r; // the row's byte or float among the pass's two groups
        data.set(FLOAT, pair + D_AT + inPair * Float.BYTES, Float.float16ToFloat(q6_K.get(SHORT, from + 208)));
        for (int j = 0; j < SUB_BLOCKS; j++) {
            data.set(BYTE, scalesAt(pair, j) + inPair, q6_K.get(BYTE, from + 192 + j));
            long values = valuesAt(pair, j, place);
            for (int t = 0; t < 2; t++) {
                int first = SUB_BLOCK * j + t; // the row's value 2s + t of the sub-block is q's value first + 2s
                long lane = 2L * (2 * r + t);
                int v6 = sixBits(q, first + 12), v7 = sixBits(q, first + 14);
                data.set(SHORT, values + lane, (short) (v6 & 0xF | sixBits(q, first) << 4 | sixBits(q, first + 2) << 10));
                data.set(SHORT, values + STEP + lane, (short) (v7 & 0xF | sixBits(q, first + 4) << 4 | sixBits(q, first + 6) << 10));
                data.set(SHORT, values + 2 * STEP + lane,
                        (short) (sixBits(q, first + 8) | sixBits(q, first + 10) << 6 | v6 >> 4 << 12 | v7 >> 4 << 14));
            }
        }
    }

    /** Value l of a super-block decoded by {@link #decode(MemorySegment, long, long[])}, {@code q - 32} in six bits. */
    private static int sixBits(long[] q, int l) {
        return (int) (q[l >>> 3] >>> 8 * (l & 7)) & 0x3F;
    }

    /** Where sub-block j's scales start, the first group's {@link #GROUP} bytes and then the second's. */
    private static long scalesAt(long pair, int j) {
        return pair + (long) TWIN_BYTES * (j >> 1) + 2L * GROUP * (j & 1);
    }

    /** Where sub-block j's values of the pass's first ({@code place} 0) or second group start. */
    private static long valuesAt(long pair, int j, int place) {
        return pair + (long) TWIN_BYTES * (j >> 1) + 4L * GROUP + (long) (2 * (j & 1) + place) * SUB_BLOCK_BYTES;
    }

    /**
     * The 256 values {@code q - 32} of the super-block at {@code from} (the layout is in {@link Q6_KMatrix}),
     * eight signed bytes to a long, decoded eight at a time.
     */
    private static void decode(MemorySegment q6_K, long from, long[] q) {
        for (int n = 0; n < 2; n++) {
            for (int l = 0; l < 32; l += Long.BYTES) {
                long low0 = q6_K.get(LONG, from + 64 * n + l);
                long low1 = q6_K.get(LONG, from + 64 * n + 32 + l);
                long high = q6_K.get(LONG, from + 128 + 32 * n + l);
                int at = (128 * n + l) / Long.BYTES;
                q[at] = centred(low0 & LOW_NIBBLES | (high & TWO_BITS) << 4);
                q[at + 4] = centred(low1 & LOW_NIBBLES | (high >>> 2 & TWO_BITS) << 4);
                q[at + 8] = centred(low0 >>> 4 & LOW_NIBBLES | (high >>> 4 & TWO_BITS) << 4);
                q[at + 12] = centred(low1 >>> 4 & LOW_NIBBLES | (high >>> 6 & TWO_BITS) << 4);
            }
        }
    }

    /**
     * Eight 6-bit values (0..63), one a byte, as signed bytes {@code q - 32}: flipping bit 5 gives
     * {@code q - 32} in six bits, and copying the new bit 5 up to bits 6 and 7 extends its sign.
     */
    private static long centred(long sixBits) {
        long flipped = sixBits ^ BIT_5;
        long sign = flipped & BIT_5;
        return flipped | sign << 1 | sign << 2;
    }

    @Override
    public void dot(int pass, Q8Activations x, int b, float[] out, int outIndex) {
        MemorySegment data = this.data; // a local: C2 reloaded the field around every block
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var two = ShortVector.broadcast(STEP_S, (short) 2);
        var four = ShortVector.broadcast(STEP_S, (short) 4);
        var six = ShortVector.broadcast(STEP_S, (short) 6);
        var ten = ShortVector.broadcast(STEP_S, (short) 10);
        var lowNibble = ShortVector.broadcast(STEP_S, (short) 0xF);
        var acc0 = FloatVector.zero(GROUP_F);
        var acc1 = FloatVector.zero(GROUP_F);
        long block = pass * passBytes; // both groups' super-block
        int[] activationPairs = x.pairs;
        float[] xd = x.d;
        var isum0 = IntVector.zero(GROUP_I);
        var isum1 = IntVector.zero(GROUP_I);
        // one loop over the row's sub-blocks with the steps written out, as in Q4_KInterleaved (1.8x
        // the loops over super-blocks, sub-blocks and steps)
        for (int i = b * blocks * SUB_BLOCKS, end = i + blocks * SUB_BLOCKS; i < end; i++) {
            int j = i & (SUB_BLOCKS - 1);
            int p = i * STEPS;
            long twin = block + TWIN_BYTES * (j >> 1); // scalesAt and valuesAt written out: see InterleavedRows
            long scales = twin + 2 * GROUP * (j & 1);
            long values0 = twin + 4 * GROUP + 2 * SUB_BLOCK_BYTES * (j & 1);
            long values1 = values0 + SUB_BLOCK_BYTES;
            var a0 = ShortVector.fromMemorySegment(STEP_S, data, values0, LE);
            var b0 = ShortVector.fromMemorySegment(STEP_S, data, values0 + STEP, LE);
            var c0 = ShortVector.fromMemorySegment(STEP_S, data, values0 + 2 * STEP, LE);
            var a1 = ShortVector.fromMemorySegment(STEP_S, data, values1, LE);
            var b1 = ShortVector.fromMemorySegment(STEP_S, data, values1 + STEP, LE);
            var c1 = ShortVector.fromMemorySegment(STEP_S, data, values1 + 2 * STEP, LE);
            ShortVector pair;
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 0]).reinterpretShape(STEP_S, 0);
            var sum0 = a0.lanewise(LSHL, six).lanewise(ASHR, ten).lanewise(MUL, pair);
            var sum1 = a1.lanewise(LSHL, six).lanewise(ASHR, ten).lanewise(MUL, pair);
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 1]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, a0.lanewise(ASHR, ten).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, a1.lanewise(ASHR, ten).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 2]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, b0.lanewise(LSHL, six).lanewise(ASHR, ten).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, b1.lanewise(LSHL, six).lanewise(ASHR, ten).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 3]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, b0.lanewise(ASHR, ten).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, b1.lanewise(ASHR, ten).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 4]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, c0.lanewise(LSHL, ten).lanewise(ASHR, ten).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, c1.lanewise(LSHL, ten).lanewise(ASHR, ten).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 5]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, c0.lanewise(LSHL, four).lanewise(ASHR, ten).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, c1.lanewise(LSHL, four).lanewise(ASHR, ten).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 6]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, c0.lanewise(LSHL, two).lanewise(ASHR, ten).lanewise(BITWISE_BLEND, a0, lowNibble).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, c1.lanewise(LSHL, two).lanewise(ASHR, ten).lanewise(BITWISE_BLEND, a1, lowNibble).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 7]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, c0.lanewise(ASHR, ten).lanewise(BITWISE_BLEND, b0, lowNibble).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, c1.lanewise(ASHR, ten).lanewise(BITWISE_BLEND, b1, lowNibble).lanewise(MUL, pair));
            var scales0 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, scales, LE).convertShape(B2I, GROUP_I, 0);
            var scales1 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, scales + GROUP, LE).convertShape(B2I, GROUP_I, 0);
            // IntDotMatrix.pairSums written out (see InterleavedRows): a pair may pass 16 bits
            var pairs0 = (IntVector) sum0.reinterpretShape(GROUP_I, 0);
            var pairs1 = (IntVector) sum1.reinterpretShape(GROUP_I, 0);
            isum0 = isum0.lanewise(ADD, pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen)).lanewise(MUL, scales0));
            isum1 = isum1.lanewise(ADD, pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen)).lanewise(MUL, scales1));
            if (j == SUB_BLOCKS - 1) {
                float d = xd[i / SUB_BLOCKS];
                acc0 = ((FloatVector) isum0.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, block + D_AT, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
                acc1 = ((FloatVector) isum1.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, block + D_AT + GROUP * Float.BYTES, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
                isum0 = IntVector.zero(GROUP_I);
                isum1 = IntVector.zero(GROUP_I);
                block += 2 * BLOCK_BYTES;
            }
        }
        GROUP_F_CLASS.cast(acc0).intoArray(out, outIndex);
        GROUP_F_CLASS.cast(acc1).intoArray(out, outIndex + GROUP);
    }

    @Override
    public void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane) {
        float[] scales = PANEL_SCALES.get();
        short[] steps = PANEL_STEPS.get();
        int place = group % 2;
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            var d = FloatVector.fromMemorySegment(GROUP_F, data, pair + D_AT + (long) place * GROUP * Float.BYTES, LE);
            for (int j = 0; j < SUB_BLOCKS; j++) {
                GROUP_F_CLASS.cast(d.lanewise(MUL, (FloatVector) ByteVector.fromMemorySegment(GROUP_B, data, scalesAt(pair, j) + (long) place * GROUP, LE)
                        .convertShape(B2F, GROUP_F, 0))).intoArray(scales, 0);
                var scale = FloatVector.fromArray(GROUP_F, scales, 0);
                int column = (k * SUB_BLOCKS + j) * SUB_BLOCK * stride + lane;
                decodeSteps(valuesAt(pair, j, place), steps);
                for (int s = 0; s < STEPS; s++) {
                    // a row's two values of the step, in the halves of its int
                    var values = (IntVector) ShortVector.fromArray(STEP_S, steps, s * 2 * GROUP).reinterpretShape(GROUP_I, 0);
                    var even = values.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen);
                    var odd = values.lanewise(ASHR, sixteen);
                    GROUP_F_CLASS.cast(((FloatVector) even.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale)).intoArray(panel, column + 2 * s * stride);
                    GROUP_F_CLASS.cast(((FloatVector) odd.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale)).intoArray(panel, column + (2 * s + 1) * stride);
                }
            }
        }
    }

    /**
     * A group's eight steps of a sub-block (its A, B and C from {@code values}) as {@link #STEP_S} vectors of
     * {@code v}, one after another in {@code steps}: the kernel's decoding.
     */
    private void decodeSteps(long values, short[] steps) {
        var two = ShortVector.broadcast(STEP_S, (short) 2);
        var four = ShortVector.broadcast(STEP_S, (short) 4);
        var six = ShortVector.broadcast(STEP_S, (short) 6);
        var ten = ShortVector.broadcast(STEP_S, (short) 10);
        var lowNibble = ShortVector.broadcast(STEP_S, (short) 0xF);
        var a = ShortVector.fromMemorySegment(STEP_S, data, values, LE);
        var b = ShortVector.fromMemorySegment(STEP_S, data, values + STEP, LE);
        var c = ShortVector.fromMemorySegment(STEP_S, data, values + 2 * STEP, LE);
        int n = 2 * GROUP;
        STEP_S_CLASS.cast(a.lanewise(LSHL, six).lanewise(ASHR, ten)).intoArray(steps, 0);
        STEP_S_CLASS.cast(a.lanewise(ASHR, ten)).intoArray(steps, n);
        STEP_S_CLASS.cast(b.lanewise(LSHL, six).lanewise(ASHR, ten)).intoArray(steps, 2 * n);
        STEP_S_CLASS.cast(b.lanewise(ASHR, ten)).intoArray(steps, 3 * n);
        STEP_S_CLASS.cast(c.lanewise(LSHL, ten).lanewise(ASHR, ten)).intoArray(steps, 4 * n);
        STEP_S_CLASS.cast(c.lanewise(LSHL, four).lanewise(ASHR, ten)).intoArray(steps, 5 * n);
        STEP_S_CLASS.cast(c.lanewise(LSHL, two).lanewise(ASHR, ten).lanewise(BITWISE_BLEND, a, lowNibble)).intoArray(steps, 6 * n);
        STEP_S_CLASS.cast(c.lanewise(ASHR, ten).lanewise(BITWISE_BLEND, b, lowNibble)).intoArray(steps, 7 * n);
    }

    /** As the stored decoding (ggml's): {@code d * scale * (q - 32)}, the first product rounded on its own. */
    @Override
    public void decode(int row, int firstBlock, int blockCount, float[] out, int offset) {
        int r = row % GROUP;
        int group = row / GROUP, place = group % 2;
        long inPair = row % ROWS_PER_PASS; // the row's byte or float among the pass's two groups
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            float d = data.get(FLOAT, pair + D_AT + inPair * Float.BYTES);
            for (int j = 0; j < SUB_BLOCKS; j++, offset += SUB_BLOCK) {
                float scale = d * data.get(BYTE, scalesAt(pair, j) + inPair);
                long values = valuesAt(pair, j, place);
                for (int t = 0; t < 2; t++) {
                    long lane = 2L * (2 * r + t);
                    int a = data.get(SHORT, values + lane), b = data.get(SHORT, values + STEP + lane), c = data.get(SHORT, values + 2 * STEP + lane);
                    for (int s = 0; s < STEPS; s++) out[offset + 2 * s + t] = scale * value(a, b, c, s);
                }
            }
        }
    }

    /** Value {@code v_s} of a row's lanes A, B and C (sign-extended shorts): the kernel's decoding, one lane. */
    private static int value(int a, int b, int c, int s) {
        return switch (s) {
            case 0 -> (short) (a << 6) >> 10;
            case 1 -> a >> 10;
            case 2 -> (short) (b << 6) >> 10;
            case 3 -> b >> 10;
            case 4 -> (short) (c << 10) >> 10;
            case 5 -> (short) (c << 4) >> 10;
            case 6 -> (short) (c << 2) >> 10 & ~0xF | a & 0xF;
            default -> c >> 10 & ~0xF | b & 0xF;
        };
    }
}
