package dev.inferd.engine.tensor;

import jdk.incubator.vector.FloatVector;

/** Vector helpers shared with the model code. */
public final class Lanes {
    private Lanes() {
    }

    /**
     * The sum of the lanes in a fixed order. {@code reduceLanes(ADD)} may add in another order once the
     * JIT compiles it, so the same input could give different bits; generation must be reproducible.
     */
    public static float sum(FloatVector v) {
        return MappedMatrix.sum(v);
    }
}
