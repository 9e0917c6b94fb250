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

    /** Rotations by half, a quarter, ... of the lanes: {@link #sum}'s folding order, for 8 lanes and for 16. */
    private static final VectorShuffle<Float> ROTATE_8_BY_4 = rotation(FloatVector.SPECIES_256, 4);
    private static final VectorShuffle<Float> ROTATE_8_BY_2 = rotation(FloatVector.SPECIES_256, 2);
    private static final VectorShuffle<Float> ROTATE_8_BY_1 = rotation(FloatVector.SPECIES_256, 1);
    private static final VectorShuffle<Float> ROTATE_16_BY_8 = rotation(FloatVector.SPECIES_512, 8);
    private static final VectorShuffle<Float> ROTATE_16_BY_4 = rotation(FloatVector.SPECIES_512, 4);
    private static final VectorShuffle<Float> ROTATE_16_BY_2 = rotation(FloatVector.SPECIES_512, 2);
    private static final VectorShuffle<Float> ROTATE_16_BY_1 = rotation(FloatVector.SPECIES_512, 1);

    /**
     * The sum of the lanes in a fixed order. {@code reduceLanes(ADD)} leaves its order to the
     * implementation, and the interpreter and the JIT-compiled code do differ, so the same row would
     * give different bits before and after warm-up; lane-wise adds of rotations are exact IEEE
     * operations in both.
     */
    public static float sum(FloatVector v) {
        // each rotation a constant of its own: with the shuffles read from an array in a loop, C2 could
        // not inline rearrange (PrintInlining: "virtual call") and kept a call per fold
        if (v.length() == 8) {
            v = v.add(v.rearrange(ROTATE_8_BY_4));
            v = v.add(v.rearrange(ROTATE_8_BY_2));
            return v.add(v.rearrange(ROTATE_8_BY_1)).lane(0);
        }
        if (v.length() != 16) throw new IllegalArgumentException("no fixed-order sum for " + v.length() + " lanes");
        v = v.add(v.rearrange(ROTATE_16_BY_8));
        v = v.add(v.rearrange(ROTATE_16_BY_4));
        v = v.add(v.rearrange(ROTATE_16_BY_2));
        return v.add(v.rearrange(ROTATE_16_BY_1)).lane(0);
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
     * e^x lane by lane, for x at most 0 (softmax after subtracting the maximum): within 2 ulp of the
     * exact value, and 0 below about -87.3 (and for -infinity). The polynomial is Cephes' {@code expf}
     * on {@code x - n ln 2}, scaled by {@code 2^n} through the exponent bits. Every step is an exactly
     * rounded IEEE operation (no {@code lanewise(EXP)}, whose intrinsic and Java fallback differ), so the
     * interpreter and compiled code give the same bits.
     */
    public static FloatVector expNonPositive(FloatVector x) {
        var shifted = x.fma(LOG2_E, ROUNDING);
        var n = shifted.sub(ROUNDING);
        var r = n.fma(FloatVector.broadcast(x.species(), -LN2_HIGH), x);
        r = n.fma(FloatVector.broadcast(x.species(), -LN2_LOW), r);
        var p = r.fma(1.9875691500E-4f, 1.3981999507E-3f);
        p = p.mul(r).add(8.3334519073E-3f);
        p = p.mul(r).add(4.1665795894E-2f);
        p = p.mul(r).add(1.6666665459E-1f);
        p = p.mul(r).add(5.0000001201E-1f);
        var y = p.fma(r.mul(r), r).add(1f);
        var power = ((IntVector) shifted.reinterpretAsInts()).sub(Float.floatToRawIntBits(ROUNDING) - 127)
                .lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
        return y.mul(power).blend(0f, x.compare(VectorOperators.LT, UNDERFLOW));
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
        var species = FloatVector.SPECIES_256;
        var sum = FloatVector.zero(species);
        int i = 0;
        for (int bound = species.loopBound(count); i < bound; i += species.length()) {
            var e = expNonPositive(FloatVector.fromArray(species, v, i).sub(max));
            e.intoArray(v, i);
            sum = sum.add(e);
        }
        if (i < count) {
            var inRange = species.indexInRange(i, count);
            var e = expNonPositive(FloatVector.fromArray(species, v, i, inRange).sub(max)).blend(0f, inRange.not());
            e.intoArray(v, i, inRange);
            sum = sum.add(e);
        }
        // sum's folds written out: beside two copies of expNonPositive, C2 stopped inlining at its node count
        // cutoff and left the call to sum out of line, its vector boxed (PrintInlining: NodeCountInliningCutoff)
        sum = sum.add(sum.rearrange(ROTATE_8_BY_4));
        sum = sum.add(sum.rearrange(ROTATE_8_BY_2));
        return sum.add(sum.rearrange(ROTATE_8_BY_1)).lane(0);
    }
}
