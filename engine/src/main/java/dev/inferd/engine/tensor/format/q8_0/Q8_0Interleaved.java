package dev.inferd.engine.tensor.format.q8_0;

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
import static jdk.incubator.vector.VectorOperators.B2F;
import static jdk.incubator.vector.VectorOperators.B2S;
import static jdk.incubator.vector.VectorOperators.FMA;
import static jdk.incubator.vector.VectorOperators.I2F;
import static jdk.incubator.vector.VectorOperators.LSHL;
import static jdk.incubator.vector.VectorOperators.MUL;
import static jdk.incubator.vector.VectorOperators.S2I;

/**
 * A copy of a Q8_0 matrix laid out for generated tokens ({@link InterleavedRows}): the stored kernel
 * broadcasts every block's scale from a general register, the step that held the Q4_0 kernel to half
 * of llama.cpp's speed before it was interleaved.
 *
 * <p>A group of {@link #GROUP} rows (eight with AVX2, sixteen with AVX-512; the counts below are for eight) takes, per block of 32 columns, {@link #BLOCK_BYTES} bytes (the stored size:
 * a row block's 34 bytes for each of its rows): sixteen 16-byte steps in which byte {@code 2r + t} of step s is row r's value
 * {@code 2s + t}, and the eight scales as the file's halves ({@link InterleavedRows#widenHalves}; as floats
 * they made the copy 6% larger than the file). A step widened to 16 shorts is two values of each row,
 * and the matching pair of activations, read as one int and broadcast, lines up with it. The two groups
 * of a pass share a block in the order the kernel reads them ({@link InterleavedRows#pairAt}): the first
 * group's steps 0-7, the second group's, the first group's steps 8-15, the second's, then the first
 * group's scales and the second's.
 *
 * <p>Products are at most 128 * 127, so two steps' products add inside 16 bits; their pair sums then
 * go to 32-bit lanes, one lane a row. Per block and row the float operations are llama.cpp's: the
 * integer sum converted, times the weight scale times the activation scale, added with one fused
 * multiply-add. Every activation row takes the same {@link #dot} call, so a row's result does not
 * depend on the batch around it.
 */
public final class Q8_0Interleaved extends InterleavedRows {
    private static final int BLOCK = 32;
    private static final int STEPS = 16;
    /** Half a block's steps of one group: what the kernel reads of each group an iteration. */
    private static final int HALF_BYTES = STEPS / 2 * STEP_BYTES;
    /** After both groups' steps; the second group's scales come GROUP halves after the first's. */
    private static final int SCALES_AT = 4 * HALF_BYTES;
    public static final int BLOCK_BYTES = (SCALES_AT + 2 * GROUP * Short.BYTES) / 2;

    public Q8_0Interleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q8_0, rows, cols, BLOCK_BYTES, memory);
    }

    @Override
    public void fillBlock(MemorySegment q8_0, long from, long pair, int place, int r) {
        data.set(SHORT, pair + SCALES_AT + ((long) place * GROUP + r) * Short.BYTES, q8_0.get(SHORT, from));
        // the row's 32 values in four reads, handed out two a step
        for (int l = 0; l < 4; l++) {
            long values = q8_0.get(LONG, from + 2 + 8L * l);
            for (int s = 0; s < 4; s++) {
                data.set(SHORT, stepAt(pair, 4 * l + s, place) + 2L * r, (short) (values >>> 16 * s));
            }
        }
    }

    /** Where step s (0-15) of the pass's first ({@code place} 0) or second group starts. */
    private static long stepAt(long pair, int s, int place) {
        return pair + (long) (2 * (s / (STEPS / 2)) + place) * HALF_BYTES + (long) (s % (STEPS / 2)) * STEP_BYTES;
    }

    @Override
    public void dot(int pass, Q8Activations x, int b, float[] out, int outIndex) {
        MemorySegment data = this.data; // a local: C2 reloaded the field around every block
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var halfShift = IntVector.broadcast(GROUP_I, 13);
        var halfMask = IntVector.broadcast(GROUP_I, HALF_SIGN_AND_MAGNITUDE);
        var halfFix = FloatVector.broadcast(GROUP_F, HALF_EXPONENT_FIX);
        var acc0 = FloatVector.zero(GROUP_F);
        var acc1 = FloatVector.zero(GROUP_F);
        long block = pass * passBytes; // both groups'
        int[] pairs = x.pairs;
        float[] xd = x.d;
        var sum0 = IntVector.zero(GROUP_I);
        var sum1 = IntVector.zero(GROUP_I);
        ShortVector a, c;
        IntVector pairs0, pairs1;
        // one loop over the row's half-blocks, the block's float step on every second (as in Q4_KInterleaved:
        // a loop over the halves nested in the loop over blocks was split into pre-, main and post-loops).
        // Two steps at a time: their products add inside 16 bits, then pair sums to 32. A half is written
        // out with nothing but Vector API calls (see InterleavedRows); all sixteen steps written out
        // outgrew C2's inlining budget and ran boxed, a hundred times slower
        for (int i = 2 * b * blocks, end = i + 2 * blocks; i < end; i++) {
            int half = i & 1;
            long steps0 = block + 2 * half * HALF_BYTES;
            long steps1 = steps0 + HALF_BYTES;
            int ph = i * (STEPS / 2);
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[ph]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[ph + 1]).reinterpretShape(STEP_S, 0);
            pairs0 = (IntVector) ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, a)
                    .lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, c)).reinterpretShape(GROUP_I, 0);
            pairs1 = (IntVector) ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, a)
                    .lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, c)).reinterpretShape(GROUP_I, 0);
            sum0 = sum0.lanewise(ADD, pairs0.lanewise(ASHR, sixteen)).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            sum1 = sum1.lanewise(ADD, pairs1.lanewise(ASHR, sixteen)).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[ph + 2]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[ph + 3]).reinterpretShape(STEP_S, 0);
            pairs0 = (IntVector) ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, a)
                    .lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, c)).reinterpretShape(GROUP_I, 0);
            pairs1 = (IntVector) ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, a)
                    .lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, c)).reinterpretShape(GROUP_I, 0);
            sum0 = sum0.lanewise(ADD, pairs0.lanewise(ASHR, sixteen)).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            sum1 = sum1.lanewise(ADD, pairs1.lanewise(ASHR, sixteen)).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[ph + 4]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[ph + 5]).reinterpretShape(STEP_S, 0);
            pairs0 = (IntVector) ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 4 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, a)
                    .lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 5 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, c)).reinterpretShape(GROUP_I, 0);
            pairs1 = (IntVector) ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 4 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, a)
                    .lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 5 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, c)).reinterpretShape(GROUP_I, 0);
            sum0 = sum0.lanewise(ADD, pairs0.lanewise(ASHR, sixteen)).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            sum1 = sum1.lanewise(ADD, pairs1.lanewise(ASHR, sixteen)).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[ph + 6]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[ph + 7]).reinterpretShape(STEP_S, 0);
            pairs0 = (IntVector) ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 6 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, a)
                    .lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 7 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, c)).reinterpretShape(GROUP_I, 0);
            pairs1 = (IntVector) ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 6 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, a)
                    .lanewise(ADD, ((ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 7 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0)).lanewise(MUL, c)).reinterpretShape(GROUP_I, 0);
            sum0 = sum0.lanewise(ADD, pairs0.lanewise(ASHR, sixteen)).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            sum1 = sum1.lanewise(ADD, pairs1.lanewise(ASHR, sixteen)).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            if (half == 1) {
                float d = xd[i / 2];
                // the groups' halves widened as widenHalves widens them, written out: see InterleavedRows
                var scales0 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, block + SCALES_AT, LE).convertShape(S2I, GROUP_I, 0))
                        .lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
                var scales1 = ((FloatVector) ((IntVector) ShortVector.fromMemorySegment(GROUP_S, data, block + SCALES_AT + GROUP * Short.BYTES, LE).convertShape(S2I, GROUP_I, 0))
                        .lanewise(LSHL, halfShift).lanewise(AND, halfMask).reinterpretShape(GROUP_F, 0)).lanewise(MUL, halfFix);
                acc0 = ((FloatVector) sum0.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, scales0.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
                acc1 = ((FloatVector) sum1.convertShape(I2F, GROUP_F, 0)).lanewise(FMA, scales1.lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
                sum0 = IntVector.zero(GROUP_I);
                sum1 = IntVector.zero(GROUP_I);
                block += 2 * BLOCK_BYTES;
            }
        }
        GROUP_F_CLASS.cast(acc0).intoArray(out, outIndex);
        GROUP_F_CLASS.cast(acc1).intoArray(out, outIndex + GROUP);
    }

    @Override
    public void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane) {
        float[] scales = PANEL_SCALES.get();
        int place = group % 2;
        for (int k = 0; k < blockCount; k++) {
            long pair = pairAt(group, firstBlock + k);
            widenHalves(pair + SCALES_AT + (long) place * GROUP * Short.BYTES, scales, 0);
            int column = k * BLOCK * stride + lane;
            for (int s = 0; s < STEPS; s++) {
                signedStepToPanel(stepAt(pair, s, place), scales, panel, column + 2 * s * stride, stride);
            }
        }
    }

    /** As {@code Q8_0Matrix.dequantizeStored}: {@code q * d}. */
    @Override
    public void decode(int row, int firstBlock, int blockCount, float[] out, int offset) {
        int r = row % GROUP;
        int group = row / GROUP, place = group % 2;
        for (int k = 0; k < blockCount; k++, offset += BLOCK) {
            long pair = pairAt(group, firstBlock + k);
            // the row's among both groups
            var d = FloatVector.broadcast(F8, Float.float16ToFloat(data.get(SHORT, pair + SCALES_AT + (long) (row % ROWS_PER_PASS) * Short.BYTES)));
            long first = stepAt(pair, 0, place), second = stepAt(pair, STEPS / 2, place);
            for (int part = 0; part < 4; part++) {
                var bytes = rowBytes(part < 2 ? first : second, r, part % 2);
                F8_CLASS.cast(F8_CLASS.cast(bytes.convertShape(B2F, F8, 0)).lanewise(MUL, d)).intoArray(out, offset + 8 * part);
            }
        }
    }
}
