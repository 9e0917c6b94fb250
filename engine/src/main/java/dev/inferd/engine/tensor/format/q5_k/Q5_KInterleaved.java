package dev.inferd.engine.tensor.format.q5_k;

import dev.inferd.engine.tensor.format.q4_k.Q4_KMatrix;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
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
import static jdk.incubator.vector.VectorOperators.FMA;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.MUL;
import static jdk.incubator.vector.VectorOperators.NEG;
import static jdk.incubator.vector.VectorOperators.S2I;
import static jdk.incubator.vector.VectorOperators.SUB;

/**
 * A copy of a Q5_K matrix laid out for generated tokens ({@link InterleavedRows}), its 5-bit values
 * packed three to a 16-bit lane. The stored layout keeps each value's fifth bit apart from its nibble,
 * and putting the two together in 16-bit lanes took three operations more per value than a Q4_K value
 * costs; decoded to a byte each, the copy would be 1.6 times the
 * stored size. Three to a lane, a value is one or two shifts out of the lane and the copy is 1.2 times the
 * stored size: a sub-block costs the kernel six loads and 59 vector operations a group, against four loads
 * and 56 for a Q4_K sub-block (four nibbles to a lane), and eight widening loads and 56 in a
 * layout of bytes widened to shorts.
 *
 * <p>A lane holds {@code v = q - 16} (-16..15) in bits 0-4, 5-9 and 10-15 (the last field six bits wide,
 * so that one arithmetic shift extends its sign). A step is a {@link #STEP_S} vector: lanes
 * {@code 2r} and {@code 2r + 1} are row r's, and field f of lane {@code 2r + t} of step s is the row's
 * value {@code 6s + 2f + t} of the sub-block, so that each field meets the same pair of activations in
 * every lane (an entry of {@link Q8Activations#pairs}). Six steps hold a sub-block's 32 values, the last
 * step only field 0 (values 30 and 31). The two groups of {@link #GROUP} rows of a pass store, per
 * super-block of 256 columns, 2 x {@link #BLOCK_BYTES} bytes in the order the kernel reads them
 * ({@link InterleavedRows#pairAt}): for each of the eight sub-blocks j, a unit of {@link #UNIT_BYTES}
 * (the first group's 6-bit scales j as bytes, the second group's, the first group's mins j, the second's,
 * the first group's six steps, the second's); then the first group's {@code d} as the file's halves, the
 * second's, the first group's {@code -dmin}, the second's (as {@link Q4_KInterleaved}).
 *
 * <p>Per super-block and row the arithmetic is llama.cpp's: exact integer sums of
 * {@code scale * sum(q * xq)} (the kernel's {@code sum(v * xq)} plus {@code 16 * sum(xq)}) and of
 * {@code min * sum(xq)}, then two float multiply-adds by {@code d * xd} and {@code -dmin * xd}. A lane
 * adds 16 products of at most 16 * 127 per sub-block, inside 16 bits; every activation row takes the
 * same {@link #dot} call, so a row's result does not depend on the batch around it.
 */
public final class Q5_KInterleaved extends InterleavedRows {
    private static final int SUB_BLOCKS = 8;
    private static final int SUB_BLOCK = 32;
    private static final int STEPS = 6;
    /** Values per lane of a full step. */
    private static final int FIELDS = 3;
    private static final int STEP = LANE_STEP_BYTES;
    private static final int SUB_BLOCK_BYTES = STEPS * STEP;
    /** A sub-block of both groups: their scales, their mins, their values. */
    private static final int UNIT_BYTES = 4 * GROUP + 2 * SUB_BLOCK_BYTES;
    // within a unit; the second group's come GROUP bytes (scales, mins) or SUB_BLOCK_BYTES (values) after the first's
    private static final int SCALES_AT = 0;
    private static final int MINS_AT = 2 * GROUP;
    private static final int QS_AT = 4 * GROUP;
    // after the units, the file's halves; the second group's come GROUP halves after the first's
    private static final int D_AT = SUB_BLOCKS * UNIT_BYTES;
    private static final int MINUS_DMIN_AT = D_AT + 2 * GROUP * Short.BYTES;
    /** A group's share of a super-block: 212 bytes a row against 176 stored. */
    public static final int BLOCK_BYTES = (MINUS_DMIN_AT + 2 * GROUP * Short.BYTES) / 2;
    /** Where a field's value starts in its lane (the last field runs to the lane's top bit). */
    private static final int[] FIELD_SHIFT = {0, 5, 10};
    /** Per thread: a super-block's values {@code q} (0..31) while it is copied. */
    private static final ThreadLocal<int[]> SUPER_BLOCK_VALUES = ThreadLocal.withInitial(() -> new int[SUB_BLOCKS * SUB_BLOCK]);

    public Q5_KInterleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q5_K, rows, cols, BLOCK_BYTES, memory);
    }

    @Override
    public void fillBlock(MemorySegment q5_K, long from, long pair, int place, int r) {
        long h0 = q5_K.get(LONG, from), h1 = q5_K.get(LONG, from + 8);
        long low = Q4_KMatrix.low(h0, h1), high = h1 >>> 32;
        long scales = Q4_KMatrix.scales(low, high), mins = Q4_KMatrix.mins(low, high);
        long inPair = (long) place * GROUP + r; // the row's byte or half among the pass's two groups
        data.set(SHORT, pair + D_AT + inPair * Short.BYTES, (short) h0); // the file's halves: see Q4_0Interleaved
        data.set(SHORT, pair + MINUS_DMIN_AT + inPair * Short.BYTES, (short) (h0 >>> 16 ^ 0x8000)); // the sign bit flipped: -dmin, exactly
        int[] q = SUPER_BLOCK_VALUES.get();
        Q5_KMatrix.values(q5_K, from, q);
        for (int j = 0; j < SUB_BLOCKS; j++) {
            data.set(BYTE, pair + (long) UNIT_BYTES * j + SCALES_AT + inPair, (byte) (scales >>> 8 * j));
            data.set(BYTE, pair + (long) UNIT_BYTES * j + MINS_AT + inPair, (byte) (mins >>> 8 * j));
            long steps = valuesAt(pair, j, place);
            for (int s = 0; s < STEPS; s++) {
                for (int t = 0; t < 2; t++) {
                    int lane = 0;
                    for (int f = 0; f < FIELDS; f++) {
                        int l = 6 * s + 2 * f + t;
                        int v = l < SUB_BLOCK ? q[SUB_BLOCK * j + l] - 16 : 0;
                        lane |= (f < FIELDS - 1 ? v & 0x1F : v) << FIELD_SHIFT[f];
                    }
                    data.set(SHORT, steps + (long) s * STEP + 2L * (2 * r + t), (short) lane);
                }
            }
        }
    }

    /** Where sub-block j's values of the pass's first ({@code place} 0) or second group start. */
    private static long valuesAt(long pair, int j, int place) {
        return pair + (long) UNIT_BYTES * j + QS_AT + (long) place * SUB_BLOCK_BYTES;
    }

    @Override
    public void dot(int pass, Q8Activations x, int b, float[] out, int outIndex) {
        MemorySegment data = this.data; // a local: C2 reloaded the field around every block
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var halfShift = IntVector.broadcast(GROUP_I, 13);
        var halfMask = IntVector.broadcast(GROUP_I, HALF_SIGN_AND_MAGNITUDE);
        var halfFix = FloatVector.broadcast(GROUP_F, HALF_EXPONENT_FIX);
        // the fields' shifts: up to the lane's top (field 0 by 11, field 1 by 6), then down by 11 (field 2 by 10)
        var up0 = ShortVector.broadcast(STEP_S, (short) 11);
        var up1 = ShortVector.broadcast(STEP_S, (short) 6);
        var down = ShortVector.broadcast(STEP_S, (short) 11);
        var down2 = ShortVector.broadcast(STEP_S, (short) 10);
        var acc0 = FloatVector.zero(GROUP_F);
        var acc1 = FloatVector.zero(GROUP_F);
        long pair = pass * passBytes;
        int[] activationPairs = x.pairs;
        int[] sums = x.sums;
        float[] xd = x.d;
        var isum0 = IntVector.zero(GROUP_I);
        var isum1 = IntVector.zero(GROUP_I);
        var msum0 = IntVector.zero(GROUP_I);
        var msum1 = IntVector.zero(GROUP_I);
        // one loop over the row's sub-blocks, the super-block's float step on every eighth, the steps
        // written out: see Q4_KInterleaved
        for (int i = b * blocks * SUB_BLOCKS, end = i + blocks * SUB_BLOCKS; i < end; i++) {
            int j = i & (SUB_BLOCKS - 1);
            int p = i * (SUB_BLOCK / 2);
            long unit = pair + UNIT_BYTES * j;
            long q0 = unit + QS_AT;
            long q1 = q0 + SUB_BLOCK_BYTES;
            var sum0 = ShortVector.zero(STEP_S);
            var sum1 = ShortVector.zero(STEP_S);
            ShortVector w0, w1, x0, x1, x2;
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 0 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 0 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 0]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 1]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 2]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w0.lanewise(ASHR, down2).lanewise(MUL, x2));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w1.lanewise(ASHR, down2).lanewise(MUL, x2));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 1 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 1 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 3]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 4]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 5]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w0.lanewise(ASHR, down2).lanewise(MUL, x2));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w1.lanewise(ASHR, down2).lanewise(MUL, x2));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 2 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 2 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 6]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 7]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 8]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w0.lanewise(ASHR, down2).lanewise(MUL, x2));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w1.lanewise(ASHR, down2).lanewise(MUL, x2));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 3 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 3 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 9]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 10]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 11]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w0.lanewise(ASHR, down2).lanewise(MUL, x2));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w1.lanewise(ASHR, down2).lanewise(MUL, x2));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 4 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 4 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 12]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 13]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 14]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w0.lanewise(ASHR, down2).lanewise(MUL, x2));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, up1).lanewise(ASHR, down).lanewise(MUL, x1)).lanewise(ADD, w1.lanewise(ASHR, down2).lanewise(MUL, x2));
            // the last step holds field 0 only
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 5 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 5 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 15]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, up0).lanewise(ASHR, down).lanewise(MUL, x0));
            var xsum = IntVector.broadcast(GROUP_I, sums[i]);
            var offsets = IntVector.broadcast(GROUP_I, 16 * sums[i]); // sum(q * xq) = sum(v * xq) + 16 sum(xq)
            var scales0 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT, LE).convertShape(B2I, GROUP_I, 0);
            var scales1 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT + GROUP, LE).convertShape(B2I, GROUP_I, 0);
            var mins0 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + MINS_AT, LE).convertShape(B2I, GROUP_I, 0);
            var mins1 = (IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + MINS_AT + GROUP, LE).convertShape(B2I, GROUP_I, 0);
            // IntDotMatrix.pairSums written out (see InterleavedRows)
            var pairs0 = (IntVector) sum0.reinterpretShape(GROUP_I, 0);
            var pairs1 = (IntVector) sum1.reinterpretShape(GROUP_I, 0);
            isum0 = isum0.lanewise(ADD, pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen)).lanewise(ADD, offsets).lanewise(MUL, scales0));
            isum1 = isum1.lanewise(ADD, pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen)).lanewise(ADD, offsets).lanewise(MUL, scales1));
            msum0 = msum0.lanewise(ADD, mins0.lanewise(MUL, xsum));
            msum1 = msum1.lanewise(ADD, mins1.lanewise(MUL, xsum));
            if (j == SUB_BLOCKS - 1) {
                float d = xd[i / SUB_BLOCKS];
                // the groups' halves widened as widenHalves widens them, written out: see InterleavedRows
                var d0 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair + D_AT, LE).convertShape(S2I, GROUP_I, 0)).lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
                var d1 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair + D_AT + GROUP * Short.BYTES, LE).convertShape(S2I, GROUP_I, 0)).lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
                var minusDmin0 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair + MINUS_DMIN_AT, LE).convertShape(S2I, GROUP_I, 0)).lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
                var minusDmin1 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair + MINUS_DMIN_AT + GROUP * Short.BYTES, LE).convertShape(S2I, GROUP_I, 0)).lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
                acc0 = ((FloatVector) isum0.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, d0.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
                acc1 = ((FloatVector) isum1.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, d1.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
                acc0 = ((FloatVector) msum0.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, minusDmin0.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
                acc1 = ((FloatVector) msum1.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, minusDmin1.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
                isum0 = IntVector.zero(GROUP_I);
                isum1 = IntVector.zero(GROUP_I);
                msum0 = IntVector.zero(GROUP_I);
                msum1 = IntVector.zero(GROUP_I);
                pair += 2 * BLOCK_BYTES;
            }
        }
        GROUP_F_CLASS.cast(acc0).intoArray(out, outIndex);
        GROUP_F_CLASS.cast(acc1).intoArray(out, outIndex + GROUP);
    }

    @Override
    public void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane) {
        float[] scales = PANEL_SCALES.get();
        int place = group % 2;
        long ofGroup = (long) place * GROUP; // the group's scales, mins and halves: the second group's after the first's
        var halfShift = IntVector.broadcast(GROUP_I, 13);
        var halfMask = IntVector.broadcast(GROUP_I, HALF_SIGN_AND_MAGNITUDE);
        var halfFix = FloatVector.broadcast(GROUP_F, HALF_EXPONENT_FIX);
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            // widenHalves written out: the panel decoding's vectors stay in this method (see nibbleToPanel)
            var d = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair + D_AT + ofGroup * Short.BYTES, LE)
                    .convertShape(S2I, GROUP_I, 0)).lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
            var dmin = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair + MINUS_DMIN_AT + ofGroup * Short.BYTES, LE)
                    .convertShape(S2I, GROUP_I, 0)).lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix).lanewise(NEG);
            for (int j = 0; j < SUB_BLOCKS; j++) {
                long unit = pair + (long) UNIT_BYTES * j;
                // the kernel's conversion (B2I) and a mask rather than ZERO_EXTEND_B2I: see InterleavedRows
                GROUP_F_CLASS.cast(d.lanewise(MUL, (FloatVector) ((IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT + ofGroup, LE)
                        .convertShape(B2I, GROUP_I, 0)).lanewise(AND, IntVector.broadcast(GROUP_I, 0xFF)).convertShape(I2F, GROUP_F, 0)))
                        .intoArray(scales, 0);
                GROUP_F_CLASS.cast(dmin.lanewise(MUL, (FloatVector) ((IntVector) ByteVector.fromMemorySegment(GROUP_B, data, unit + MINS_AT + ofGroup, LE)
                        .convertShape(B2I, GROUP_I, 0)).lanewise(AND, IntVector.broadcast(GROUP_I, 0xFF)).convertShape(I2F, GROUP_F, 0)))
                        .intoArray(scales, GROUP);
                int column = (k * SUB_BLOCKS + j) * SUB_BLOCK * stride + lane;
                long steps = valuesAt(pair, j, place);
                for (int s = 0; s < STEPS; s++) {
                    for (int f = 0; f < (s < STEPS - 1 ? FIELDS : 1); f++) {
                        for (int t = 0; t < 2; t++) {
                            fieldToPanel(steps + (long) s * STEP, 16 * t + FIELD_SHIFT[f], f == FIELDS - 1 ? 6 : 5, scales, panel,
                                    column + (6 * s + 2 * f + t) * stride);
                        }
                    }
                }
            }
        }
    }

    /**
     * One field of every row of the step at {@code at}: bits {@code [shift, shift + width)} of each row's
     * 32 bits (its two lanes), {@code (v + 16) * scales[r] - scales[GROUP + r]}, into the panel's column
     * at {@code column}. Vectors stay inside: a helper that C2 leaves as a call boxes the vectors it takes.
     */
    private void fieldToPanel(long at, int shift, int width, float[] scales, float[] panel, int column) {
        var rows = IntVector.fromMemorySegment(GROUP_I, data, at, LE);
        var v = rows.lanewise(LSHL, IntVector.broadcast(GROUP_I, 32 - width - shift)).lanewise(ASHR, IntVector.broadcast(GROUP_I, 32 - width));
        var q = v.lanewise(ADD, IntVector.broadcast(GROUP_I, 16));
        GROUP_F_CLASS.cast(((FloatVector) q.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, FloatVector.fromArray(GROUP_F, scales, 0))
                .lanewise(SUB, FloatVector.fromArray(GROUP_F, scales, GROUP))).intoArray(panel, column);
    }

    /** As the stored decoding (ggml's): {@code d * scale * q - dmin * min}, each product rounded on its own. */
    @Override
    public void decode(int row, int firstBlock, int blockCount, float[] out, int offset) {
        int r = row % GROUP;
        int group = row / GROUP, place = group % 2;
        long inPair = row % ROWS_PER_PASS; // the row's byte or half among the pass's two groups
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            float d = Float.float16ToFloat(data.get(SHORT, pair + D_AT + inPair * Short.BYTES));
            float dmin = -Float.float16ToFloat(data.get(SHORT, pair + MINUS_DMIN_AT + inPair * Short.BYTES));
            for (int j = 0; j < SUB_BLOCKS; j++, offset += SUB_BLOCK) {
                long unit = pair + (long) UNIT_BYTES * j;
                float scale = d * (data.get(BYTE, unit + SCALES_AT + inPair) & 0xFF);
                float min = dmin * (data.get(BYTE, unit + MINS_AT + inPair) & 0xFF);
                long steps = valuesAt(pair, j, place);
                for (int l = 0; l < SUB_BLOCK; l++) {
                    int s = l / 6, f = l % 6 / 2, t = l % 2;
                    int lane = data.get(SHORT, steps + (long) s * STEP + 2L * (2 * r + t));
                    int width = f == FIELDS - 1 ? 6 : 5;
                    int v = lane << 32 - width - FIELD_SHIFT[f] >> 32 - width;
                    out[offset + l] = scale * (v + 16) - min;
                }
            }
        }
    }
}
