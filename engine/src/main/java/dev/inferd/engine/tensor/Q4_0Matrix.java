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
 * <p>Every batch size uses float activations: an int8-activation decode kernel measured 1.2-1.3x
 * faster here, but it made a row's result depend on the batch it ran in, and the continuous-batching
 * scheduler needs the same bits alone or batched (see {@code BatchInvarianceTest}).
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
        // The same operations, in the same order, as one lane of dot4 (see MappedMatrix).
        for (int c = 0; c < cols; c += BLOCK, block += BLOCK_BYTES) {
            var d = FloatVector.broadcast(F, scale(block));
            long qs = block + 2;
            for (int k = 0; k < HALF_BLOCK; k += step) {
                var p = packed(qs + k);
                int cl = c + k;
                acc = low(p).mul(d).fma(FloatVector.fromArray(F, x, xOffset + cl), acc);
                acc = high(p).mul(d).fma(FloatVector.fromArray(F, x, xOffset + cl + HALF_BLOCK), acc);
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
            for (int k = 0; k < HALF_BLOCK; k += step) {
                var p = packed(block + 2 + k);
                low(p).mul(d).intoArray(out, offset + c + k);
                high(p).mul(d).intoArray(out, offset + c + HALF_BLOCK + k);
            }
        }
    }
}
