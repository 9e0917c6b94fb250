package dev.inferd.engine.tensor;

import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
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
 * <p>Decoding (batches under 4) instead multiplies with int8-quantized activations
 * ({@link Q8Activations}), two weight rows per pass sharing the activation loads: 16 int8 weights
 * widen to shorts in one instruction, two 16-lane short products per block add up without overflow
 * ({@code 2 * 127 * 127 < 2^15}), and adjacent short pairs add into int lanes with shifts.
 */
final class Q8_0Matrix extends MappedMatrix {
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(F.length() * 8));
    private static final VectorSpecies<Byte> B16 = ByteVector.SPECIES_128;
    private static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
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
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            long qs = block + 2;
            int xc = xOffset + c;
            var sum = weights(qs).mul(FloatVector.fromArray(F, x, xc));
            for (int k = step; k < BLOCK; k += step) sum = weights(qs + k).fma(FloatVector.fromArray(F, x, xc + k), sum);
            acc = sum.fma(FloatVector.broadcast(F, scale(block)), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD);
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
        out[outIndex] = a0.reduceLanes(VectorOperators.ADD);
        out[outIndex + rows] = a1.reduceLanes(VectorOperators.ADD);
        out[outIndex + 2 * rows] = a2.reduceLanes(VectorOperators.ADD);
        out[outIndex + 3 * rows] = a3.reduceLanes(VectorOperators.ADD);
    }

    @Override
    boolean quantizesActivations() {
        return true;
    }

    @Override
    void dotQ8(int from, int to, Q8Activations x, int entry, float[] out, int outBase) {
        short[] xq = x.q;
        float[] xd = x.d;
        int xOffset = entry * cols;
        int dOffset = xOffset / BLOCK;
        int r = from;
        for (; r + 2 <= to; r += 2) {
            long b0 = r * rowBytes;
            long b1 = b0 + rowBytes;
            var acc0 = FloatVector.zero(F8);
            var acc1 = FloatVector.zero(F8);
            for (int c = 0, blk = dOffset; c < cols; c += BLOCK, b0 += BLOCK_BYTES, b1 += BLOCK_BYTES, blk++) {
                var x0 = ShortVector.fromArray(S16, xq, xOffset + c);
                var x1 = ShortVector.fromArray(S16, xq, xOffset + c + 16);
                var s0 = pairSums(wide(b0 + 2).mul(x0).add(wide(b0 + 18).mul(x1)));
                var s1 = pairSums(wide(b1 + 2).mul(x0).add(wide(b1 + 18).mul(x1)));
                float dx = xd[blk];
                acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, scale(b0) * dx), acc0);
                acc1 = ((FloatVector) s1.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, scale(b1) * dx), acc1);
            }
            out[outBase + r] = acc0.reduceLanes(VectorOperators.ADD);
            out[outBase + r + 1] = acc1.reduceLanes(VectorOperators.ADD);
        }
        if (r < to) {
            long b0 = r * rowBytes;
            var acc0 = FloatVector.zero(F8);
            for (int c = 0, blk = dOffset; c < cols; c += BLOCK, b0 += BLOCK_BYTES, blk++) {
                var s0 = pairSums(wide(b0 + 2).mul(ShortVector.fromArray(S16, xq, xOffset + c))
                        .add(wide(b0 + 18).mul(ShortVector.fromArray(S16, xq, xOffset + c + 16))));
                acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, scale(b0) * xd[blk]), acc0);
            }
            out[outBase + r] = acc0.reduceLanes(VectorOperators.ADD);
        }
    }

    /** 16 int8 weights at {@code at} as shorts. */
    private ShortVector wide(long at) {
        return (ShortVector) ByteVector.fromMemorySegment(B16, data, at, LE).convertShape(VectorOperators.B2S, S16, 0);
    }

    /** Adjacent pairs of shorts added into 8 int lanes. */
    static IntVector pairSums(ShortVector products) {
        var p = products.reinterpretAsInts();
        return p.lanewise(VectorOperators.ASHR, 16).add(p.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
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
