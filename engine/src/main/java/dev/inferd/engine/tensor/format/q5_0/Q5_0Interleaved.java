package dev.inferd.engine.tensor.format.q5_0;

import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static jdk.incubator.vector.VectorOperators.ADD;
import static jdk.incubator.vector.VectorOperators.AND;
import static jdk.incubator.vector.VectorOperators.ASHR;
import static jdk.incubator.vector.VectorOperators.FMA;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.LSHR;
import static jdk.incubator.vector.VectorOperators.MUL;
import static jdk.incubator.vector.VectorOperators.S2I;

/**
 * A copy of a Q5_0 matrix laid out for generated tokens ({@link InterleavedRows}), as many bytes as the
 * stored matrix: 22 a row's block. The stored layout keeps the 32 fifth bits of a block in a word of their
 * own, and its row kernel spends a compare and a blend per half block putting them back; here every value
 * is a field of a 16-bit lane, already signed.
 *
 * <p>A group of {@link #GROUP} rows stores, per block of 32 columns, {@link #BLOCK_BYTES} bytes: the rows'
 * scales as the file's halves and five steps, each a {@link #STEP_S} vector of 16-bit lanes. A pass's block
 * holds both groups' scales, then the first group's steps, then the second's, as {@link
 * dev.inferd.engine.tensor.format.q4_0.Q4_0Interleaved}'s. Lanes {@code 2r} and {@code 2r + 1} are row r's;
 * lane {@code 2r + t} holds the row's values {@code 2i + t}, i = 0..15, as {@code v = q - 16} (-16..15) in
 * five-bit two's complement: value i = 3s + f (f = 0, 1, 2) of step s in bits {@code 1 + 5f} to
 * {@code 5 + 5f}, and value 15 spread over the steps' bit 0, step s holding its bit {@code 4 - s}. Sixteen
 * values of five bits fill five 16-bit lanes exactly; a layout of three values to a lane with the last
 * value in a sixth step (as {@code Q5_KInterleaved}'s) reads 1.18 times the bytes. A field is one or two
 * shifts out of its lane (a left shift that puts its top bit at bit 15, an arithmetic shift by 11), value
 * 15 three operations a step (double it, mask the bit, add); each field meets the same pair of activations in every
 * lane (an entry of {@link Q8Activations#pairs}).
 *
 * <p>A lane adds 16 products of at most 16 * 127, inside 16 bits; the pair sums go to 32-bit lanes, one a
 * row. Per block and row the float operations are llama.cpp's: the integer sum converted, times the weight
 * scale times the activation scale, added with one fused multiply-add. Every activation row takes the same
 * {@link #dot} call, so a row's result does not depend on the batch around it.
 */
public final class Q5_0Interleaved extends InterleavedRows {
    private static final int BLOCK = 32;
    private static final int STEPS = 5;
    private static final int STEP = LANE_STEP_BYTES;
    /** The values of a lane a step holds in fields (value 15 is spread over the steps). */
    private static final int FIELDS = 3;
    private static final int SCALE_BYTES = GROUP * Short.BYTES;
    private static final int STEPS_BYTES = STEPS * STEP;
    public static final int BLOCK_BYTES = SCALE_BYTES + STEPS_BYTES;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);

    public Q5_0Interleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q5_0, rows, cols, BLOCK_BYTES, memory);
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
    public void fillBlock(MemorySegment q5_0, long from, long pair, int place, int r) {
        data.set(SHORT, scalesAt(pair, place) + (long) r * Short.BYTES, q5_0.get(SHORT, from));
        long steps = stepsAt(pair, place);
        for (int s = 0; s < STEPS; s++) {
            for (int t = 0; t < 2; t++) {
                int lane = field(q5_0, from, 30 + t) >>> (STEPS - 1 - s) & 1;
                for (int f = 0; f < FIELDS; f++) lane |= field(q5_0, from, 2 * (FIELDS * s + f) + t) << 1 + 5 * f;
                data.set(SHORT, steps + (long) s * STEP + 2L * (2 * r + t), (short) lane);
            }
        }
    }

    /** Value {@code j} of the stored block at {@code from} as the five bits of {@code q - 16} in two's complement. */
    private static int field(MemorySegment q5_0, long from, int j) {
        int qh = q5_0.get(INT, from + 2);
        int nibbles = q5_0.get(BYTE, from + 6 + j % 16);
        int q = (j < 16 ? nibbles : nibbles >>> 4) & 0x0F | (qh >>> j & 1) << 4;
        return q ^ 0x10;
    }

    @Override
    public void dot(int pass, Q8Activations x, int b, float[] out, int outIndex) {
        MemorySegment data = this.data; // a local: C2 reloaded the field around every block
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var one = ShortVector.broadcast(STEP_S, (short) 1);
        var five = ShortVector.broadcast(STEP_S, (short) 5);
        var ten = ShortVector.broadcast(STEP_S, (short) 10);
        var eleven = ShortVector.broadcast(STEP_S, (short) 11);
        var fifteen = ShortVector.broadcast(STEP_S, (short) 15);
        var halfShift = IntVector.broadcast(GROUP_I, 13);
        var halfMask = IntVector.broadcast(GROUP_I, HALF_SIGN_AND_MAGNITUDE);
        var halfFix = FloatVector.broadcast(GROUP_F, HALF_EXPONENT_FIX);
        var acc0 = FloatVector.zero(GROUP_F);
        var acc1 = FloatVector.zero(GROUP_F);
        long pair = pass * passBytes;
        int kb = b * blocks;
        int[] pairs = x.pairs;
        ShortVector w0, w1, x0, x1, x2, sum0, sum1, last0, last1;
        for (int k = 0; k < blocks; k++, kb++, pair += 2 * BLOCK_BYTES) {
            int p = kb * (BLOCK / 2);
            long steps0 = pair + 2 * SCALE_BYTES; // stepsAt written out: see InterleavedRows
            long steps1 = steps0 + STEPS_BYTES;
            // every step's weights loaded first: parsed after the steps' arithmetic, the last loads came past C2's
            // live-node budget for inlining, and a load left to a later inlining dispatched on a shared profile
            var a0 = ShortVector.fromMemorySegment(STEP_S, data, steps0, LE);
            var b0 = ShortVector.fromMemorySegment(STEP_S, data, steps1, LE);
            var a1 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + STEP, LE);
            var b1 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + STEP, LE);
            var a2 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 2 * STEP, LE);
            var b2 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 2 * STEP, LE);
            var a3 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 3 * STEP, LE);
            var b3 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 3 * STEP, LE);
            var a4 = ShortVector.fromMemorySegment(STEP_S, data, steps0 + 4 * STEP, LE);
            var b4 = ShortVector.fromMemorySegment(STEP_S, data, steps1 + 4 * STEP, LE);
            // the five steps written out, nothing but Vector API calls (see InterleavedRows). A field's top bit
            // is moved to bit 15 and an arithmetic shift brings the field down, sign and all
            // step 0: values 0, 1, 2 of each lane, and bit 4 of value 15
            w0 = a0;
            w1 = b0;
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 0]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 1]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 2]).reinterpretShape(STEP_S, 0);
            sum0 = w0.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0).lanewise(ADD, w0.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last0 = w0.lanewise(LSHL, fifteen).lanewise(ASHR, fifteen);
            sum1 = w1.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0).lanewise(ADD, w1.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last1 = w1.lanewise(LSHL, fifteen).lanewise(ASHR, fifteen);
            // step 1: values 3, 4, 5 of each lane, and bit 3 of value 15
            w0 = a1;
            w1 = b1;
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 3]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 4]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 5]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last0 = last0.lanewise(ADD, last0).lanewise(ADD, w0.lanewise(AND, one));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last1 = last1.lanewise(ADD, last1).lanewise(ADD, w1.lanewise(AND, one));
            // step 2: values 6, 7, 8 of each lane, and bit 2 of value 15
            w0 = a2;
            w1 = b2;
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 6]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 7]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 8]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last0 = last0.lanewise(ADD, last0).lanewise(ADD, w0.lanewise(AND, one));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last1 = last1.lanewise(ADD, last1).lanewise(ADD, w1.lanewise(AND, one));
            // step 3: values 9, 10, 11 of each lane, and bit 1 of value 15
            w0 = a3;
            w1 = b3;
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 9]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 10]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 11]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last0 = last0.lanewise(ADD, last0).lanewise(ADD, w0.lanewise(AND, one));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last1 = last1.lanewise(ADD, last1).lanewise(ADD, w1.lanewise(AND, one));
            // step 4: values 12, 13, 14 of each lane, and bit 0 of value 15
            w0 = a4;
            w1 = b4;
            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 12]).reinterpretShape(STEP_S, 0);
            x1 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 13]).reinterpretShape(STEP_S, 0);
            x2 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 14]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0)).lanewise(ADD, w0.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w0.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last0 = last0.lanewise(ADD, last0).lanewise(ADD, w0.lanewise(AND, one));
            sum1 = sum1.lanewise(ADD, w1.lanewise(LSHL, ten).lanewise(ASHR, eleven).lanewise(MUL, x0)).lanewise(ADD, w1.lanewise(LSHL, five).lanewise(ASHR, eleven).lanewise(MUL, x1))
                    .lanewise(ADD, w1.lanewise(ASHR, eleven).lanewise(MUL, x2));
            last1 = last1.lanewise(ADD, last1).lanewise(ADD, w1.lanewise(AND, one));

            x0 = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 15]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, last0.lanewise(MUL, x0));
            sum1 = sum1.lanewise(ADD, last1.lanewise(MUL, x0));
            float d = x.d[kb];
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
            acc0 = ((FloatVector) ints0.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, scales0.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
            acc1 = ((FloatVector) ints1.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, scales1.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
        }
        GROUP_F_CLASS.cast(acc0).intoArray(out, outIndex);
        GROUP_F_CLASS.cast(acc1).intoArray(out, outIndex + GROUP);
    }

    /**
     * Read as ints, a step holds a row's two lanes in each int: lane 2r's fields in the low half, lane
     * {@code 2r + 1}'s in the high half. A field's top bit shifted to bit 31 and an arithmetic shift by 27 give
     * the value; value 15 is doubled and added bit by bit as in {@link #dot}. Each column is
     * {@code v * scale}, {@code Q5_0Reference}'s {@code (q - 16) * d}.
     */
    @Override
    public void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane) {
        float[] scales = PANEL_SCALES.get();
        int place = group % 2;
        var one = IntVector.broadcast(GROUP_I, 1);
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var twentySeven = IntVector.broadcast(GROUP_I, 27);
        var thirtyOne = IntVector.broadcast(GROUP_I, 31);
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            widenHalves(scalesAt(pair, place), scales, 0);
            var scale = FloatVector.fromArray(GROUP_F, scales, 0);
            long steps = stepsAt(pair, place);
            int column = k * BLOCK * stride + lane;
            var lastLow = IntVector.zero(GROUP_I);
            var lastHigh = IntVector.zero(GROUP_I);
            for (int s = 0; s < STEPS; s++) {
                var step = IntVector.fromMemorySegment(GROUP_I, data, steps + (long) s * STEP, LE);
                for (int f = 0; f < FIELDS; f++) {
                    int i = FIELDS * s + f;
                    var low = step.lanewise(LSHL, IntVector.broadcast(GROUP_I, 26 - 5 * f)).lanewise(ASHR, twentySeven);
                    var high = step.lanewise(LSHL, IntVector.broadcast(GROUP_I, 10 - 5 * f)).lanewise(ASHR, twentySeven);
                    GROUP_F_CLASS.cast(((FloatVector) low.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale)).intoArray(panel, column + 2 * i * stride);
                    GROUP_F_CLASS.cast(((FloatVector) high.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale)).intoArray(panel, column + (2 * i + 1) * stride);
                }
                if (s == 0) {
                    lastLow = step.lanewise(LSHL, thirtyOne).lanewise(ASHR, thirtyOne);
                    lastHigh = step.lanewise(LSHL, IntVector.broadcast(GROUP_I, 15)).lanewise(ASHR, thirtyOne);
                } else {
                    lastLow = lastLow.lanewise(ADD, lastLow).lanewise(ADD, step.lanewise(AND, one));
                    lastHigh = lastHigh.lanewise(ADD, lastHigh).lanewise(ADD, step.lanewise(LSHR, sixteen).lanewise(AND, one));
                }
            }
            GROUP_F_CLASS.cast(((FloatVector) lastLow.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale)).intoArray(panel, column + 30 * stride);
            GROUP_F_CLASS.cast(((FloatVector) lastHigh.convertShape(I2F, GROUP_F, 0)).lanewise(MUL, scale)).intoArray(panel, column + 31 * stride);
        }
    }

    /** As {@code Q5_0Reference.dequantizeBlock}: {@code (q - 16) * d}. */
    @Override
    public void decode(int row, int firstBlock, int blockCount, float[] out, int offset) {
        int r = row % GROUP;
        int place = row / GROUP % 2;
        for (int k = 0; k < blockCount; k++, offset += BLOCK) {
            long pair = pairAt(row / GROUP, firstBlock + k);
            float d = Float.float16ToFloat(data.get(SHORT, scalesAt(pair, place) + (long) r * Short.BYTES));
            long steps = stepsAt(pair, place);
            for (int t = 0; t < 2; t++) {
                int last = 0;
                for (int s = 0; s < STEPS; s++) {
                    int lane = data.get(SHORT, steps + (long) s * STEP + 2L * (2 * r + t));
                    for (int f = 0; f < FIELDS; f++) {
                        out[offset + 2 * (FIELDS * s + f) + t] = (lane << 26 - 5 * f >> 27) * d;
                    }
                    last = 2 * last + (lane & 1);
                }
                out[offset + 30 + t] = (last << 27 >> 27) * d;
            }
        }
    }
}
