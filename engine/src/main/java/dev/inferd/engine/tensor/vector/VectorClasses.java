package dev.inferd.engine.tensor.vector;

import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The class of a species' vectors ({@code Float512Vector} for {@code FloatVector.SPECIES_512}), kept in a constant
 * to type a kernel's vectors exactly: {@code F_CLASS.cast(v)}. C2 may type a vector that a loop carries, or that a
 * reinterpretation returns, as plain {@code FloatVector}; the calls inside the Vector API's own methods
 * ({@code fma}, {@code intoArray}, {@code lanewise} with a scalar) then dispatch on those methods' type profiles,
 * which every caller in the process fills with vectors of every shape it uses. Where a profile held two shapes,
 * C2 inlined both and boxed the vectors on every step of a loop, for the rest of the process. A cast to a constant
 * class is exact and folds away where C2 can prove the class (a load, a loop of such vectors, a reinterpretation to
 * a named species); where it cannot, the cast is a real check on a boxed vector, so casts go only there. Why, and
 * how the product kernels are checked: docs/engine.md, "Exact vector types".
 */
public final class VectorClasses {
    private VectorClasses() {
    }

    /** The class of {@code species}' vectors, typed as the vectors the kernel declares ({@code FloatVector}, ...). */
    @SuppressWarnings("unchecked")
    public static <V extends Vector<?>> Class<V> of(VectorSpecies<?> species) {
        return (Class<V>) species.vectorType();
    }
}
