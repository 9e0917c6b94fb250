package dev.inferd.engine.tensor.format.f16;

import dev.inferd.engine.tensor.product.HalfMatrix;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * IEEE half-precision weights. A half's bits moved up by 13 are a float 2^112 times too small (for
 * normal and subnormal halves alike), so a shift, a mask and one multiply widen a whole vector.
 * Infinities and NaNs are not preserved; they do not occur in usable weights.
 */
public final class F16Matrix extends HalfMatrix {
    private static final FloatVector EXPONENT_FIX = FloatVector.broadcast(F, 0x1p112f);

    public F16Matrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.F16, rows, cols, data);
    }

    @Override public GGMLType type() { return GGMLType.F16; }

    @Override
    public FloatVector widen(IntVector halves) {
        // halves are sign-extended: after the shift the sign sits in bits 28-31; keep only bit 31
        return F_CLASS.cast(I_CLASS.cast(halves).lanewise(VectorOperators.LSHL, 13).and(0x8FFFFFFF).reinterpretAsFloats()).mul(EXPONENT_FIX);
    }

    @Override
    public float toFloat(short half) {
        return Float.float16ToFloat(half);
    }
}
