package dev.inferd.engine.tensor.format.q5_0;

import static dev.inferd.engine.tensor.vector.Lanes.sum;
import dev.inferd.engine.tensor.product.IntDotMatrix;
import dev.inferd.engine.tensor.product.InterleavedRows;
import dev.inferd.engine.tensor.product.Q8Activations;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Q5_0 weights: blocks of 32 values as an fp16 scale {@code d}, a 32-bit word whose bit {@code j} is
 * value j's fifth bit, and 16 bytes of low nibbles (values 0-15 low, 16-31 high); value = (q - 16) * d.
 * The bulk of small Q4_K_M models, whose rows are too short for k-quants.
 *
 * <p>Integer kernel as Q4_0's: value - 16 is the nibble minus 16 where the fifth bit is clear, so each
 * half's 16 bits of the word, tested lane by lane, choose what to subtract. Products are at most
 * 16 * 127, so the halves' sum and its pair sums stay inside 16 bits. These kernels serve matrices whose
 * rows do not come in whole passes of {@link InterleavedRows}; the others read their copy.
 */
public final class Q5_0Matrix extends IntDotMatrix {
    private static final int BLOCK_BYTES = 22;
    private static final int HALF_BLOCK = 16;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    /** Lane j: bit j. */
    private static final ShortVector BITS = bitPerLane();

    /** Over {@code data}, generated tokens reading {@code copy} where there is one ({@link Q5_0Interleaved}). */
    public Q5_0Matrix(int rows, int cols, MemorySegment data, InterleavedRows copy) {
        super(GGMLType.Q5_0, rows, cols, data, Q8Activations.Q8_0, copy);
    }

    @Override public GGMLType type() { return GGMLType.Q5_0; }

    private static ShortVector bitPerLane() {
        short[] bits = new short[S16.length()];
        for (int j = 0; j < bits.length; j++) bits[j] = (short) (1 << j);
        return ShortVector.fromArray(S16, bits, 0);
    }

    /** The nibbles minus 16 where the lane's bit of {@code high} (16 fifth bits) is clear. */
    private static ShortVector values(ShortVector nibbles, int high) {
        var clear = S16_CLASS.cast(ShortVector.broadcast(S16, (short) high)).and(BITS).compare(VectorOperators.EQ, 0);
        return S16_CLASS.cast(nibbles).sub(S16_CLASS.cast(ShortVector.zero(S16)).blend((short) 16, clear));
    }

    @Override
    public float dot(long rowOffset, Q8Activations x, int b) {
        var acc = FloatVector.zero(F8);
        long block = rowOffset;
        int k = b * x.blocksPerRow;
        for (int c = b * cols, end = c + cols; c < end; c += BLOCK, block += BLOCK_BYTES, k++) {
            int qh = data.get(U32, block + 2);
            var raw = S16_CLASS.cast(bytes(block + 6));
            var lo = values(raw.and((short) 0x0F), qh);
            var hi = values(raw.lanewise(VectorOperators.ASHR, 4).and((short) 0x0F), qh >>> 16);
            var products = lo.mul(activations(x, c)).add(hi.mul(activations(x, c + HALF_BLOCK)));
            acc = accumulate(smallPairSums(products), scale(block) * x.d[k], acc);
        }
        return sum(acc);
    }

    @Override
    public void dot2(long rowOffset, Q8Activations x, int b, float[] out, int outIndex) {
        var a0 = FloatVector.zero(F8);
        var a1 = FloatVector.zero(F8);
        long block = rowOffset;
        int c0 = b * cols, c1 = c0 + cols;
        int k0 = b * x.blocksPerRow, k1 = k0 + x.blocksPerRow;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            int qh = data.get(U32, block + 2);
            var raw = S16_CLASS.cast(bytes(block + 6));
            var lo = values(raw.and((short) 0x0F), qh);
            var hi = values(raw.lanewise(VectorOperators.ASHR, 4).and((short) 0x0F), qh >>> 16);
            float d = scale(block);
            a0 = accumulate(smallPairSums(lo.mul(activations(x, c0 + c)).add(hi.mul(activations(x, c0 + c + HALF_BLOCK)))), d * x.d[k0++], a0);
            a1 = accumulate(smallPairSums(lo.mul(activations(x, c1 + c)).add(hi.mul(activations(x, c1 + c + HALF_BLOCK)))), d * x.d[k1++], a1);
        }
        out[outIndex] = sum(a0);
        out[outIndex + rows] = sum(a1);
    }

    /** The scalar reference decoding ({@link Q5_0Reference}): prompt panels and rows where there is no copy. */
    @Override
    public void dequantizeStored(long at, int count, float[] out, int offset) {
        int blocks = count / GGMLType.Q5_0.blockSize();
        for (int b = 0; b < blocks; b++) {
            Q5_0Reference.dequantizeBlock(data, at + (long) b * GGMLType.Q5_0.blockBytes(), out, offset + b * GGMLType.Q5_0.blockSize());
        }
    }
}
