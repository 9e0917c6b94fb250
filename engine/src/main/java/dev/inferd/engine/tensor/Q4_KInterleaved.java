package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;

import java.lang.foreign.MemorySegment;

import static jdk.incubator.vector.VectorOperators.ADD;
import static jdk.incubator.vector.VectorOperators.AND;
import static jdk.incubator.vector.VectorOperators.ASHR;
import static jdk.incubator.vector.VectorOperators.B2I;
import static jdk.incubator.vector.VectorOperators.B2S;
import static jdk.incubator.vector.VectorOperators.FMA;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.MUL;
import static jdk.incubator.vector.VectorOperators.NEG;
import static jdk.incubator.vector.VectorOperators.SUB;

/**
 * A copy of a Q4_K matrix laid out for generated tokens, {@link #GROUP} rows interleaved as in
 * {@link Q4_0Interleaved}: a lane follows one row, so a pass gives sixteen rows' products with no sum
 * across lanes, and the per-sub-block scales are vectors of eight rows instead of scalars broadcast one
 * at a time (the stored-layout kernel ran at about a third of llama.cpp's speed, session 8).
 *
 * <p>The two groups of {@link #GROUP} rows of a pass (eight rows with AVX2, sixteen with AVX-512; the counts
 * below are for eight) store, per super-block of 256 columns, 2 x {@link #BLOCK_BYTES} bytes in the order
 * the kernel reads them ({@link InterleavedRows#pairAt}):
 * <ul>
 *   <li>for each of the eight sub-blocks j, a unit of {@link #UNIT_BYTES}: the first group's 6-bit scales
 *       j as bytes (byte r is row r's), the second group's, the first group's mins j, the second's; then
 *       the first group's 32 values of the sub-block as eight 16-byte steps exactly like a
 *       {@link Q4_0Interleaved} block (a row's 16 bytes carry values i in the low nibble and 16 + i in the
 *       high one, and byte {@code 2r + t} of step s is row r's byte {@code 2s + t}), then the second group's;</li>
 *   <li>then the first group's {@code d} as floats, the second's, the first group's {@code -dmin}, the second's.</li>
 * </ul>
 * The stored layout packs sub-blocks 2p and 2p + 1 into the low and high nibbles of the same 32
 * bytes; the copy regroups them so that every sub-block takes the same eight steps.
 *
 * <p>Per super-block and row the arithmetic is llama.cpp's: exact integer sums of {@code scale * sum(q * xq)}
 * and of {@code min * sum(xq)}, then two float multiply-adds by {@code d * xd} and {@code -dmin * xd}.
 * A lane adds 16 products of at most 15 * 127 per sub-block, inside 16 bits; every activation row takes
 * the same {@link #dot} call, so a row's result does not depend on the batch around it.
 */
final class Q4_KInterleaved extends InterleavedRows {
    private static final int SUB_BLOCKS = 8;
    private static final int SUB_BLOCK = 32;
    private static final int STEPS = 8;
    private static final int SUB_BLOCK_BYTES = STEPS * STEP_BYTES;
    /** A sub-block of both groups: their scales, their mins, their values. */
    private static final int UNIT_BYTES = 4 * GROUP + 2 * SUB_BLOCK_BYTES;
    // within a unit; the second group's come GROUP bytes (scales, mins) or SUB_BLOCK_BYTES (values) after the first's
    private static final int SCALES_AT = 0;
    private static final int MINS_AT = 2 * GROUP;
    private static final int QS_AT = 4 * GROUP;
    // after the units; the second group's come GROUP floats after the first's
    private static final int D_AT = SUB_BLOCKS * UNIT_BYTES;
    private static final int MINUS_DMIN_AT = D_AT + 2 * GROUP * Float.BYTES;
    /** A group's share of a super-block: the copy is 1.06 times the stored size. */
    static final int BLOCK_BYTES = (MINUS_DMIN_AT + 2 * GROUP * Float.BYTES) / 2;
    private static final long LOW_NIBBLES = 0x0F0F0F0F0F0F0F0FL;

    Q4_KInterleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q4_K, rows, cols, BLOCK_BYTES, memory);
    }

    @Override
    void fillBlock(MemorySegment q4_K, long from, long pair, int place, int r) {
        long h0 = q4_K.get(LONG, from), h1 = q4_K.get(LONG, from + 8);
        long low = Q4_KMatrix.low(h0, h1), high = h1 >>> 32;
        long scales = Q4_KMatrix.scales(low, high), mins = Q4_KMatrix.mins(low, high);
        long inPair = (long) place * GROUP + r; // the row's byte or float among the pass's two groups
        data.set(FLOAT, pair + D_AT + inPair * Float.BYTES, Q4_KMatrix.d(h0));
        data.set(FLOAT, pair + MINUS_DMIN_AT + inPair * Float.BYTES, -Q4_KMatrix.dmin(h0));
        for (int j = 0; j < SUB_BLOCKS; j++) {
            data.set(BYTE, pair + (long) UNIT_BYTES * j + SCALES_AT + inPair, (byte) (scales >>> 8 * j));
            data.set(BYTE, pair + (long) UNIT_BYTES * j + MINS_AT + inPair, (byte) (mins >>> 8 * j));
        }
        for (int p = 0; p < SUB_BLOCKS / 2; p++) {
            long qs = from + 16 + 32L * p;
            // sub-block 2p is the low nibbles of the 32 bytes, 2p + 1 the high ones: each becomes
            // 16 bytes with values i and 16 + i in the low and high nibble of byte i
            for (int half = 0; half < 2; half++) {
                long first = q4_K.get(LONG, qs + 8 * half), second = q4_K.get(LONG, qs + 16 + 8 * half);
                long even = (first & LOW_NIBBLES) | (second & LOW_NIBBLES) << 4;
                long odd = (first >>> 4 & LOW_NIBBLES) | (second & ~LOW_NIBBLES);
                interleave(valuesAt(pair, 2 * p, place), r, half, even);
                interleave(valuesAt(pair, 2 * p + 1, place), r, half, odd);
            }
        }
    }

    /** Where sub-block j's values of the pass's first ({@code place} 0) or second group start. */
    private static long valuesAt(long pair, int j, int place) {
        return pair + (long) UNIT_BYTES * j + QS_AT + (long) place * SUB_BLOCK_BYTES;
    }

    /** Row r's bytes {@code 8 * half .. 8 * half + 7} of a sub-block, two to a step. */
    private void interleave(long subBlock, int r, int half, long bytes) {
        for (int s = 0; s < STEPS / 2; s++) {
            data.set(SHORT, subBlock + (long) (s + half * STEPS / 2) * STEP_BYTES + 2L * r, (short) (bytes >>> 16 * s));
        }
    }

    @Override
    void dot(int pass, Q8Activations x, int b, float[] out, int outIndex) {
        MemorySegment data = this.data; // a local: C2 reloaded the field around every block
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var four = ShortVector.broadcast(STEP_S, (short) 4);
        var acc0 = FloatVector.zero(GROUP_F);
        var acc1 = FloatVector.zero(GROUP_F);
        long pair = pass * passBytes;
        int[] activationPairs = x.pairs;
        int[] sums = x.sums;
        float[] xd = x.d;
        var nibble = ShortVector.broadcast(STEP_S, (short) 0x0F);
        var isum0 = IntVector.zero(GROUP_I);
        var isum1 = IntVector.zero(GROUP_I);
        var msum0 = IntVector.zero(GROUP_I);
        var msum1 = IntVector.zero(GROUP_I);
        // one loop over the row's sub-blocks, the super-block's float step on every eighth: nested in a
        // loop over super-blocks, the sub-block loop was split into pre-, main and post-loops with the
        // range checks redone around it, and ran at 0.55x (session 11). The steps are written out as in
        // Q4_0Interleaved, with the bytes sign-extended and both nibbles masked
        for (int i = b * blocks * SUB_BLOCKS, end = i + blocks * SUB_BLOCKS; i < end; i++) {
            int j = i & (SUB_BLOCKS - 1);
            int p = i * (SUB_BLOCK / 2);
            long unit = pair + UNIT_BYTES * j;
            long q0 = unit + QS_AT;
            long q1 = q0 + SUB_BLOCK_BYTES;
            var sum0 = ShortVector.zero(STEP_S);
            var sum1 = ShortVector.zero(STEP_S);
            ShortVector w0, w1, low, high;
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 0 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 0 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 0]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + STEPS + 0]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 1]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + STEPS + 1]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 2]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + STEPS + 2]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 3]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + STEPS + 3]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 4 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 4 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 4]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + STEPS + 4]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 5 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 5 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 5]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + STEPS + 5]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 6 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 6 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 6]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + STEPS + 6]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q0 + 7 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, q1 + 7 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 7]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + STEPS + 7]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            int xsum = sums[i];
            var scales0 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT, LE).convertShape(B2I, GROUP_I, 0);
            var scales1 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT + GROUP, LE).convertShape(B2I, GROUP_I, 0);
            var mins0 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + MINS_AT, LE).convertShape(B2I, GROUP_I, 0);
            var mins1 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + MINS_AT + GROUP, LE).convertShape(B2I, GROUP_I, 0);
            // IntDotMatrix.pairSums written out (see InterleavedRows)
            var pairs0 = (IntVector) sum0.reinterpretShape(GROUP_I, 0);
            var pairs1 = (IntVector) sum1.reinterpretShape(GROUP_I, 0);
            isum0 = isum0.lanewise(ADD, pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen)).lanewise(MUL, scales0));
            isum1 = isum1.lanewise(ADD, pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen)).lanewise(MUL, scales1));
            msum0 = msum0.lanewise(ADD, mins0.lanewise(MUL, IntVector.broadcast(GROUP_I, xsum)));
            msum1 = msum1.lanewise(ADD, mins1.lanewise(MUL, IntVector.broadcast(GROUP_I, xsum)));
            if (j == SUB_BLOCKS - 1) {
                float d = xd[i / SUB_BLOCKS];
                acc0 = ((FloatVector) isum0.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, pair + D_AT, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
                acc1 = ((FloatVector) isum1.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, pair + D_AT + GROUP * Float.BYTES, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
                acc0 = ((FloatVector) msum0.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, pair + MINUS_DMIN_AT, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
                acc1 = ((FloatVector) msum1.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, pair + MINUS_DMIN_AT + GROUP * Float.BYTES, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
                isum0 = IntVector.zero(GROUP_I);
                isum1 = IntVector.zero(GROUP_I);
                msum0 = IntVector.zero(GROUP_I);
                msum1 = IntVector.zero(GROUP_I);
                pair += 2 * BLOCK_BYTES;
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
        long ofGroup = (long) place * GROUP; // the group's scales, mins and floats: the second group's after the first's
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            var d = FloatVector.fromMemorySegment(GROUP_F, data, pair + D_AT + ofGroup * Float.BYTES, LE);
            var dmin = FloatVector.fromMemorySegment(GROUP_F, data, pair + MINUS_DMIN_AT + ofGroup * Float.BYTES, LE).lanewise(NEG);
            for (int j = 0; j < SUB_BLOCKS; j++) {
                long unit = pair + (long) UNIT_BYTES * j;
                // the kernel's conversion (B2I) and a mask rather than ZERO_EXTEND_B2I: see InterleavedRows
                d.lanewise(MUL, (FloatVector) ((IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT + ofGroup, LE)
                        .convertShape(B2I, GROUP_I, 0)).lanewise(AND, IntVector.broadcast(GROUP_I, 0xFF)).convertShape(I2F, GROUP_F, 0))
                        .intoArray(scales, 0);
                dmin.lanewise(MUL, (FloatVector) ((IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + MINS_AT + ofGroup, LE)
                        .convertShape(B2I, GROUP_I, 0)).lanewise(AND, IntVector.broadcast(GROUP_I, 0xFF)).convertShape(I2F, GROUP_F, 0))
                        .intoArray(scales, GROUP);
                int column = (k * SUB_BLOCKS + j) * SUB_BLOCK * stride + lane;
                long steps = valuesAt(pair, j, place);
                for (int s = 0; s < STEPS; s++) {
                    nibbleStepToPanel(steps + (long) s * STEP_BYTES, 0, scales, panel, column + 2 * s * stride, stride);
                }
            }
        }
    }

    /** As the stored decoding (ggml's): {@code d * scale * q - dmin * min}, each product rounded on its own. */
    @Override
    void decode(int row, int firstBlock, int blockCount, float[] out, int offset) {
        int r = row % GROUP;
        int group = row / GROUP, place = group % 2;
        long inPair = row % ROWS_PER_PASS; // the row's byte or float among the pass's two groups
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            float d = data.get(FLOAT, pair + D_AT + inPair * Float.BYTES);
            float dmin = -data.get(FLOAT, pair + MINUS_DMIN_AT + inPair * Float.BYTES);
            for (int j = 0; j < SUB_BLOCKS; j++, offset += SUB_BLOCK) {
                long unit = pair + (long) UNIT_BYTES * j;
                var scale = FloatVector.broadcast(F8, d * (data.get(BYTE, unit + SCALES_AT + inPair) & 0xFF));
                var min = FloatVector.broadcast(F8, dmin * (data.get(BYTE, unit + MINS_AT + inPair) & 0xFF));
                long steps = valuesAt(pair, j, place);
                var bytes = rowBytes(steps, r);
                // B2I and masks rather than ZERO_EXTEND_B2I: see InterleavedRows
                var q0 = (IntVector) bytes.convertShape(B2I, I8, 0);
                var q1 = (IntVector) bytes.convertShape(B2I, I8, 1);
                ((FloatVector) q0.lanewise(AND, IntVector.broadcast(I8, 0x0F)).convertShape(I2F, F8, 0)).lanewise(MUL, scale).lanewise(SUB, min).intoArray(out, offset);
                ((FloatVector) q1.lanewise(AND, IntVector.broadcast(I8, 0x0F)).convertShape(I2F, F8, 0)).lanewise(MUL, scale).lanewise(SUB, min).intoArray(out, offset + 8);
                ((FloatVector) q0.lanewise(LSHR, IntVector.broadcast(I8, 4)).lanewise(AND, IntVector.broadcast(I8, 0x0F)).convertShape(I2F, F8, 0)).lanewise(MUL, scale).lanewise(SUB, min).intoArray(out, offset + 16);
                ((FloatVector) q1.lanewise(LSHR, IntVector.broadcast(I8, 4)).lanewise(AND, IntVector.broadcast(I8, 0x0F)).convertShape(I2F, F8, 0)).lanewise(MUL, scale).lanewise(SUB, min).intoArray(out, offset + 24);
            }
        }
    }
}
