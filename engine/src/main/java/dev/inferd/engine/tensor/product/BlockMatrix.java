package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.vector.VectorClasses;
import static dev.inferd.engine.tensor.vector.Lanes.sum;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Block types whose kernels decode a run of blocks (at most {@link #CHUNK} values) into a per-thread
 * float buffer with vector code and then multiply that buffer with the activations. The decode is one
 * call per chunk, so one loop serves every type; the buffer stays in L1. A subclass's decode works in
 * small methods (a few dozen values each) with no vector in their signatures: C2 stops inlining in big
 * unrolled bodies, and a vector that crosses a call it did not inline is boxed on the heap.
 *
 * <p>A subclass decodes to exactly ggml's dequantized values (same operations, same order), so
 * {@link #dequantizeRow} equals ggml's {@code dequantize_row_*} bit for bit.
 */
public abstract class BlockMatrix extends FloatDotMatrix {

    /** Values decoded per call: one k-quant super-block, eight 32-value blocks. */
    public static final int CHUNK = 256;
    /** F.length() bytes, widened lane by lane to F.length() ints. */
    public static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(F.length() * 8));
    public static final VectorSpecies<Integer> I = F.withLanes(int.class);
    /** I's vector class, to type vectors exactly ({@link VectorClasses}). */
    public static final Class<IntVector> I_CLASS = VectorClasses.of(I);
    public static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    /** 0, 1, 2, ... per lane. */
    public static final IntVector LANE = IntVector.zero(I).addIndex(1);
    public static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private static final ThreadLocal<float[]> SCRATCH = ThreadLocal.withInitial(() -> new float[CHUNK]);

    private final GGMLType type;
    private final int blockSize;
    private final int blockBytes;

    public BlockMatrix(GGMLType type, int rows, int cols, MemorySegment data) {
        super(type, rows, cols, data);
        this.type = type;
        this.blockSize = type.blockSize();
        this.blockBytes = type.blockBytes();
        if (blockSize % (2 * F.length()) != 0) {
            throw new IllegalStateException("pairs of " + F.length() + "-lane vectors do not tile " + type + " blocks");
        }
    }

    @Override public final GGMLType type() { return type; }

    /**
     * Decodes {@code count} values (whole blocks, {@code count <= CHUNK}) starting at byte {@code at} into
     * {@code out[0 .. count)}.
     */
    public abstract void decode(long at, int count, float[] out);

    /** F.length() bytes at {@code at}, zero-extended to int lanes. */
    public final IntVector bytes(long at) {
        return ((IntVector) ByteVector.fromMemorySegment(B, data, at, LE).convertShape(VectorOperators.B2I, I, 0))
                .lanewise(VectorOperators.AND, 0xFF);
    }

    /** F.length() bytes at {@code at}, sign-extended to int lanes (for callers that mask bits anyway). */
    public final IntVector rawBytes(long at) {
        return (IntVector) ByteVector.fromMemorySegment(B, data, at, LE).convertShape(VectorOperators.B2I, I, 0);
    }

    public static FloatVector toFloat(IntVector v) {
        return (FloatVector) v.convert(VectorOperators.I2F, 0);
    }

    public final float half(long at) {
        return Float.float16ToFloat(data.get(HALF, at));
    }

    public final int u8(long at) {
        return data.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    /*
     * dot and dot4 do the same floating-point operations in the same order for each activation row
     * (continuous batching needs a row's product to be independent of its batch): per chunk, vector k
     * of the decoded weights goes into accumulator k % 2 by one fused multiply-add, and the two
     * accumulators are added and folded by MappedMatrix.sum at the end. The decode is a call per
     * chunk whose signature holds no vector, so however C2 inlines it nothing is boxed, and these
     * loops stay small enough for every vector operation in them to be intrinsified.
     */

    @Override
    public float dot(long rowOffset, float[] x, int xOffset) {
        int step = F.length();
        float[] w = SCRATCH.get();
        var acc0 = FloatVector.zero(F);
        var acc1 = FloatVector.zero(F);
        long at = rowOffset;
        for (int c = 0; c < cols; c += CHUNK) {
            int n = Math.min(CHUNK, cols - c);
            decode(at, n, w);
            at += (long) n / blockSize * blockBytes;
            int xc = xOffset + c;
            for (int k = 0; k < n; k += 2 * step) {
                acc0 = FloatVector.fromArray(F, w, k).fma(FloatVector.fromArray(F, x, xc + k), acc0);
                acc1 = FloatVector.fromArray(F, w, k + step).fma(FloatVector.fromArray(F, x, xc + k + step), acc1);
            }
        }
        return sum(acc0.add(acc1));
    }

    @Override
    public void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex) {
        int step = F.length();
        int x1 = xOffset + cols, x2 = x1 + cols, x3 = x2 + cols;
        float[] w = SCRATCH.get();
        var a0 = FloatVector.zero(F);
        var a1 = FloatVector.zero(F);
        var a2 = FloatVector.zero(F);
        var a3 = FloatVector.zero(F);
        var b0 = FloatVector.zero(F);
        var b1 = FloatVector.zero(F);
        var b2 = FloatVector.zero(F);
        var b3 = FloatVector.zero(F);
        long at = rowOffset;
        for (int c = 0; c < cols; c += CHUNK) {
            int n = Math.min(CHUNK, cols - c);
            decode(at, n, w);
            at += (long) n / blockSize * blockBytes;
            for (int k = 0; k < n; k += 2 * step) {
                int ck = c + k;
                var v = FloatVector.fromArray(F, w, k);
                a0 = v.fma(FloatVector.fromArray(F, x, xOffset + ck), a0);
                a1 = v.fma(FloatVector.fromArray(F, x, x1 + ck), a1);
                a2 = v.fma(FloatVector.fromArray(F, x, x2 + ck), a2);
                a3 = v.fma(FloatVector.fromArray(F, x, x3 + ck), a3);
                v = FloatVector.fromArray(F, w, k + step);
                ck += step;
                b0 = v.fma(FloatVector.fromArray(F, x, xOffset + ck), b0);
                b1 = v.fma(FloatVector.fromArray(F, x, x1 + ck), b1);
                b2 = v.fma(FloatVector.fromArray(F, x, x2 + ck), b2);
                b3 = v.fma(FloatVector.fromArray(F, x, x3 + ck), b3);
            }
        }
        out[outIndex] = sum(a0.add(b0));
        out[outIndex + rows] = sum(a1.add(b1));
        out[outIndex + 2 * rows] = sum(a2.add(b2));
        out[outIndex + 3 * rows] = sum(a3.add(b3));
    }

    @Override
    public final void dequantize(long at, int count, float[] out, int offset) {
        float[] w = SCRATCH.get();
        for (int c = 0; c < count; c += CHUNK) {
            int n = Math.min(CHUNK, count - c);
            decode(at, n, w);
            at += (long) n / blockSize * blockBytes;
            System.arraycopy(w, 0, out, offset + c, n);
        }
    }
}
