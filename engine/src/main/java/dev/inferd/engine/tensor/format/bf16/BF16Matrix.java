package dev.inferd.engine.tensor.format.bf16;

import dev.inferd.engine.tensor.product.HalfMatrix;
import dev.inferd.engine.gguf.GGMLType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/** bfloat16 weights: the top half of a float, so widening is a shift. */
public final class BF16Matrix extends HalfMatrix {

    public BF16Matrix(int rows, int cols, MemorySegment data) {
        super(GGMLType.BF16, rows, cols, data);
    }

    @Override public GGMLType type() { return GGMLType.BF16; }

    @Override
    public FloatVector widen(IntVector halves) {
        return F_CLASS.cast(I_CLASS.cast(halves).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats());
    }

    @Override
    public float toFloat(short half) {
        return BF16Reference.bf16ToFloat(half);
    }
}
