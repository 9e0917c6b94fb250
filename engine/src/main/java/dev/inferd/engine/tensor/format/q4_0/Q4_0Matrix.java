package dev.inferd.engine.tensor.format.q4_0;

import static dev.inferd.engine.tensor.vector.Lanes.sum;
import static dev.inferd.engine.tensor.vector.Lanes.sum;
import dev.inferd.engine.tensor.product.IntDotMatrix;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q4_0 weights: blocks of an fp16 scale {@code d} and 16 bytes of 4-bit values {@code q}, the low
 * nibbles being elements 0-15 and the high nibbles 16-31, value = (q - 8) * d.
 *
 * <p>A block's 16 bytes widen to 16 shorts; masking and shifting give the low and high nibbles, each
 * lined up with 16 activations. Every product is at most 8 * 127, so the sum of the two halves' products
 * and then of adjacent pairs stays far inside 16 bits.
 */
public final class Q4_0Matrix extends IntDotMatrix {
    private static final int BLOCK_BYTES = 18;
    private static final int HALF_BLOCK = 16;

    /** Over {@code data}, generated tokens reading {@code copy} where there is one (see {@link InterleavedRows#of}). */
    public Q4_0Matrix(int rows, int cols, MemorySegment data, InterleavedRows copy) {
        super(GGMLType.Q4_0, rows, cols, data, Q8Activations.Q8_0, copy);
    }

    @Override public GGMLType type() { return GGMLType.Q4_0; }

    private static ShortVector low(ShortVector raw) {
        return S16_CLASS.cast(raw).and((short) 0x0F).sub((short) 8);
    }

    private static ShortVector high(ShortVector raw) {
        return S16_CLASS.cast(raw).lanewise(VectorOperators.ASHR, 4).and((short) 0x0F).sub((short) 8);
    }

    @Override
    public float dot(long rowOffset, Q8Activations x, int b) {
        var acc = FloatVector.zero(F8);
        long block = rowOffset;
        int k = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += BLOCK, block += BLOCK_BYTES, k++) {
            var raw = bytes(block + 2);
            var products = S16_CLASS.cast(low(raw)).mul(activations(x, c)).add(S16_CLASS.cast(high(raw)).mul(activations(x, c + HALF_BLOCK)));
            acc = accumulate(smallPairSums(products), scale(block) * x.d[k], acc);
        }
        return sum(acc);
    }

    @Override
    public void dot2(long rowOffset, Q8Activations x, int b, float[] out, int outIndex) {
        var a0 = FloatVector.zero(F8);
        var a1 = FloatVector.zero(F8);
        int bpr = x.blocksPerRow;
        long block = rowOffset;
        int c0 = b * cols, c1 = c0 + cols;
        int k0 = b * bpr, k1 = k0 + bpr;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            var raw = bytes(block + 2);
            var lo = S16_CLASS.cast(low(raw));
            var hi = S16_CLASS.cast(high(raw));
            float d = scale(block);
            a0 = accumulate(smallPairSums(lo.mul(activations(x, c0 + c)).add(hi.mul(activations(x, c0 + c + HALF_BLOCK)))), d * x.d[k0++], a0);
            a1 = accumulate(smallPairSums(lo.mul(activations(x, c1 + c)).add(hi.mul(activations(x, c1 + c + HALF_BLOCK)))), d * x.d[k1++], a1);
        }
        out[outIndex] = sum(a0);
        out[outIndex + rows] = sum(a1);
    }

    @Override
    public void dequantizeStored(long at, int count, float[] out, int offset) {
        long block = at;
        for (int c = 0; c < count; c += BLOCK, block += BLOCK_BYTES) {
            var d = FloatVector.broadcast(F8, scale(block));
            // eight bytes at a time widened straight to ints, a conversion C2 compiles: widening 16 shorts
            // to floats a half at a time, the half a loop variable, ran as the Vector API's Java fallback
            // (a sixth of the samples of a lone 2048 x 2048 product of 512 prompt rows)
            for (int i = 0; i < HALF_BLOCK; i += 8) {
                var raw = I8_CLASS.cast(ByteVector.fromMemorySegment(ByteVector.SPECIES_64, data, block + 2 + i, LE)
                        .convertShape(VectorOperators.B2I, I8, 0));
                var low = F8_CLASS.cast(raw.and(0x0F).sub(8).convertShape(VectorOperators.I2F, F8, 0));
                var high = F8_CLASS.cast(raw.lanewise(VectorOperators.ASHR, 4).and(0x0F).sub(8).convertShape(VectorOperators.I2F, F8, 0));
                F8_CLASS.cast(low.mul(d)).intoArray(out, offset + c + i);
                F8_CLASS.cast(high.mul(d)).intoArray(out, offset + c + HALF_BLOCK + i);
            }
        }
    }
}
