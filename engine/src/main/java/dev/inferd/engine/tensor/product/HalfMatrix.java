package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.vector.VectorClasses;
import static dev.inferd.engine.tensor.vector.Lanes.sum;
import static dev.inferd.engine.tensor.vector.Lanes.sum;
import dev.inferd.engine.tensor.vector.Lanes;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** 16-bit float weights (F16, BF16): widened to F32 lanes with integer bit moves, then fused multiply-adds. */
public abstract class HalfMatrix extends FloatDotMatrix {
    public static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(F.length() * 16));
    public static final VectorSpecies<Integer> I = F.withLanes(int.class);
    /** I's vector class, to type vectors exactly ({@link VectorClasses}). */
    public static final Class<IntVector> I_CLASS = VectorClasses.of(I);
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    public HalfMatrix(GGMLType type, int rows, int cols, MemorySegment data) {
        super(type, rows, cols, data);
    }

    /** F.length() halves, sign-extended to int lanes, as floats. */
    public abstract FloatVector widen(IntVector halves);

    public abstract float toFloat(short half);

    private FloatVector load(long rowOffset, int col) {
        var h = ShortVector.fromMemorySegment(S, data, rowOffset + 2L * col, LE);
        return widen(I_CLASS.cast(h.convertShape(VectorOperators.S2I, I, 0)));
    }

    private float scalar(long rowOffset, int col) {
        return toFloat(data.get(HALF, rowOffset + 2L * col));
    }

    @Override
    public final float dot(long rowOffset, float[] x, int xOffset) {
        // The same operations, in the same order, as one lane of dot4: a row's result must not depend
        // on whether it went through alone or with neighbours (see MappedMatrix).
        int step = F.length();
        int bound = F.loopBound(cols);
        var acc = FloatVector.zero(F);
        int c = 0;
        for (; c < bound; c += step) acc = load(rowOffset, c).fma(FloatVector.fromArray(F, x, xOffset + c), acc);
        float sum = Lanes.sum(acc);
        for (; c < cols; c++) sum += scalar(rowOffset, c) * x[xOffset + c];
        return sum;
    }

    @Override
    public final void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex) {
        int step = F.length();
        int bound = F.loopBound(cols);
        int x1 = xOffset + cols, x2 = x1 + cols, x3 = x2 + cols;
        var a0 = FloatVector.zero(F);
        var a1 = FloatVector.zero(F);
        var a2 = FloatVector.zero(F);
        var a3 = FloatVector.zero(F);
        int c = 0;
        for (; c < bound; c += step) {
            var w = load(rowOffset, c);
            a0 = w.fma(FloatVector.fromArray(F, x, xOffset + c), a0);
            a1 = w.fma(FloatVector.fromArray(F, x, x1 + c), a1);
            a2 = w.fma(FloatVector.fromArray(F, x, x2 + c), a2);
            a3 = w.fma(FloatVector.fromArray(F, x, x3 + c), a3);
        }
        float s0 = sum(a0), s1 = sum(a1);
        float s2 = sum(a2), s3 = sum(a3);
        for (; c < cols; c++) {
            float w = scalar(rowOffset, c);
            s0 += w * x[xOffset + c];
            s1 += w * x[x1 + c];
            s2 += w * x[x2 + c];
            s3 += w * x[x3 + c];
        }
        out[outIndex] = s0;
        out[outIndex + rows] = s1;
        out[outIndex + 2 * rows] = s2;
        out[outIndex + 3 * rows] = s3;
    }

    @Override
    public final void dequantize(long at, int count, float[] out, int offset) {
        int bound = F.loopBound(count);
        int c = 0;
        for (; c < bound; c += F.length()) load(at, c).intoArray(out, offset + c);
        for (; c < count; c++) out[offset + c] = scalar(at, c);
    }
}
