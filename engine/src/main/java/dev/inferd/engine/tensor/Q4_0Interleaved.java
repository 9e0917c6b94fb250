package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

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
import static jdk.incubator.vector.VectorOperators.SUB;

/**
 * A copy of a Q4_0 matrix laid out for generated tokens ({@link InterleavedRows}, llama.cpp's
 * {@code q4_0_8x8} repack on these machines). In the stored layout every 32-value block starts with a
 * scale that must be moved from a general register and broadcast; on this machine (session 7) that
 * per-block step held the row kernel to about half of llama.cpp's speed.
 *
 * <p>A group of {@link #GROUP} rows (eight with AVX2, sixteen with AVX-512; the counts below are for eight) stores, per block of 32 columns, {@link #BLOCK_BYTES} bytes: the eight
 * scales as floats, then eight 16-byte steps. Byte {@code 2r + j} of step {@code s} is row r's
 * byte {@code 2s + j} of the block, as stored: its low nibble is value {@code 2s + j}, its high
 * nibble value {@code 16 + 2s + j}. A step widened to 16 shorts is then two values of each row, and
 * the matching pair of activations, read as one int and broadcast, lines up with it.
 *
 * <p>The weights are multiplied unsigned (0..15) and the offset of 8 is taken back once per block
 * with the activations' block sum: a lane adds 16 products of at most 15 * 127, which stays inside
 * 16 bits. Per block and row the float operations are llama.cpp's: the integer sum converted, times
 * the weight scale times the activation scale, added with one fused multiply-add. A row's result does
 * not depend on the batch around it: every activation row takes the same {@link #dot} call.
 */
final class Q4_0Interleaved extends InterleavedRows {
    private static final int BLOCK = 32;
    private static final int STEPS = 8;
    private static final int SCALE_BYTES = GROUP * Float.BYTES;
    static final int BLOCK_BYTES = SCALE_BYTES + STEPS * STEP_BYTES;

    Q4_0Interleaved(int rows, int cols, MemorySegment memory) {
        super(GGMLType.Q4_0, rows, cols, BLOCK_BYTES, memory);
    }

    @Override
    void fillBlock(MemorySegment q4_0, long from, long pair, int place, int r) {
        long to = pair + (long) place * BLOCK_BYTES;
        data.set(FLOAT, to + (long) r * Float.BYTES, Float.float16ToFloat(q4_0.get(SHORT, from)));
        // the row's 16 bytes in two reads, handed out two bytes a step
        long first = q4_0.get(LONG, from + 2), second = q4_0.get(LONG, from + 10);
        long at = to + SCALE_BYTES + 2L * r;
        for (int s = 0; s < STEPS / 2; s++) {
            data.set(SHORT, at + (long) s * STEP_BYTES, (short) (first >>> 16 * s));
            data.set(SHORT, at + (long) (s + STEPS / 2) * STEP_BYTES, (short) (second >>> 16 * s));
        }
    }

    @Override
    void dot(int pass, Q8Activations x, int b, float[] out, int outIndex) {
        MemorySegment data = this.data; // a local: C2 reloaded the field around every block
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var four = ShortVector.broadcast(STEP_S, (short) 4);
        var acc0 = FloatVector.zero(GROUP_F);
        var acc1 = FloatVector.zero(GROUP_F);
        long block0 = pass * passBytes;
        long block1 = block0 + BLOCK_BYTES; // the pass's second group: the two groups' blocks alternate
        int kb = b * blocks;
        int[] pairs = x.pairs;
        var nibble = ShortVector.broadcast(STEP_S, (short) 0x0F);
        for (int k = 0; k < blocks; k++, kb++, block0 += 2 * BLOCK_BYTES, block1 += 2 * BLOCK_BYTES) {
            int p = kb * (BLOCK / 2);
            var sum0 = ShortVector.zero(STEP_S);
            var sum1 = ShortVector.zero(STEP_S);
            long steps0 = block0 + SCALE_BYTES;
            long steps1 = block1 + SCALE_BYTES;
            ShortVector w0, w1, low, high;
            // the eight steps written out, nothing but Vector API calls (see InterleavedRows): as a loop
            // over the steps it measured 1.45x slower, the loop's set-up and range checks around every block.
            // The bytes sign-extend (B2S, not ZERO_EXTEND_B2S: see InterleavedRows), so both nibbles are
            // masked; the high one by a shift of shorts: its count goes through a register, yet it measured
            // as fast as shifting ints, and it is fewer calls against C2's inlining budget
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 0]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + STEPS + 0]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 1]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + STEPS + 1]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 2]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + STEPS + 2]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 3]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + STEPS + 3]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 4 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 4 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 4]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + STEPS + 4]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 5 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 5 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 5]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + STEPS + 5]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 6 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 6 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 6]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + STEPS + 6]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 7 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 7 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + 7]).reinterpretShape(STEP_S, 0);
            high = (ShortVector) IntVector.broadcast(GROUP_I, pairs[p + STEPS + 7]).reinterpretShape(STEP_S, 0);
            sum0 = sum0.lanewise(ADD, w0.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w0.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            sum1 = sum1.lanewise(ADD, w1.lanewise(AND, nibble).lanewise(MUL, low)).lanewise(ADD, w1.lanewise(LSHR, four).lanewise(AND, nibble).lanewise(MUL, high));
            float d = x.d[kb];
            int offset = 8 * x.sums[kb];
            // IntDotMatrix.pairSums written out: past the body above, C2 leaves a call to it and boxes its vectors
            var pairs0 = (IntVector) sum0.reinterpretShape(GROUP_I, 0);
            var pairs1 = (IntVector) sum1.reinterpretShape(GROUP_I, 0);
            var ints0 = pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            var ints1 = pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen));
            acc0 = ((FloatVector) ints0.lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0))
                    .lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, block0, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc0);
            acc1 = ((FloatVector) ints1.lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0))
                    .lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, block1, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), acc1);
        }
        var minusZero = FloatVector.broadcast(GROUP_F, -0f); // exact receivers for the stores: see InterleavedRows
        acc0.lanewise(ADD, minusZero).intoArray(out, outIndex);
        acc1.lanewise(ADD, minusZero).intoArray(out, outIndex + GROUP);
    }

    /**
     * As {@link #dot} for entries {@code b} and {@code b + 1}, decoding each step's weights once for both
     * (1.2x two calls of {@link #dot}, session 11): each entry's integer sums are exact and its float
     * operations are {@link #dot}'s in the same order, so its result is bit for bit the one-entry kernel's.
     * Half a block an iteration with the block's float step on every second, as in {@link Q8_0Interleaved}:
     * both entries' whole blocks written out would pass C2's inlining budget (see {@link InterleavedRows}).
     */
    @Override
    void dot2(int pass, Q8Activations x, int b, float[] out, int outIndex, int stride) {
        MemorySegment data = this.data;
        var sixteen = IntVector.broadcast(GROUP_I, 16);
        var four = ShortVector.broadcast(STEP_S, (short) 4);
        var accA0 = FloatVector.zero(GROUP_F);
        var accA1 = FloatVector.zero(GROUP_F);
        var accB0 = FloatVector.zero(GROUP_F);
        var accB1 = FloatVector.zero(GROUP_F);
        var sumA0 = ShortVector.zero(STEP_S);
        var sumA1 = ShortVector.zero(STEP_S);
        var sumB0 = ShortVector.zero(STEP_S);
        var sumB1 = ShortVector.zero(STEP_S);
        long block0 = pass * passBytes;
        long block1 = block0 + BLOCK_BYTES; // the pass's second group: the two groups' blocks alternate
        int[] pairs = x.pairs;
        int[] sums = x.sums;
        float[] xd = x.d;
        var nibble = ShortVector.broadcast(STEP_S, (short) 0x0F);
        ShortVector w0, w1, low0, high0, low1, high1, a, c;
        IntVector pairs0, pairs1;
        float d;
        int offset;
        for (int i = 2 * b * blocks, end = i + 2 * blocks; i < end; i++) {
            int half = i & 1;
            int kb = i / 2;
            int pa = kb * (BLOCK / 2) + half * (STEPS / 2);
            int pb = pa + blocks * (BLOCK / 2);
            long steps0 = block0 + SCALE_BYTES + half * (STEPS / 2) * STEP_BYTES;
            long steps1 = block1 + SCALE_BYTES + half * (STEPS / 2) * STEP_BYTES;
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 0 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 0 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low0 = w0.lanewise(AND, nibble);
            high0 = w0.lanewise(LSHR, four).lanewise(AND, nibble);
            low1 = w1.lanewise(AND, nibble);
            high1 = w1.lanewise(LSHR, four).lanewise(AND, nibble);
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 0]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + STEPS + 0]).reinterpretShape(STEP_S, 0);
            sumA0 = sumA0.lanewise(ADD, low0.lanewise(MUL, a)).lanewise(ADD, high0.lanewise(MUL, c));
            sumA1 = sumA1.lanewise(ADD, low1.lanewise(MUL, a)).lanewise(ADD, high1.lanewise(MUL, c));
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 0]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + STEPS + 0]).reinterpretShape(STEP_S, 0);
            sumB0 = sumB0.lanewise(ADD, low0.lanewise(MUL, a)).lanewise(ADD, high0.lanewise(MUL, c));
            sumB1 = sumB1.lanewise(ADD, low1.lanewise(MUL, a)).lanewise(ADD, high1.lanewise(MUL, c));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 1 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low0 = w0.lanewise(AND, nibble);
            high0 = w0.lanewise(LSHR, four).lanewise(AND, nibble);
            low1 = w1.lanewise(AND, nibble);
            high1 = w1.lanewise(LSHR, four).lanewise(AND, nibble);
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 1]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + STEPS + 1]).reinterpretShape(STEP_S, 0);
            sumA0 = sumA0.lanewise(ADD, low0.lanewise(MUL, a)).lanewise(ADD, high0.lanewise(MUL, c));
            sumA1 = sumA1.lanewise(ADD, low1.lanewise(MUL, a)).lanewise(ADD, high1.lanewise(MUL, c));
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 1]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + STEPS + 1]).reinterpretShape(STEP_S, 0);
            sumB0 = sumB0.lanewise(ADD, low0.lanewise(MUL, a)).lanewise(ADD, high0.lanewise(MUL, c));
            sumB1 = sumB1.lanewise(ADD, low1.lanewise(MUL, a)).lanewise(ADD, high1.lanewise(MUL, c));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 2 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low0 = w0.lanewise(AND, nibble);
            high0 = w0.lanewise(LSHR, four).lanewise(AND, nibble);
            low1 = w1.lanewise(AND, nibble);
            high1 = w1.lanewise(LSHR, four).lanewise(AND, nibble);
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 2]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + STEPS + 2]).reinterpretShape(STEP_S, 0);
            sumA0 = sumA0.lanewise(ADD, low0.lanewise(MUL, a)).lanewise(ADD, high0.lanewise(MUL, c));
            sumA1 = sumA1.lanewise(ADD, low1.lanewise(MUL, a)).lanewise(ADD, high1.lanewise(MUL, c));
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 2]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + STEPS + 2]).reinterpretShape(STEP_S, 0);
            sumB0 = sumB0.lanewise(ADD, low0.lanewise(MUL, a)).lanewise(ADD, high0.lanewise(MUL, c));
            sumB1 = sumB1.lanewise(ADD, low1.lanewise(MUL, a)).lanewise(ADD, high1.lanewise(MUL, c));
            w0 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps0 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            w1 = (ShortVector) ByteVector.fromMemorySegment(STEP_B, data, steps1 + 3 * STEP_BYTES, LE).convertShape(B2S, STEP_S, 0);
            low0 = w0.lanewise(AND, nibble);
            high0 = w0.lanewise(LSHR, four).lanewise(AND, nibble);
            low1 = w1.lanewise(AND, nibble);
            high1 = w1.lanewise(LSHR, four).lanewise(AND, nibble);
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + 3]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pa + STEPS + 3]).reinterpretShape(STEP_S, 0);
            sumA0 = sumA0.lanewise(ADD, low0.lanewise(MUL, a)).lanewise(ADD, high0.lanewise(MUL, c));
            sumA1 = sumA1.lanewise(ADD, low1.lanewise(MUL, a)).lanewise(ADD, high1.lanewise(MUL, c));
            a = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + 3]).reinterpretShape(STEP_S, 0);
            c = (ShortVector) IntVector.broadcast(GROUP_I, pairs[pb + STEPS + 3]).reinterpretShape(STEP_S, 0);
            sumB0 = sumB0.lanewise(ADD, low0.lanewise(MUL, a)).lanewise(ADD, high0.lanewise(MUL, c));
            sumB1 = sumB1.lanewise(ADD, low1.lanewise(MUL, a)).lanewise(ADD, high1.lanewise(MUL, c));
            if (half == 1) {
                pairs0 = (IntVector) sumA0.reinterpretShape(GROUP_I, 0);
                pairs1 = (IntVector) sumA1.reinterpretShape(GROUP_I, 0);
                d = xd[kb];
                offset = 8 * sums[kb];
                accA0 = ((FloatVector) pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen))
                        .lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, block0, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), accA0);
                accA1 = ((FloatVector) pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen))
                        .lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, block1, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), accA1);
                sumA0 = ShortVector.zero(STEP_S);
                sumA1 = ShortVector.zero(STEP_S);
                pairs0 = (IntVector) sumB0.reinterpretShape(GROUP_I, 0);
                pairs1 = (IntVector) sumB1.reinterpretShape(GROUP_I, 0);
                d = xd[kb + blocks];
                offset = 8 * sums[kb + blocks];
                accB0 = ((FloatVector) pairs0.lanewise(ASHR, sixteen).lanewise(ADD, pairs0.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen))
                        .lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, block0, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), accB0);
                accB1 = ((FloatVector) pairs1.lanewise(ASHR, sixteen).lanewise(ADD, pairs1.lanewise(LSHL, sixteen).lanewise(ASHR, sixteen))
                        .lanewise(SUB, IntVector.broadcast(GROUP_I, offset)).convertShape(I2F, GROUP_F, 0)).lanewise(FMA, FloatVector.fromMemorySegment(GROUP_F, data, block1, LE).lanewise(MUL, FloatVector.broadcast(GROUP_F, d)), accB1);
                sumB0 = ShortVector.zero(STEP_S);
                sumB1 = ShortVector.zero(STEP_S);
                block0 += 2 * BLOCK_BYTES;
                block1 += 2 * BLOCK_BYTES;
            }
        }
        var minusZero = FloatVector.broadcast(GROUP_F, -0f); // exact receivers for the stores: see InterleavedRows
        accA0.lanewise(ADD, minusZero).intoArray(out, outIndex);
        accA1.lanewise(ADD, minusZero).intoArray(out, outIndex + GROUP);
        accB0.lanewise(ADD, minusZero).intoArray(out, outIndex + stride);
        accB1.lanewise(ADD, minusZero).intoArray(out, outIndex + stride + GROUP);
    }

    @Override
    void decodePanel(int group, int firstBlock, int blockCount, float[] panel, int stride, int lane) {
        float[] scales = PANEL_SCALES.get();
        Arrays.fill(scales, GROUP, 2 * GROUP, 0f);
        for (int k = 0; k < blockCount; k++) {
            long block = blockAt(group * GROUP, firstBlock + k);
            FloatVector.fromMemorySegment(GROUP_F, data, block, LE).intoArray(scales, 0); // MemorySegment.copy: a stub call per block
            int column = k * BLOCK * stride + lane;
            for (int s = 0; s < STEPS; s++) {
                nibbleStepToPanel(block + SCALE_BYTES + (long) s * STEP_BYTES, 8, scales, panel, column + 2 * s * stride, stride);
            }
        }
    }

    /** As {@code Q4_0Matrix.dequantize}: {@code (q - 8) * d}, eight values a vector. */
    @Override
    void decode(int row, int firstBlock, int blockCount, float[] out, int offset) {
        int r = row % GROUP;
        for (int k = 0; k < blockCount; k++, offset += BLOCK) {
            long block = blockAt(row, firstBlock + k);
            var d = FloatVector.broadcast(F8, data.get(FLOAT, block + (long) r * Float.BYTES));
            var bytes = rowBytes(block + SCALE_BYTES, r);
            // B2I and masks rather than ZERO_EXTEND_B2I: see InterleavedRows
            var q0 = (IntVector) bytes.convertShape(B2I, I8, 0);
            var q1 = (IntVector) bytes.convertShape(B2I, I8, 1);
            ((FloatVector) q0.lanewise(AND, IntVector.broadcast(I8, 0x0F)).lanewise(SUB, IntVector.broadcast(I8, 8)).convertShape(I2F, F8, 0)).lanewise(MUL, d).intoArray(out, offset);
            ((FloatVector) q1.lanewise(AND, IntVector.broadcast(I8, 0x0F)).lanewise(SUB, IntVector.broadcast(I8, 8)).convertShape(I2F, F8, 0)).lanewise(MUL, d).intoArray(out, offset + 8);
            ((FloatVector) q0.lanewise(LSHR, IntVector.broadcast(I8, 4)).lanewise(AND, IntVector.broadcast(I8, 0x0F)).lanewise(SUB, IntVector.broadcast(I8, 8)).convertShape(I2F, F8, 0)).lanewise(MUL, d).intoArray(out, offset + 16);
            ((FloatVector) q1.lanewise(LSHR, IntVector.broadcast(I8, 4)).lanewise(AND, IntVector.broadcast(I8, 0x0F)).lanewise(SUB, IntVector.broadcast(I8, 8)).convertShape(I2F, F8, 0)).lanewise(MUL, d).intoArray(out, offset + 24);
        }
    }
}
