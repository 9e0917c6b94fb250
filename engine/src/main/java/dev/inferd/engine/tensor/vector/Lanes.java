package dev.inferd.engine.tensor.vector;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/** Vector helpers shared with the model code. */
public final class Lanes {
    private Lanes() {
    }

    /** {@link #expNonPositive} and {@link #softmaxNumerators} take 8 lanes; {@link #sum} takes 8 or 16. */
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    private static final VectorSpecies<Float> F512 = FloatVector.SPECIES_512;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
    /** The species' vector classes, to type the vectors exactly: {@link VectorClasses}. */
    private static final Class<FloatVector> F_CLASS = VectorClasses.of(F);
    private static final Class<FloatVector> F512_CLASS = VectorClasses.of(F512);
    private static final Class<IntVector> I_CLASS = VectorClasses.of(I);

    /** Rotations by half, a quarter, ... of the lanes: {@link #sum}'s folding order, for 8 lanes and for 16. */
    private static final VectorShuffle<Float> ROTATE_8_BY_4 = rotation(F, 4);
    private static final VectorShuffle<Float> ROTATE_8_BY_2 = rotation(F, 2);
    private static final VectorShuffle<Float> ROTATE_8_BY_1 = rotation(F, 1);
    private static final VectorShuffle<Float> ROTATE_16_BY_8 = rotation(F512, 8);
    private static final VectorShuffle<Float> ROTATE_16_BY_4 = rotation(F512, 4);
    private static final VectorShuffle<Float> ROTATE_16_BY_2 = rotation(F512, 2);
    private static final VectorShuffle<Float> ROTATE_16_BY_1 = rotation(F512, 1);

    /**
     * The sum of the lanes in a fixed order. {@code reduceLanes(ADD)} leaves its order to the
     * implementation, and the interpreter and the JIT-compiled code do differ, so the same row would
     * give different bits before and after warm-up; lane-wise adds of rotations are exact IEEE
     * operations in both. Its callers pass vectors of either shape, so it tells them apart by class, not
     * by the calls' type profiles here, which all its callers share.
     */
    public static float sum(FloatVector v) {
        // each rotation a constant of its own: with the shuffles read from an array in a loop, C2 could
        // not inline rearrange (PrintInlining: "virtual call") and kept a call per fold
        if (F_CLASS.isInstance(v)) {
            var w = F_CLASS.cast(v);
            w = w.add(w.rearrange(ROTATE_8_BY_4));
            w = w.add(w.rearrange(ROTATE_8_BY_2));
            return w.add(w.rearrange(ROTATE_8_BY_1)).lane(0);
        }
        if (!F512_CLASS.isInstance(v)) throw new IllegalArgumentException("no fixed-order sum for " + v.length() + " lanes");
        var w = F512_CLASS.cast(v);
        w = w.add(w.rearrange(ROTATE_16_BY_8));
        w = w.add(w.rearrange(ROTATE_16_BY_4));
        w = w.add(w.rearrange(ROTATE_16_BY_2));
        return w.add(w.rearrange(ROTATE_16_BY_1)).lane(0);
    }

    private static VectorShuffle<Float> rotation(VectorSpecies<Float> species, int shift) {
        int lanes = species.length();
        return VectorShuffle.fromOp(species, lane -> (lane + shift) % lanes);
    }

    private static final float LOG2_E = 1.44269504088896341f;
    /** ln 2 split in two, the first with few enough bits that {@code n * LN2_HIGH} is exact for any n used. */
    private static final float LN2_HIGH = 0.693359375f;
    private static final float LN2_LOW = -2.12194440e-4f;
    /** 1.5 * 2^23: added to a float under 2^22 in magnitude, leaves it rounded to an integer in the low mantissa bits. */
    private static final float ROUNDING = 12582912f;
    /** Below this, e^x is under the smallest normal float and counts as zero. */
    private static final float UNDERFLOW = -87.33f;

    /**
     * e^x lane by lane, for x of 8 lanes ({@code SPECIES_256}) and at most 0 (softmax after subtracting the
     * maximum): within 2 ulp of the exact value, and 0 below about -87.3 (and for -infinity). The polynomial
     * is Cephes' {@code expf} on {@code x - n ln 2}, scaled by {@code 2^n} through the exponent bits. Every
     * step is an exactly rounded IEEE operation (no {@code lanewise(EXP)}, whose intrinsic and Java fallback
     * differ), so the interpreter and compiled code give the same bits.
     */
    public static FloatVector expNonPositive(FloatVector x) {
        // every step's result typed exactly (VectorClasses), not only the argument: inlined into a large
        // method (the tail of softmaxNumerators, a layer's forward), the calls past C2's node budget are inlined
        // later, and their results are meanwhile any FloatVector, on which the next call would be dispatched
        x = F_CLASS.cast(x);
        var shifted = F_CLASS.cast(x.fma(LOG2_E, ROUNDING));
        var n = F_CLASS.cast(shifted.sub(ROUNDING));
        var r = F_CLASS.cast(n.fma(FloatVector.broadcast(F, -LN2_HIGH), x));
        r = F_CLASS.cast(n.fma(FloatVector.broadcast(F, -LN2_LOW), r));
        var p = F_CLASS.cast(r.fma(1.9875691500E-4f, 1.3981999507E-3f));
        p = F_CLASS.cast(F_CLASS.cast(p.mul(r)).add(8.3334519073E-3f));
        p = F_CLASS.cast(F_CLASS.cast(p.mul(r)).add(4.1665795894E-2f));
        p = F_CLASS.cast(F_CLASS.cast(p.mul(r)).add(1.6666665459E-1f));
        p = F_CLASS.cast(F_CLASS.cast(p.mul(r)).add(5.0000001201E-1f));
        var y = F_CLASS.cast(F_CLASS.cast(p.fma(r.mul(r), r)).add(1f));
        var exponent = I_CLASS.cast(I_CLASS.cast(shifted.reinterpretAsInts()).sub(Float.floatToRawIntBits(ROUNDING) - 127));
        var power = I_CLASS.cast(exponent.lanewise(VectorOperators.LSHL, 23)).reinterpretAsFloats();
        return F_CLASS.cast(y.mul(power)).blend(0f, x.compare(VectorOperators.LT, UNDERFLOW));
    }

    /**
     * Replaces {@code v[0 .. count)} by {@code e^(v - max)} ({@link #expNonPositive}, eight at a time)
     * and returns their sum, added lane by lane and then in {@link #sum}'s fixed order: softmax's
     * numerators and their total, for attention's scores and the sampler's logits. The launcher and the
     * test JVMs keep it out of its callers ({@code -XX:CompileCommand=dontinline}): inlined into attention,
     * past C2's inlining budget, its calls of {@link #expNonPositive} were left out of line and their
     * vectors boxed on every server start.
     */
    public static float softmaxNumerators(float[] v, int count, float max) {
        var sum = FloatVector.zero(F);
        int i = 0;
        for (int bound = F.loopBound(count); i < bound; i += F.length()) {
            var e = F_CLASS.cast(expNonPositive(F_CLASS.cast(FloatVector.fromArray(F, v, i)).sub(max)));
            e.intoArray(v, i);
            sum = F_CLASS.cast(sum).add(e);
        }
        if (i < count) {
            var inRange = F.indexInRange(i, count);
            var e = F_CLASS.cast(F_CLASS.cast(expNonPositive(F_CLASS.cast(FloatVector.fromArray(F, v, i, inRange)).sub(max)))
                    .blend(0f, inRange.not()));
            e.intoArray(v, i, inRange);
            sum = F_CLASS.cast(sum).add(e);
        }
        // sum's folds written out: beside two copies of expNonPositive, C2 stopped inlining at its node count
        // cutoff and left the call to sum out of line, its vector boxed (PrintInlining: NodeCountInliningCutoff)
        sum = F_CLASS.cast(sum);
        sum = sum.add(sum.rearrange(ROTATE_8_BY_4));
        sum = sum.add(sum.rearrange(ROTATE_8_BY_2));
        return sum.add(sum.rearrange(ROTATE_8_BY_1)).lane(0);
    }
}
