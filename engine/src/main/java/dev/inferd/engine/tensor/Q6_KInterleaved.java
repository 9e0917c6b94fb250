package dev.inferd.engine.tensor;

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
import static jdk.incubator.vector.VectorOperators.B2S;
import static jdk.incubator.vector.VectorOperators.FMA;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.MUL;

/**
 * A copy of a Q6_K matrix laid out for generated tokens ({@link InterleavedRows}), its 6-bit values
 * decoded to signed bytes: the stored layout spreads each value over a nibble and two high bits, and
 * putting them together took most of the stored-layout kernel's time (session 8: a Q6_K row cost four
 * times a Q4_K row of the same length). The copy is 1.3 times the stored size.
 *
 * <p>The two groups of {@link #GROUP} rows of a pass (eight rows with AVX2, sixteen with AVX-512; the counts
 * below are for eight) store, per super-block of 256 columns, 2 x {@link #BLOCK_BYTES} bytes in the order
 * the kernel reads them ({@link InterleavedRows#pairAt}): for each of the sixteen sub-blocks j, a unit of
 * {@link #UNIT_BYTES}: the first group's int8 scales j (byte r is row r's, for the 16 values from
 * {@code 16j}), the second group's, then the first group's values as eight 16-byte steps in which byte
 * {@code 2r + t} of step s is row r's value {@code 16j + 2s + t}, {@code q - 32}, then the second group's;
 * after the sixteen units, the first group's {@code d} as floats, then the second's.
 *
 * <p>Per super-block and row the arithmetic is llama.cpp's: an exact integer sum of
 * {@code scale * sum(q * xq)}, then one float multiply-add by {@code d * xd}. A lane adds 8 products of
 * at most 32 * 127 per sub-block, inside 16 bits; every activation row takes the same {@link #dot}
 * call, so a row's result does not depend on the batch around it.
 */
final class Q6_KInterleaved extends InterleavedRows {
    private static final int SUPER_BLOCK = 256;
    private static final int SUB_BLOCKS = 16;
    private static final int SUB_BLOCK = 16;
    private static final int STEPS = 8;
    private static final int SUB_BLOCK_BYTES = STEPS * STEP_BYTES;
    /** A sub-block of both groups: their scales, their values. */
    private static final int UNIT_BYTES = 2 * GROUP + 2 * SUB_BLOCK_BYTES;
    // within a unit; the second group's come GROUP bytes (scales) or SUB_BLOCK_BYTES (values) after the first's
    private static final int SCALES_AT = 0;
    private static final int QS_AT = 2 * GROUP;
    /** After the units; the second group's come GROUP floats after the first's. */
    private static final int D_AT = SUB_BLOCKS * UNIT_BYTES;
    /** A group's share of a super-block. */
    static final int BLOCK_BYTES = (D_AT + 2 * GROUP * Float.BYTES) / 2;
    private static final long LOW_NIBBLES = 0x0F0F0F0F0F0F0F0FL;
    private static final long TWO_BITS = 0x0303030303030303L;
    private static final long BIT_5 = 0x2020202020202020L;
    /** Per thread: a super-block's values, eight to a long, while it is copied. */
    private static final ThreadLocal<long[]> SUPER_BLOCK_VALUES = ThreadLocal.withInitial(() -> new long[SUPER_BLOCK / Long.BYTES]);

    Q6_KInterleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q6_K, rows, cols, BLOCK_BYTES, memory);
    }

    @Override
    void fillBlock(MemorySegment q6_K, long from, long pair, int place, int r) {
        long[] q = SUPER_BLOCK_VALUES.get();
        decode(q6_K, from, q);
        long inPair = (long) place * GROUP + r; // the row's byte or float among the pass's two groups
        data.set(FLOAT, pair + D_AT + inPair * Float.BYTES, Float.float16ToFloat(q6_K.get(SHORT, from + 208)));
        for (int j = 0; j < SUB_BLOCKS; j++) {
            data.set(BYTE, pair + (long) UNIT_BYTES * j + SCALES_AT + inPair, q6_K.get(BYTE, from + 192 + j));
            for (int s = 0; s < STEPS; s++) {
                // values 16j + 2s and 16j + 2s + 1: bytes 2 (s % 4) of long 2j + s / 4
                data.set(SHORT, valuesAt(pair, j, place) + STEP_BYTES * s + 2L * r,
                        (short) (q[2 * j + s / 4] >>> 16 * (s % 4)));
            }
        }
    }

    /** Where sub-block j's values of the pass's first ({@code place} 0) or second group start. */
    private static long valuesAt(long pair, int j, int place) {
        return pair + (long) UNIT_BYTES * j + QS_AT + (long) place * SUB_BLOCK_BYTES;
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
    void dot(int pass, Q8Activations x, int b, float[] out, int outIndex) {
        MemorySegment data = this.data; // a local: C2 reloaded the field around every block
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var acc0 = FloatVector.zero(GROUP_F);
        var acc1 = FloatVector.zero(GROUP_F);
        long block = pass * passBytes; // both groups' super-block
        int[] activationPairs = x.pairs;
        float[] xd = x.d;
        var isum0 = IntVector.zero(GROUP_I);
        var isum1 = IntVector.zero(GROUP_I);
        // one loop over the row's sub-blocks with the steps written out, as in Q4_KInterleaved (1.8x
        // the loops over super-blocks, sub-blocks and steps, session 11)
        for (int i = b * blocks * SUB_BLOCKS, end = i + blocks * SUB_BLOCKS; i < end; i++) {
            int j = i & (SUB_BLOCKS - 1);
            int p = i * (SUB_BLOCK / 2);
            long unit = block + UNIT_BYTES * j;
            long q0 = unit + QS_AT;
            long q1 = q0 + SUB_BLOCK_BYTES;
            var sum0 = ShortVector.zero(STEP_S);
            var sum1 = ShortVector.zero(STEP_S);
            ShortVector pair;
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 0]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 0 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 0 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 1]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 2]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 3]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 4]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 4 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 4 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 5]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 5 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 5 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 6]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 6 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 6 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            pair = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 7]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 7 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            sum1 = sum1.lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 7 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, pair));
            var scales0 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT, LE).convertShape(B2I, GROUP_I, 0);
            var scales1 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT + GROUP, LE).convertShape(B2I, GROUP_I, 0);
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
        var minusZero = FloatVector.broadcast(GROUP_F, -0f); // exact receivers for the stores: see InterleavedRows
        acc0.lanewise(ADD, minusZero).intoArray(out, outIndex);
        acc1.lanewise(ADD, minusZero).intoArray(out, outIndex + GROUP);
    }

    @Override
    void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane) {
        float[] scales = PANEL_SCALES.get();
        int place = group % 2;
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            var d = FloatVector.fromMemorySegment(GROUP_F, data, pair + D_AT + (long) place * GROUP * Float.BYTES, LE);
            for (int j = 0; j < SUB_BLOCKS; j++) {
                d.lanewise(MUL, (FloatVector) ByteVector.fromMemorySegment(GROUP_B, data, pair + (long) UNIT_BYTES * j + SCALES_AT + (long) place * GROUP, LE)
                        .convertShape(B2F, GROUP_F, 0)).intoArray(scales, 0);
                int column = (k * SUB_BLOCKS + j) * SUB_BLOCK * stride + lane;
                long steps = valuesAt(pair, j, place);
                for (int s = 0; s < STEPS; s++) {
                    signedStepToPanel(steps + (long) s * STEP_BYTES, scales, panel, column + 2 * s * stride, stride);
                }
            }
        }
    }

    /** As the stored decoding (ggml's): {@code d * scale * (q - 32)}, the first product rounded on its own. */
    @Override
    void decode(int row, int firstBlock, int blockCount, float[] out, int offset) {
        int r = row % GROUP;
        int group = row / GROUP, place = group % 2;
        long inPair = row % ROWS_PER_PASS; // the row's byte or float among the pass's two groups
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            float d = data.get(FLOAT, pair + D_AT + inPair * Float.BYTES);
            for (int j = 0; j < SUB_BLOCKS; j++, offset += SUB_BLOCK) {
                var scale = FloatVector.broadcast(F8, d * data.get(BYTE, pair + (long) UNIT_BYTES * j + SCALES_AT + inPair));
                long steps = valuesAt(pair, j, place);
                var q = rowBytes(steps, r);
                ((FloatVector) q.convertShape(B2F, F8, 0)).lanewise(MUL, scale).intoArray(out, offset);
                ((FloatVector) q.convertShape(B2F, F8, 1)).lanewise(MUL, scale).intoArray(out, offset + 8);
            }
        }
    }
}
