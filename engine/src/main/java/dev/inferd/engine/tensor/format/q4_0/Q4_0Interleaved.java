package dev.inferd.engine.tensor.format.q4_0;

import dev.inferd.engine.tensor.product.IntTiledProduct;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.tensor.product.ShortPanels;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static jdk.incubator.vector.VectorOperators.ADD;
import static jdk.incubator.vector.VectorOperators.AND;
import static jdk.incubator.vector.VectorOperators.BITWISE_BLEND;
import static jdk.incubator.vector.VectorOperators.ASHR;
import static jdk.incubator.vector.VectorOperators.FMA;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.MUL;
import static jdk.incubator.vector.VectorOperators.S2I;
import static jdk.incubator.vector.VectorOperators.SUB;
import static jdk.incubator.vector.VectorOperators.XOR;

/**
 * A copy of a Q4_0 matrix laid out for generated tokens ({@link InterleavedRows}, after llama.cpp's
 * {@code q4_0_8x8} repack on these machines). In the stored layout every 32-value block starts with a
 * scale that must be moved from a general register and broadcast; on this machine that
 * per-block step held the row kernel to about half of llama.cpp's speed.
 *
 * <p>A group of {@link #GROUP} rows (eight with AVX2, sixteen with AVX-512) stores, per block of 32
 * columns, {@link #BLOCK_BYTES} bytes: the rows' scales as the file's halves and four steps, each a
 * {@link #STEP_S} vector of 16-bit lanes. A pass's block holds both groups' scales, then the first group's
 * steps, then the second's ({@link #scalesAt}, {@link #stepsAt}), so that every step is a whole cache line
 * and the pass reads forward. Lanes {@code 2r} and {@code 2r + 1} are row r's, and nibble f
 * (bits {@code 4f} to {@code 4f + 3}) of lane {@code 2r + t} of step s is the row's value
 * {@code 8s + 2f + t}, so that each nibble meets the same pair of activations in every lane (an entry
 * of {@link Q8Activations#pairs}). Four values to a lane, a step is read as it lies (no widening) and a
 * value is a shift and a mask out of it, the top one a shift alone: in a one-thread product that stays
 * in cache, 1.17x the speed of a layout of two values to a byte widened to 16 bits.
 *
 * <p>The scales stay halves because a token reads every byte of the copy: as floats they made the copy 11%
 * larger than the file, and the 1B Q4_0 decoded about that much slower than llama.cpp, which reads the file's
 * 18 bytes a block. The kernels widen a group's halves as {@link F16Matrix} widens weights, a
 * shift, a mask and a multiply by 2^112, exact for every finite half (infinities and NaNs, which usable
 * weights do not hold, are not kept).
 *
 * <p>The weights are multiplied unsigned (0..15) and the offset of 8 is taken back once per block
 * with the activations' block sum: a lane adds 16 products of at most 15 * 127, which stays inside
 * 16 bits. Per block and row the float operations are llama.cpp's: the integer sum converted, times
 * the weight scale times the activation scale, added with one fused multiply-add. A row's result does
 * not depend on the batch around it: every activation row takes the same {@link #dot} call.
 */
public final class Q4_0Interleaved extends InterleavedRows implements ShortPanels {
    private static final int BLOCK = 32;
    private static final int STEPS = 4;
    private static final int STEP = LANE_STEP_BYTES;
    /** Values per lane. */
    private static final int NIBBLES = 4;
    private static final int SCALE_BYTES = GROUP * Short.BYTES;
    private static final int STEPS_BYTES = STEPS * STEP;
    public static final int BLOCK_BYTES = SCALE_BYTES + STEPS_BYTES;

    public Q4_0Interleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q4_0, rows, cols, BLOCK_BYTES, memory);
    }

    /** Where the scales of the pass's first ({@code place} 0) or second group start in the pass's block at {@code pair}. */
    private static long scalesAt(long pair, int place) {
        return pair + (long) place * SCALE_BYTES;
    }

    /** Where the steps of the pass's first ({@code place} 0) or second group start in the pass's block at {@code pair}. */
    private static long stepsAt(long pair, int place) {
        return pair + 2 * SCALE_BYTES + (long) place * STEPS_BYTES;
    }

    @Override
    public void fillBlock(MemorySegment q4_0, long from, long pair, int place, int r) {
        data.set(SHORT, scalesAt(pair, place) + (long) r * Short.BYTES, q4_0.get(SHORT, from));
        long steps = stepsAt(pair, place);
        for (int s = 0; s < STEPS; s++) {
            for (int t = 0; t < 2; t++) {
                int lane = 0;
                for (int f = 0; f < NIBBLES; f++) lane |= value(q4_0, from, 8 * s + 2 * f + t) << 4 * f;
                data.set(SHORT, steps + (long) s * STEP + 2L * (2 * r + t), (short) lane);
            }
        }
    }

    /** Value {@code i} (0..15) of the stored block at {@code from}: byte i's low nibble, or byte i - 16's high one. */
    private static int value(MemorySegment q4_0, long from, int i) {
        int b = q4_0.get(BYTE, from + 2 + i % 16);
        return (i < 16 ? b : b >>> 4) & 0x0F;
    }

    @Override
    public void dot(int pass, Q8Activations x, int b, float[] out, int outIndex) {
        MemorySegment data = this.data; // a local: C2 reloaded the field around every block
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var nibble = ShortVector.broadcast(STEP_S, (short) 0x0F);
        var four = ShortVector.broadcast(STEP_S, (short) 4);
        var eight = ShortVector.broadcast(STEP_S, (short) 8);
        var twelve = ShortVector.broadcast(STEP_S, (short) 12);
        var halfShift = IntVector.broadcast(GROUP_I, 13);
        var halfMask = IntVector.broadcast(GROUP_I, HALF_SIGN_AND_MAGNITUDE);
        var halfFix = FloatVector.broadcast(GROUP_F, HALF_EXPONENT_FIX);
        var acc0 = FloatVector.zero(GROUP_F);
        var acc1 = FloatVector.zero(GROUP_F);
        long pair = pass * passBytes;
        int kb = b * blocks;
        int[] pairs = x.pairs;
        for (int k = 0; k < blocks; k++, kb++, pair += 2 * BLOCK_BYTES) {
            int p = kb * (BLOCK / 2);
            var sum0 = ShortVector.zero(STEP_S);
            var sum1 = ShortVector.zero(STEP_S);
            long steps0 = pair + 2 * SCALE_BYTES; // stepsAt written out: see InterleavedRows
            long steps1 = steps0 + STEPS_BYTES;
            ShortVector w0, w1, x0, x1, x2, x3;
            // the four steps written out, nothing but Vector API calls (see InterleavedRows): as a loop
            // over the steps it measured 1.45x slower, the loop's set-up and range checks around every block.
            // The shifts of shorts are logical, so the top nibble needs no mask
            w0 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 0 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 0 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 0]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 1]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 2]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 3]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w0.lanewise(LSHR, twelve).lanewise(MUL, x3));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w1.lanewise(LSHR, twelve).lanewise(MUL, x3));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 1 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 1 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 4]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 5]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 6]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 7]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w0.lanewise(LSHR, twelve).lanewise(MUL, x3));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w1.lanewise(LSHR, twelve).lanewise(MUL, x3));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 2 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 2 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 8]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 9]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 10]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 11]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w0.lanewise(LSHR, twelve).lanewise(MUL, x3));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w1.lanewise(LSHR, twelve).lanewise(MUL, x3));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 3 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 3 * STEP, LE);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 12]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 13]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 14]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 15]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w0.lanewise(LSHR, twelve).lanewise(MUL, x3));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(LSHR, eight).lanewise(AND, nibble).lanewise(MUL, x2)).lanewise(ADD, w1.lanewise(LSHR, twelve).lanewise(MUL, x3));
            float d = x.d[kb];
            int offset = 8 * x.sums[kb];
            // IntDotMatrix.pairSums written out: past the body above, C2 leaves a call to it and boxes its vectors
            var pairs0 = (IntVector) sum0.reinterpretShape(GROUP_I, 0);
            var pairs1 = (IntVector) sum1.reinterpretShape(GROUP_I, 0);
            var ints0 = pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            var ints1 = pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            // the groups' halves widened as widenHalves widens them, written out: see InterleavedRows
            var scales0 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair, LE).convertShape(S2I, GROUP_I, 0))
                    .lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
            var scales1 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair + SCALE_BYTES, LE).convertShape(S2I, GROUP_I, 0))
                    .lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
            acc0 = ((FloatVector) ints0.lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0))
                    .lanewise(FMA, scales0.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
            acc1 = ((FloatVector) ints1.lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0))
                    .lanewise(FMA, scales1.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
        }
        GROUP_F_CLASS.cast(acc0).intoArray(out, outIndex);
        GROUP_F_CLASS.cast(acc1).intoArray(out, outIndex + GROUP);
    }

    /**
     * As {@link #dot} for entries {@code b} and {@code b + 1}, decoding each step's weights once for both
     * (1.2x two calls of {@link #dot}): each entry's integer sums are exact and its float
     * operations are {@link #dot}'s in the same order, so its result is bit for bit the one-entry kernel's.
     * Half a block an iteration with the block's float step on every second, as in {@link Q8_0Interleaved}:
     * both entries' whole blocks written out would pass C2's inlining budget (see {@link InterleavedRows}).
     */
    @Override
    public void dot2(int pass, Q8Activations x, int b, float[] out, int outIndex, int stride) {
        MemorySegment data = this.data;
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var nibble = ShortVector.broadcast(STEP_S, (short) 0x0F);
        var four = ShortVector.broadcast(STEP_S, (short) 4);
        var eight = ShortVector.broadcast(STEP_S, (short) 8);
        var twelve = ShortVector.broadcast(STEP_S, (short) 12);
        var halfShift = IntVector.broadcast(GROUP_I, 13);
        var halfMask = IntVector.broadcast(GROUP_I, HALF_SIGN_AND_MAGNITUDE);
        var halfFix = FloatVector.broadcast(GROUP_F, HALF_EXPONENT_FIX);
        var accA0 = FloatVector.zero(GROUP_F);
        var accA1 = FloatVector.zero(GROUP_F);
        var accB0 = FloatVector.zero(GROUP_F);
        var accB1 = FloatVector.zero(GROUP_F);
        var sumA0 = ShortVector.zero(STEP_S);
        var sumA1 = ShortVector.zero(STEP_S);
        var sumB0 = ShortVector.zero(STEP_S);
        var sumB1 = ShortVector.zero(STEP_S);
        long pair = pass * passBytes;
        int[] pairs = x.pairs;
        int[] sums = x.sums;
        float[] xd = x.d;
        ShortVector w0, w1, f00, f01, f02, f03, f10, f11, f12, f13, x0, x1, x2, x3;
        IntVector pairs0, pairs1;
        FloatVector scales0, scales1;
        float d;
        int offset;
        for (int i = 2 * b * blocks, end = i + 2 * blocks; i < end; i++) {
            int half = i & 1;
            int kb = i / 2;
            int pa = kb * (BLOCK / 2) + half * (STEPS / 2) * NIBBLES;
            int pb = pa + blocks * (BLOCK / 2);
            long steps0 = pair + 2 * SCALE_BYTES + half * (STEPS / 2) * STEP; // stepsAt written out: see InterleavedRows
            long steps1 = steps0 + STEPS_BYTES;
            w0 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 0 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 0 * STEP, LE);
            f00 = w0.lanewise(AND, nibble);
            f01 = w0.lanewise(LSHR, four).lanewise(AND, nibble);
            f02 = w0.lanewise(LSHR, eight).lanewise(AND, nibble);
            f03 = w0.lanewise(LSHR, twelve);
            f10 = w1.lanewise(AND, nibble);
            f11 = w1.lanewise(LSHR, four).lanewise(AND, nibble);
            f12 = w1.lanewise(LSHR, eight).lanewise(AND, nibble);
            f13 = w1.lanewise(LSHR, twelve);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 0]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 1]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 2]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 3]).reinterpretShape(STEP_S, 0);
            sumA0 = sumA0.lanewise(ADD, f00.lanewise(MUL, x0)).lanewise(ADD, f01.lanewise(MUL, x1)).lanewise(ADD, f02.lanewise(MUL, x2)).lanewise(ADD, f03.lanewise(MUL, x3));
            sumA1 = sumA1.lanewise(ADD, f10.lanewise(MUL, x0)).lanewise(ADD, f11.lanewise(MUL, x1)).lanewise(ADD, f12.lanewise(MUL, x2)).lanewise(ADD, f13.lanewise(MUL, x3));
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 0]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 1]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 2]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 3]).reinterpretShape(STEP_S, 0);
            sumB0 = sumB0.lanewise(ADD, f00.lanewise(MUL, x0)).lanewise(ADD, f01.lanewise(MUL, x1)).lanewise(ADD, f02.lanewise(MUL, x2)).lanewise(ADD, f03.lanewise(MUL, x3));
            sumB1 = sumB1.lanewise(ADD, f10.lanewise(MUL, x0)).lanewise(ADD, f11.lanewise(MUL, x1)).lanewise(ADD, f12.lanewise(MUL, x2)).lanewise(ADD, f13.lanewise(MUL, x3));
            w0 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 1 * STEP, LE);
            w1 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 1 * STEP, LE);
            f00 = w0.lanewise(AND, nibble);
            f01 = w0.lanewise(LSHR, four).lanewise(AND, nibble);
            f02 = w0.lanewise(LSHR, eight).lanewise(AND, nibble);
            f03 = w0.lanewise(LSHR, twelve);
            f10 = w1.lanewise(AND, nibble);
            f11 = w1.lanewise(LSHR, four).lanewise(AND, nibble);
            f12 = w1.lanewise(LSHR, eight).lanewise(AND, nibble);
            f13 = w1.lanewise(LSHR, twelve);
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 4]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 5]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 6]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 7]).reinterpretShape(STEP_S, 0);
            sumA0 = sumA0.lanewise(ADD, f00.lanewise(MUL, x0)).lanewise(ADD, f01.lanewise(MUL, x1)).lanewise(ADD, f02.lanewise(MUL, x2)).lanewise(ADD, f03.lanewise(MUL, x3));
            sumA1 = sumA1.lanewise(ADD, f10.lanewise(MUL, x0)).lanewise(ADD, f11.lanewise(MUL, x1)).lanewise(ADD, f12.lanewise(MUL, x2)).lanewise(ADD, f13.lanewise(MUL, x3));
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 4]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 5]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 6]).reinterpretShape(STEP_S, 0);
            x3 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 7]).reinterpretShape(STEP_S, 0);
            sumB0 = sumB0.lanewise(ADD, f00.lanewise(MUL, x0)).lanewise(ADD, f01.lanewise(MUL, x1)).lanewise(ADD, f02.lanewise(MUL, x2)).lanewise(ADD, f03.lanewise(MUL, x3));
            sumB1 = sumB1.lanewise(ADD, f10.lanewise(MUL, x0)).lanewise(ADD, f11.lanewise(MUL, x1)).lanewise(ADD, f12.lanewise(MUL, x2)).lanewise(ADD, f13.lanewise(MUL, x3));
            if (half == 1) {
                scales0 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair, LE).convertShape(S2I, GROUP_I, 0))
                        .lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
                scales1 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, pair + SCALE_BYTES, LE).convertShape(S2I, GROUP_I, 0))
                        .lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
                pairs0 = (IntVector) sumA0.reinterpretShape(GROUP_I, 0);
                pairs1 = (IntVector) sumA1.reinterpretShape(GROUP_I, 0);
                d = xd[kb];
                offset = 8 * sums[kb];
                accA0 = ((FloatVector) pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen))
                        .lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0)).lanewise(FMA, scales0.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), accA0);
                accA1 = ((FloatVector) pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen))
                        .lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0)).lanewise(FMA, scales1.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), accA1);
                sumA0 = ShortVector.zero(STEP_S);
                sumA1 = ShortVector.zero(STEP_S);
                pairs0 = (IntVector) sumB0.reinterpretShape(GROUP_I, 0);
                pairs1 = (IntVector) sumB1.reinterpretShape(GROUP_I, 0);
                d = xd[kb + blocks];
                offset = 8 * sums[kb + blocks];
                accB0 = ((FloatVector) pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen))
                        .lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0)).lanewise(FMA, scales0.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), accB0);
                accB1 = ((FloatVector) pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen))
                        .lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0)).lanewise(FMA, scales1.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), accB1);
                sumB0 = ShortVector.zero(STEP_S);
                sumB1 = ShortVector.zero(STEP_S);
                pair += 2 * BLOCK_BYTES;
            }
        }
        GROUP_F_CLASS.cast(accA0).intoArray(out, outIndex);
        GROUP_F_CLASS.cast(accA1).intoArray(out, outIndex + GROUP);
        GROUP_F_CLASS.cast(accB0).intoArray(out, outIndex + stride);
        GROUP_F_CLASS.cast(accB1).intoArray(out, outIndex + stride + GROUP);
    }

    @Override
    public void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane) {
        float[] scales = PANEL_SCALES.get();
        Arrays.fill(scales, GROUP, 2 * GROUP, 0f);
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            widenHalves(scalesAt(pair, group % 2), scales, 0);
            long steps = stepsAt(pair, group % 2);
            int column = k * BLOCK * stride + lane;
            for (int s = 0; s < STEPS; s++) {
                for (int n = 0; n < 2 * NIBBLES; n++) {
                    nibbleToPanel(steps + (long) s * STEP, n, 8, scales, panel, column + nibbleColumn(s, n) * stride);
                }
            }
        }
    }

    @Override
    public int panelBlock() {
        return BLOCK;
    }

    /** The values, and block k's row scales at {@code floats[k * WIDTH + lane ..+ 32)} in row order. */
    @Override
    public void decodeShortPanel(int pass, int firstBlock, int blockCount, IntTiledProduct.Panel panel, int lane) {
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(2 * pass, firstBlock + k);
            int scales = k * IntTiledProduct.WIDTH + lane;
            widenHalves(scalesAt(pair, 0), panel.floats, scales);
            widenHalves(scalesAt(pair, 1), panel.floats, scales + GROUP);
            nibbleStepsToShortPanel(stepsAt(pair, 0), stepsAt(pair, 1), panel.values,
                    k * BLOCK * IntTiledProduct.WIDTH + lane, IntTiledProduct.WIDTH);
        }
    }

    /**
     * Per block and row {@code fma(sum, scale[r] * d[i], c)}, {@link #dot}'s operations (its sum, {@code sum(q * x) -
     * 8 * sum(x)}, is this {@code sum((q - 8) * x)}). A 32-bit lane of the sums holds rows j (low half) and j + 16
     * (high half) of a pass; two shifts split them. Both passes of the panel at once: four chains of multiply-adds
     * instead of two, since each waits on its last (a panel cut short by the matrix's end sends its second pass,
     * never read, to {@link IntTiledProduct.Panel#spare}). A low half becomes a float without shifts: its bits,
     * offset by 2^15, under the exponent of 2^23 ({@code 0x4B00}, one three-input bitwise operation) make the float
     * {@code 2^23 + 2^15 + sum}, and a subtraction leaves the sum, exactly. The shifts and conversions all go to one
     * of the two 512-bit pipes here; the bitwise blend and the subtraction to either (one thread, 8192 x 2048 of 512
     * rows, alternated three times: 146-153 GFLOP/s against 143-149).
     */
    @Override
    public void sumsToFloats(IntTiledProduct.Panel panel, int firstBlock, int blockCount, Q8Activations x, int b, int count,
                             float[] c, int cOffset, int cStride, int width, boolean first) {
        int stride = IntTiledProduct.WIDTH;
        int rows = IntTiledProduct.ROWS;
        short[] sums = panel.sums;
        float[] scales = panel.floats;
        boolean both = width > ROWS_PER_PASS;
        float[] c1 = both ? c : panel.spare;
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var lowHalf = IntVector.broadcast(GROUP_I, 0x0000FFFF);
        var magic = IntVector.broadcast(GROUP_I, 0x4B008000);
        var magicValue = FloatVector.broadcast(GROUP_F, 8421376f); // 2^23 + 2^15
        for (int i = 0; i < count; i++) {
            int d = (b + i) * x.blocksPerRow + firstBlock;
            int o0 = cOffset + i * cStride;
            int o1 = both ? o0 + ROWS_PER_PASS : 0;
            var low0 = first ? FloatVector.zero(GROUP_F) : FloatVector.fromArray(GROUP_F, c, o0);
            var high0 = first ? FloatVector.zero(GROUP_F) : FloatVector.fromArray(GROUP_F, c, o0 + GROUP);
            var low1 = first ? FloatVector.zero(GROUP_F) : FloatVector.fromArray(GROUP_F, c1, o1);
            var high1 = first ? FloatVector.zero(GROUP_F) : FloatVector.fromArray(GROUP_F, c1, o1 + GROUP);
            for (int k = 0; k < blockCount; k++) {
                int at = k * stride;
                var ints0 = (IntVector) ShortVector.fromArray(STEP_S, sums, (k * rows + i) * stride).reinterpretShape(GROUP_I, 0);
                var ints1 = (IntVector) ShortVector.fromArray(STEP_S, sums, (k * rows + i) * stride + ROWS_PER_PASS).reinterpretShape(GROUP_I, 0);
                var dx = FloatVector.broadcast(GROUP_F, x.d[d + k]);
                low0 = ((FloatVector) magic.lanewise(BITWISE_BLEND, ints0.lanewise(XOR, magic), lowHalf).reinterpretShape(GROUP_F, 0))
                        .lanewise(SUB, magicValue).lanewise(FMA, FloatVector.fromArray(GROUP_F, scales, at).lanewise(MUL, dx), low0);
                high0 = ((FloatVector) ints0.lanewise(ASHR, sixteen).convertShape(I2F, GROUP_F, 0))
                        .lanewise(FMA, FloatVector.fromArray(GROUP_F, scales, at + GROUP).lanewise(MUL, dx), high0);
                low1 = ((FloatVector) magic.lanewise(BITWISE_BLEND, ints1.lanewise(XOR, magic), lowHalf).reinterpretShape(GROUP_F, 0))
                        .lanewise(SUB, magicValue).lanewise(FMA, FloatVector.fromArray(GROUP_F, scales, at + ROWS_PER_PASS).lanewise(MUL, dx), low1);
                high1 = ((FloatVector) ints1.lanewise(ASHR, sixteen).convertShape(I2F, GROUP_F, 0))
                        .lanewise(FMA, FloatVector.fromArray(GROUP_F, scales, at + ROWS_PER_PASS + GROUP).lanewise(MUL, dx), high1);
            }
            GROUP_F_CLASS.cast(low0).intoArray(c, o0);
            GROUP_F_CLASS.cast(high0).intoArray(c, o0 + GROUP);
            GROUP_F_CLASS.cast(low1).intoArray(c1, o1);
            GROUP_F_CLASS.cast(high1).intoArray(c1, o1 + GROUP);
        }
    }

    /** As {@code Q4_0Matrix.dequantize}: {@code (q - 8) * d}. */
    @Override
    public void decode(int row, int firstBlock, int blockCount, float[] out, int offset) {
        int r = row % GROUP;
        int place = row / GROUP % 2;
        for (int k = 0; k < blockCount; k++, offset += BLOCK) {
            long pair = pairAt(row / GROUP, firstBlock + k);
            float d = Float.float16ToFloat(data.get(SHORT, scalesAt(pair, place) + (long) r * Short.BYTES));
            long steps = stepsAt(pair, place);
            for (int i = 0; i < BLOCK; i++) out[offset + i] = (nibble(steps, r, i) - 8) * d;
        }
    }
}
