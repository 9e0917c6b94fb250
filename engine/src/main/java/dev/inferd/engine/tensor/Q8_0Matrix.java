package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Q8_0 weights: blocks of an fp16 scale {@code d} and 32 int8 values {@code q}, value = q * d. The
 * int8s are widened to floats as they are read and multiplied with the float activations; each block's
 * partial sum is scaled by its {@code d} once.
 *
 * <p>Unlike Q4_0, decoding stays on this float path: an int8-activation kernel (as in Q4_0Matrix) was
 * 1.3x faster on one core with the weights in cache, but slower with two threads streaming from
 * memory (about 6-7 vs 9-16 GB/s on 2048-column shapes, measured back to back on the shared machine).
 */
final class Q8_0Matrix extends MappedMatrix {
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(F.length() * 8));
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int BLOCK = 32;
    private static final int BLOCK_BYTES = 34;

    Q8_0Matrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q8_0, rows, cols, data);
    }

    @Override public GGMLType type() { return GGMLType.Q8_0; }

    private FloatVector weights(long at) {
        return (FloatVector) ByteVector.fromMemorySegment(B, data, at, LE).convertShape(VectorOperators.B2F, F, 0);
    }

    private float scale(long block) {
        return Float.float16ToFloat(data.get(HALF, block));
    }

    @Override
    float dot(long rowOffset, float[] x, int xOffset) {
        int step = F.length();
        var acc = FloatVector.zero(F);
        long block = rowOffset;
        // The same operations, in the same order, as one lane of dot4 (see MappedMatrix).
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            var d = FloatVector.broadcast(F, scale(block));
            long qs = block + 2;
            for (int k = 0; k < BLOCK; k += step) {
                acc = weights(qs + k).mul(d).fma(FloatVector.fromArray(F, x, xOffset + c + k), acc);
            }
        }
        return sum(acc);
    }

    @Override
    void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex) {
        int step = F.length();
        int x1 = xOffset + cols, x2 = x1 + cols, x3 = x2 + cols;
        var a0 = FloatVector.zero(F);
        var a1 = FloatVector.zero(F);
        var a2 = FloatVector.zero(F);
        var a3 = FloatVector.zero(F);
        long block = rowOffset;
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            var d = FloatVector.broadcast(F, scale(block));
            long qs = block + 2;
            for (int k = 0; k < BLOCK; k += step) {
                var w = weights(qs + k).mul(d);
                int ck = c + k;
                a0 = w.fma(FloatVector.fromArray(F, x, xOffset + ck), a0);
                a1 = w.fma(FloatVector.fromArray(F, x, x1 + ck), a1);
                a2 = w.fma(FloatVector.fromArray(F, x, x2 + ck), a2);
                a3 = w.fma(FloatVector.fromArray(F, x, x3 + ck), a3);
            }
        }
        out[outIndex] = sum(a0);
        out[outIndex + rows] = sum(a1);
        out[outIndex + 2 * rows] = sum(a2);
        out[outIndex + 3 * rows] = sum(a3);
    }

    @Override
    public void dequantizeRow(int row, float[] out, int offset) {
        long block = row * rowBytes;
        int step = F.length();
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            var d = FloatVector.broadcast(F, scale(block));
            for (int k = 0; k < BLOCK; k += step) weights(block + 2 + k).mul(d).intoArray(out, offset + c + k);
        }
    }
}
