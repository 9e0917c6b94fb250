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
 * Q4_0 weights: blocks of an fp16 scale {@code d} and 16 bytes of 4-bit values {@code q}, the low
 * nibbles being elements 0-15 and the high nibbles 16-31, value = (q - 8) * d.
 *
 * <p>Unpacking: flipping bit 3 of a nibble turns {@code q} into the 4-bit two's complement of
 * {@code q - 8}, so after one xor an arithmetic shift sign-extends each nibble to {@code q - 8}.
 *
 * <p>Decoding (batches under 4) multiplies the unsigned nibbles with int8-quantized activations
 * ({@link Q8Activations}) as shorts, two rows per pass, and subtracts {@code 8 * sum(x)} per block
 * afterwards: {@code sum((q - 8) x) = sum(q x) - 8 sum(x)}.
 */
final class Q4_0Matrix extends MappedMatrix {
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(F.length() * 8));
    private static final VectorSpecies<Integer> I = F.withLanes(int.class);
    private static final VectorSpecies<Byte> B16 = ByteVector.SPECIES_128;
    private static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int BLOCK = 32;
    private static final int HALF_BLOCK = 16;
    private static final int BLOCK_BYTES = 18;
    /** Flips bit 3 of both nibbles, and the sign extension with bit 7. */
    private static final int FLIP = 0xFFFFFF88;

    Q4_0Matrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.Q4_0, rows, cols, data);
    }

    @Override public GGMLType type() { return GGMLType.Q4_0; }

    /** F.length() packed bytes as ints, each holding (low nibble - 8) in bits 0-3 and (high - 8) in bits 4-7, signed. */
    private IntVector packed(long at) {
        var bytes = ByteVector.fromMemorySegment(B, data, at, LE);
        return ((IntVector) bytes.convertShape(VectorOperators.B2I, I, 0)).lanewise(VectorOperators.XOR, FLIP);
    }

    private static FloatVector low(IntVector p) {
        return (FloatVector) p.lanewise(VectorOperators.LSHL, 28).lanewise(VectorOperators.ASHR, 28)
                .convert(VectorOperators.I2F, 0);
    }

    private static FloatVector high(IntVector p) {
        return (FloatVector) p.lanewise(VectorOperators.ASHR, 4).convert(VectorOperators.I2F, 0);
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
            var sum = FloatVector.zero(F);
            for (int k = 0; k < HALF_BLOCK; k += step) {
                var p = packed(qs + k);
                sum = low(p).fma(FloatVector.fromArray(F, x, xc + k), sum);
                sum = high(p).fma(FloatVector.fromArray(F, x, xc + HALF_BLOCK + k), sum);
            }
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
            for (int k = 0; k < HALF_BLOCK; k += step) {
                var p = packed(qs + k);
                var lo = low(p).mul(d);
                int cl = c + k;
                a0 = lo.fma(FloatVector.fromArray(F, x, xOffset + cl), a0);
                a1 = lo.fma(FloatVector.fromArray(F, x, x1 + cl), a1);
                a2 = lo.fma(FloatVector.fromArray(F, x, x2 + cl), a2);
                a3 = lo.fma(FloatVector.fromArray(F, x, x3 + cl), a3);
                var hi = high(p).mul(d);
                int ch = cl + HALF_BLOCK;
                a0 = hi.fma(FloatVector.fromArray(F, x, xOffset + ch), a0);
                a1 = hi.fma(FloatVector.fromArray(F, x, x1 + ch), a1);
                a2 = hi.fma(FloatVector.fromArray(F, x, x2 + ch), a2);
                a3 = hi.fma(FloatVector.fromArray(F, x, x3 + ch), a3);
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
        float[] xs = x.sums;
        int xOffset = entry * cols;
        int dOffset = xOffset / BLOCK;
        int r = from;
        for (; r + 2 <= to; r += 2) {
            long b0 = r * rowBytes;
            long b1 = b0 + rowBytes;
            var acc0 = FloatVector.zero(F8);
            var acc1 = FloatVector.zero(F8);
            float offset0 = 0, offset1 = 0;
            for (int c = 0, blk = dOffset; c < cols; c += BLOCK, b0 += BLOCK_BYTES, b1 += BLOCK_BYTES, blk++) {
                var x0 = ShortVector.fromArray(S16, xq, xOffset + c);
                var x1 = ShortVector.fromArray(S16, xq, xOffset + c + HALF_BLOCK);
                var p0 = nibbles(b0 + 2);
                var p1 = nibbles(b1 + 2);
                var s0 = Q8Activations.pairSums(p0.and((short) 0x0F).mul(x0).add(p0.lanewise(VectorOperators.ASHR, 4).and((short) 0x0F).mul(x1)));
                var s1 = Q8Activations.pairSums(p1.and((short) 0x0F).mul(x0).add(p1.lanewise(VectorOperators.ASHR, 4).and((short) 0x0F).mul(x1)));
                float dx = xd[blk];
                float sx = xs[blk];
                float d0 = scale(b0) * dx;
                float d1 = scale(b1) * dx;
                acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, d0), acc0);
                acc1 = ((FloatVector) s1.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, d1), acc1);
                offset0 += d0 * sx;
                offset1 += d1 * sx;
            }
            out[outBase + r] = acc0.reduceLanes(VectorOperators.ADD) - 8 * offset0;
            out[outBase + r + 1] = acc1.reduceLanes(VectorOperators.ADD) - 8 * offset1;
        }
        if (r < to) {
            long b0 = r * rowBytes;
            var acc0 = FloatVector.zero(F8);
            float offset0 = 0;
            for (int c = 0, blk = dOffset; c < cols; c += BLOCK, b0 += BLOCK_BYTES, blk++) {
                var p0 = nibbles(b0 + 2);
                var s0 = Q8Activations.pairSums(p0.and((short) 0x0F).mul(ShortVector.fromArray(S16, xq, xOffset + c))
                        .add(p0.lanewise(VectorOperators.ASHR, 4).and((short) 0x0F).mul(ShortVector.fromArray(S16, xq, xOffset + c + HALF_BLOCK))));
                float d0 = scale(b0) * xd[blk];
                acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, d0), acc0);
                offset0 += d0 * xs[blk];
            }
            out[outBase + r] = acc0.reduceLanes(VectorOperators.ADD) - 8 * offset0;
        }
    }

    /** A block's 16 bytes as shorts (sign-extended: the masks above keep only the wanted nibble). */
    private ShortVector nibbles(long at) {
        return (ShortVector) ByteVector.fromMemorySegment(B16, data, at, LE).convertShape(VectorOperators.B2S, S16, 0);
    }

    @Override
    public void dequantizeRow(int row, float[] out, int offset) {
        long block = row * rowBytes;
        int step = F.length();
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            var d = FloatVector.broadcast(F, scale(block));
            for (int k = 0; k < HALF_BLOCK; k += step) {
                var p = packed(block + 2 + k);
                low(p).mul(d).intoArray(out, offset + c + k);
                high(p).mul(d).intoArray(out, offset + c + HALF_BLOCK + k);
            }
        }
    }
}
