package dev.inferd.engine.tensor.format.q4_k;

import dev.inferd.engine.tensor.product.IntTiledProduct;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.tensor.product.ShortPanels;
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
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.MUL;
import static jdk.incubator.vector.VectorOperators.NEG;
import static jdk.incubator.vector.VectorOperators.S2I;

/**
 * A copy of a Q4_K matrix laid out for generated tokens, {@link #GROUP} rows interleaved as in
 * {@link Q4_0Interleaved}: a lane follows one row, so a pass gives sixteen rows' products with no sum
 * across lanes, and the per-sub-block scales are vectors of a group's rows instead of scalars broadcast
 * one at a time (the stored-layout kernel ran at about a third of llama.cpp's speed).
 *
 * <p>The two groups of {@link #GROUP} rows of a pass store, per super-block of 256 columns,
 * 2 x {@link #BLOCK_BYTES} bytes in the order the kernel reads them ({@link InterleavedRows#pairAt}):
 * <ul>
 *   <li>for each of the eight sub-blocks j, a unit of {@link #UNIT_BYTES}: the first group's 6-bit scales
 *       j as bytes (byte r is row r's), the second group's, the first group's mins j, the second's; then
 *       the first group's 32 values of the sub-block as four steps exactly like a {@link Q4_0Interleaved}
 *       block's (nibble f of lane {@code 2r + t} of step s is row r's value {@code 8s + 2f + t}), then the
 *       second group's;</li>
 *   <li>then the first group's {@code d} as the file's halves, the second's, the first group's {@code -dmin}
 *       (the file's half with its sign bit flipped), the second's.</li>
 * </ul>
 * The kernels widen the halves as {@link Q4_0Interleaved}'s do ({@link InterleavedRows#widenHalves}), once a
 * super-block; as floats they made the copy 1.06 times the stored size, as halves 1.03.
 * The stored layout packs sub-blocks 2p and 2p + 1 into the low and high nibbles of the same 32
 * bytes; the copy regroups them so that every sub-block takes the same four steps.
 *
 * <p>Per super-block and row the arithmetic is llama.cpp's: exact integer sums of {@code scale * sum(q * xq)}
 * and of {@code min * sum(xq)}, then two float multiply-adds by {@code d * xd} and {@code -dmin * xd}.
 * A lane adds 16 products of at most 15 * 127 per sub-block, inside 16 bits; every activation row takes
 * the same {@link #dot} call, so a row's result does not depend on the batch around it.
 */
public final class Q4_KInterleaved extends InterleavedRows implements ShortPanels {
    private static final int SUB_BLOCKS = 8;
    private static final int SUB_BLOCK = 32;
    private static final int STEPS = 4;
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
    /** A group's share of a super-block: 148 bytes a row against 144 stored. */
    public static final int BLOCK_BYTES = (MINUS_DMIN_AT + 2 * GROUP * Short.BYTES) / 2;

    public Q4_KInterleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q4_K, rows, cols, BLOCK_BYTES, memory);
    }

    @Override
    public void fillBlock(MemorySegment q4_K, long from, long pair, int place, int r) {
        long h0 = q4_K.get(LONG, from), h1 = q4_K.get(LONG, from + 8);
        long low = Q4_KMatrix.low(h0, h1), high = h1 >>> 32;
        long scales = Q4_KMatrix.scales(low, high), mins = Q4_KMatrix.mins(low, high);
        long inPair = (long) place * GROUP + r; // the row's byte or half among the pass's two groups
        data.set(SHORT, pair + D_AT + inPair * Short.BYTES, (short) h0); // the file's halves: see Q4_0Interleaved
        data.set(SHORT, pair + MINUS_DMIN_AT + inPair * Short.BYTES, (short) (h0 >>> 16 ^ 0x8000)); // the sign bit flipped: -dmin, exactly
        for (int j = 0; j < SUB_BLOCKS; j++) {
            data.set(BYTE, pair + (long) UNIT_BYTES * j + SCALES_AT + inPair, (byte) (scales >>> 8 * j));
            data.set(BYTE, pair + (long) UNIT_BYTES * j + MINS_AT + inPair, (byte) (mins >>> 8 * j));
        }
        for (int j = 0; j < SUB_BLOCKS; j++) {
            long steps = valuesAt(pair, j, place);
            for (int s = 0; s < STEPS; s++) {
                for (int t = 0; t < 2; t++) {
                    int lane = 0;
                    for (int f = 0; f < 4; f++) {
                        // value l of sub-block j: the low (j even) or high nibble of byte l of the sub-block pair's 32
                        int l = 8 * s + 2 * f + t;
                        lane |= (q4_K.get(BYTE, from + 16 + 32L * (j / 2) + l) >>> 4 * (j % 2) & 0x0F) << 4 * f;
                    }
                    data.set(SHORT, steps + (long) s * STEP + 2L * (2 * r + t), (short) lane);
                }
            }
        }
    }

    @Override
    public int panelBlock() {
        return SUB_BLOCKS * SUB_BLOCK;
    }

    /**
     * The values, and for 32-value sub-block k of the depth the rows' scales at {@code ints[k * WIDTH + lane ..+ 32)}
     * and mins at {@code ints[SECOND + k * WIDTH + lane ..)}, for super-block n the rows' {@code d} at
     * {@code floats[n * WIDTH + lane ..)} and {@code -dmin} at {@code floats[SECOND + n * WIDTH + lane ..)}, in row order.
     */
    @Override
    public void decodeShortPanel(int pass, int firstBlock, int blockCount, IntTiledProduct.Panel panel, int lane) {
        int stride = IntTiledProduct.WIDTH;
        int second = IntTiledProduct.Panel.SECOND;
        for (int n = 0; n < blockCount; n++) {
            long pair = pairAt(2 * pass, firstBlock + n);
            int floats = n * stride + lane;
            widenHalves(pair + D_AT, panel.floats, floats);
            widenHalves(pair + D_AT + GROUP * Short.BYTES, panel.floats, floats + GROUP);
            widenHalves(pair + MINUS_DMIN_AT, panel.floats, second + floats);
            widenHalves(pair + MINUS_DMIN_AT + GROUP * Short.BYTES, panel.floats, second + floats + GROUP);
            for (int j = 0; j < SUB_BLOCKS; j++) {
                long unit = pair + (long) UNIT_BYTES * j;
                int k = n * SUB_BLOCKS + j;
                int ints = k * stride + lane;
                GROUP_I_CLASS.cast(ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT, LE).convertShape(B2I, GROUP_I, 0)).intoArray(panel.ints, ints);
                GROUP_I_CLASS.cast(ByteVector.fromMemorySegment(GROUP_B, data, unit + SCALES_AT + GROUP, LE).convertShape(B2I, GROUP_I, 0))
                        .intoArray(panel.ints, ints + GROUP);
                GROUP_I_CLASS.cast(ByteVector.fromMemorySegment(GROUP_B, data, unit + MINS_AT, LE).convertShape(B2I, GROUP_I, 0))
                        .intoArray(panel.ints, second + ints);
                GROUP_I_CLASS.cast(ByteVector.fromMemorySegment(GROUP_B, data, unit + MINS_AT + GROUP, LE).convertShape(B2I, GROUP_I, 0))
                        .intoArray(panel.ints, second + ints + GROUP);
                nibbleStepsToShortPanel(unit + QS_AT, unit + QS_AT + SUB_BLOCK_BYTES, panel.values, k * SUB_BLOCK * stride + lane, stride);
            }
        }
    }

    /**
     * {@link #dot}'s operations: per super-block and row the exact integer sums of {@code scale * sum(q * x)} (here
     * {@code sum((q - 8) * x) + 8 * sum(x)}) and of {@code min * sum(x)}, then the fused multiply-adds by
     * {@code d * xd} and {@code -dmin * xd}, in that order. A 32-bit lane of the sums holds rows j (low half) and
     * j + 16 (high half) of a pass; two shifts split them.
     */
    @Override
    public void sumsToFloats(IntTiledProduct.Panel panel, int firstBlock, int blockCount, Q8Activations x, int b, int count,
                             float[] c, int cOffset, int cStride, int width, boolean first) {
        int stride = IntTiledProduct.WIDTH;
        int tile = IntTiledProduct.ROWS;
        int second = IntTiledProduct.Panel.SECOND;
        short[] sums = panel.sums;
        int[] ints = panel.ints;
        float[] floats = panel.floats;
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        for (int i = 0; i < count; i++) {
            int d = (b + i) * x.blocksPerRow + firstBlock;
            int xsums = (b + i) * x.sumsPerRow + firstBlock * SUB_BLOCKS;
            for (int pass = 0; pass < width; pass += ROWS_PER_PASS) {
                int o = cOffset + i * cStride + pass;
                var low = first ? FloatVector.zero(GROUP_F) : FloatVector.fromArray(GROUP_F, c, o);
                var high = first ? FloatVector.zero(GROUP_F) : FloatVector.fromArray(GROUP_F, c, o + GROUP);
                for (int n = 0; n < blockCount; n++) {
                    var isumLow = IntVector.zero(GROUP_I);
                    var isumHigh = IntVector.zero(GROUP_I);
                    var msumLow = IntVector.zero(GROUP_I);
                    var msumHigh = IntVector.zero(GROUP_I);
                    for (int k = n * SUB_BLOCKS; k < (n + 1) * SUB_BLOCKS; k++) {
                        var pairs = (IntVector) ShortVector.fromArray(STEP_S, sums, (k * tile + i) * stride + pass).reinterpretShape(GROUP_I, 0);
                        int xsum = x.sums[xsums + k];
                        var offset = IntVector.broadcast(GROUP_I, 8 * xsum);
                        var xs = IntVector.broadcast(GROUP_I, xsum);
                        int at = k * stride + pass;
                        isumLow = isumLow.lanewise(ADD, pairs.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen).lanewise(ADD, offset)
                                .lanewise(MUL, IntVector.fromArray(GROUP_I, ints, at)));
                        isumHigh = isumHigh.lanewise(ADD, pairs.lanewise(ASHR, sixteen).lanewise(ADD, offset)
                                .lanewise(MUL, IntVector.fromArray(GROUP_I, ints, at + GROUP)));
                        msumLow = msumLow.lanewise(ADD, IntVector.fromArray(GROUP_I, ints, second + at).lanewise(MUL, xs));
                        msumHigh = msumHigh.lanewise(ADD, IntVector.fromArray(GROUP_I, ints, second + at + GROUP).lanewise(MUL, xs));
                    }
                    var dx = FloatVector.broadcast(GROUP_F, x.d[d + n]);
                    int at = n * stride + pass;
                    low = ((FloatVector) isumLow.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromArray(GROUP_F, floats, at).lanewise(MUL, dx), low);
                    high = ((FloatVector) isumHigh.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromArray(GROUP_F, floats, at + GROUP).lanewise(MUL, dx), high);
                    low = ((FloatVector) msumLow.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromArray(GROUP_F, floats, second + at).lanewise(MUL, dx), low);
                    high = ((FloatVector) msumHigh.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromArray(GROUP_F, floats, second + at + GROUP).lanewise(MUL, dx), high);
                }
                GROUP_F_CLASS.cast(low).intoArray(c, o);
                GROUP_F_CLASS.cast(high).intoArray(c, o + GROUP);
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
        var nibble = ShortVector.broadcast(STEP_S, (short) 0x0F);
        var four = ShortVector.broadcast(STEP_S, (short) 4);
        var eight = ShortVector.broadcast(STEP_S, (short) 8);
        var twelve = ShortVector.broadcast(STEP_S, (short) 12);
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
        // one loop over the row's sub-blocks, the super-block's float step on every eighth: nested in a
        // loop over super-blocks, the sub-block loop was split into pre-, main and post-loops with the
        // range checks redone around it, and ran at 0.55x. The steps are written out as in
        // Q4_0Interleaved
        for (int i = b * blocks * SUB_BLOCKS, end = i + blocks * SUB_BLOCKS; i < end; i++) {
            int j = i & (SUB_BLOCKS - 1);
            int p = i * (SUB_BLOCK / 2);
            long unit = pair + UNIT_BYTES * j;
            long q0 = unit + QS_AT;
            long q1 = q0 + SUB_BLOCK_BYTES;
            var sum0 = ShortVector.zero(STEP_S);
            var sum1 = ShortVector.zero(STEP_S);
            ShortVector w0, w1, x0, x1, x2, x3;
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 0 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 0 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 0]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 1]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 2]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 3]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w0.lanewise(LSHR, twelve).lanewise(MUL, x3));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w1.lanewise(LSHR, twelve).lanewise(MUL, x3));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 1 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 1 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 4]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 5]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 6]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 7]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w0.lanewise(LSHR, twelve).lanewise(MUL, x3));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w1.lanewise(LSHR, twelve).lanewise(MUL, x3));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 2 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 2 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 8]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 9]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 10]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 11]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w0.lanewise(LSHR, twelve).lanewise(MUL, x3));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w1.lanewise(LSHR, twelve).lanewise(MUL, x3));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, q0 + 3 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, q1 + 3 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 12]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 13]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 14]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, activationPairs[p + 15]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w0.lanewise(LSHR, twelve).lanewise(MUL, x3));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w1.lanewise(LSHR, twelve).lanewise(MUL, x3));
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
                    for (int n = 0; n < 8; n++) {
                        nibbleToPanel(steps + (long) s * STEP, n, 0, scales, panel, column + nibbleColumn(s, n) * stride);
                    }
                }
            }
        }
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
                    out[offset + l] = scale * nibble(steps, r, l) - min;
                }
            }
        }
    }
}
