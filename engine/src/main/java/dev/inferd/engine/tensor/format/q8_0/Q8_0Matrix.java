package dev.inferd.engine.tensor.format.q8_0;

import static dev.inferd.engine.tensor.vector.Lanes.sum;
import static dev.inferd.engine.tensor.vector.Lanes.sum;
import dev.inferd.engine.tensor.product.IntDotMatrix;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * Q8_0 weights: blocks of an fp16 scale {@code d} and 32 int8 values {@code q}, value = q * d. A
 * block is two 16-short halves; each product is at most 128 * 127, so the two halves' products add
 * without leaving 16 bits, and their pair sums are formed in 32 bits.
 */
public final class Q8_0Matrix extends IntDotMatrix {
    private static final int BLOCK_BYTES = 34;
    private static final int HALF_BLOCK = 16;

    /** Over {@code data}, generated tokens reading {@code copy} where there is one (see {@link InterleavedRows#of}). */
    public Q8_0Matrix(int rows, int cols, MemorySegment data, InterleavedRows copy) {
        super(GGMLType.Q8_0, rows, cols, data, Q8Activations.Q8_0, copy);
    }

    @Override public GGMLType type() { return GGMLType.Q8_0; }

    @Override
    public float dot(long rowOffset, Q8Activations x, int b) {
        var acc = FloatVector.zero(F8);
        long block = rowOffset;
        int k = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += BLOCK, block += BLOCK_BYTES, k++) {
            var products = S16_CLASS.cast(bytes(block + 2)).mul(activations(x, c))
                    .add(S16_CLASS.cast(bytes(block + 2 + HALF_BLOCK)).mul(activations(x, c + HALF_BLOCK)));
            acc = accumulate(pairSums(products), scale(block) * x.d[k], acc);
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
            var lo = S16_CLASS.cast(bytes(block + 2));
            var hi = S16_CLASS.cast(bytes(block + 2 + HALF_BLOCK));
            float d = scale(block);
            a0 = accumulate(pairSums(lo.mul(activations(x, c0 + c)).add(hi.mul(activations(x, c0 + c + HALF_BLOCK)))), d * x.d[k0++], a0);
            a1 = accumulate(pairSums(lo.mul(activations(x, c1 + c)).add(hi.mul(activations(x, c1 + c + HALF_BLOCK)))), d * x.d[k1++], a1);
        }
        out[outIndex] = sum(a0);
        out[outIndex + rows] = sum(a1);
    }

    @Override
    public void dequantizeStored(long at, int count, float[] out, int offset) {
        long block = at;
        for (int c = 0; c < count; c += BLOCK, block += BLOCK_BYTES) {
            var d = FloatVector.broadcast(F8, scale(block));
            // eight bytes at a time straight to floats: a conversion part given by a loop variable is
            // not compiled to vector code
            for (int i = 0; i < BLOCK; i += 8) {
                var values = F8_CLASS.cast(ByteVector.fromMemorySegment(ByteVector.SPECIES_64, data, block + 2 + i, LE)
                        .convertShape(VectorOperators.B2F, F8, 0));
                F8_CLASS.cast(values.mul(d)).intoArray(out, offset + c + i);
            }
        }
    }
}
