package dev.inferd.engine.tensor.format.f32;

import static dev.inferd.engine.tensor.vector.Lanes.sum;
import dev.inferd.engine.tensor.vector.Lanes;
import dev.inferd.engine.tensor.product.FloatDotMatrix;
import dev.inferd.engine.tensor.product.MappedMatrix;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** F32 weights: fused multiply-adds straight from the mapping. */
public final class F32Matrix extends FloatDotMatrix {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    public F32Matrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.F32, rows, cols, data);
    }

    @Override public GGMLType type() { return GGMLType.F32; }

    @Override
    public float dot(long rowOffset, float[] x, int xOffset) {
        // The same operations, in the same order, as one lane of dot4: a row's result must not depend
        // on whether it went through alone or with neighbours (see MappedMatrix).
        int step = F.length();
        int bound = F.loopBound(cols);
        var acc = FloatVector.zero(F);
        int c = 0;
        for (; c < bound; c += step) acc = F_CLASS.cast(load(rowOffset, c)).fma(FloatVector.fromArray(F, x, xOffset + c), acc);
        float sum = Lanes.sum(acc);
        for (; c < cols; c++) sum += data.get(F32, rowOffset + 4L * c) * x[xOffset + c];
        return sum;
    }

    @Override
    public void dot4(long rowOffset, float[] x, int xOffset, float[] out, int outIndex) {
        int step = F.length();
        int bound = F.loopBound(cols);
        int x1 = xOffset + cols, x2 = x1 + cols, x3 = x2 + cols;
        var a0 = FloatVector.zero(F);
        var a1 = FloatVector.zero(F);
        var a2 = FloatVector.zero(F);
        var a3 = FloatVector.zero(F);
        int c = 0;
        for (; c < bound; c += step) {
            var w = F_CLASS.cast(load(rowOffset, c));
            a0 = w.fma(FloatVector.fromArray(F, x, xOffset + c), a0);
            a1 = w.fma(FloatVector.fromArray(F, x, x1 + c), a1);
            a2 = w.fma(FloatVector.fromArray(F, x, x2 + c), a2);
            a3 = w.fma(FloatVector.fromArray(F, x, x3 + c), a3);
        }
        float s0 = sum(a0), s1 = sum(a1);
        float s2 = sum(a2), s3 = sum(a3);
        for (; c < cols; c++) {
            float w = data.get(F32, rowOffset + 4L * c);
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

    private FloatVector load(long rowOffset, int col) {
        return FloatVector.fromMemorySegment(F, data, rowOffset + 4L * col, LE);
    }

    @Override
    public void dequantize(long at, int count, float[] out, int offset) {
        MemorySegment.copy(data, F32, at, out, offset, count);
    }
}
