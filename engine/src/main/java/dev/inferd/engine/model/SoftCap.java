package dev.inferd.engine.model;

import dev.inferd.engine.tensor.vector.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Gemma's soft-capping, {@code cap * tanh(x / cap)} (of attention scores and of output logits), and a softmax's
 * numerators over a range that does not start at 0 (a sliding window). Vectorized: a 256k-token vocabulary is capped
 * once a generated token, and a scalar {@code Math.tanh} there costs milliseconds.
 */
final class SoftCap {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;

    private SoftCap() {
    }

    /** {@code v[i] = cap * tanh(v[i] * (1 / cap))} for {@code from <= i < to}. */
    static void apply(float[] v, int from, int to, float cap) {
        float inverse = 1f / cap;
        int i = from;
        for (int bound = from + F.loopBound(to - from); i < bound; i += F.length()) {
            tanh(FloatVector.fromArray(F, v, i).mul(inverse)).mul(cap).intoArray(v, i);
        }
        for (; i < to; i++) v[i] = cap * (float) Math.tanh(v[i] * inverse);
    }

    /** {@code tanh(x) = sign(x) (1 - e^(-2|x|)) / (1 + e^(-2|x|))}, whose exponent cannot overflow. */
    private static FloatVector tanh(FloatVector x) {
        var e = Lanes.expNonPositive(x.abs().mul(-2f));
        var magnitude = e.neg().add(1f).div(e.add(1f));
        return magnitude.blend(magnitude.neg(), x.compare(VectorOperators.LT, 0f));
    }

    /** {@code v[i] = e^(v[i] - max)} for {@code from <= i < to}; returns their sum. */
    static float softmaxNumerators(float[] v, int from, int to, float max) {
        var sum = FloatVector.zero(F);
        int i = from;
        for (int bound = from + F.loopBound(to - from); i < bound; i += F.length()) {
            var e = Lanes.expNonPositive(FloatVector.fromArray(F, v, i).sub(max));
            e.intoArray(v, i);
            sum = sum.add(e);
        }
        float total = Lanes.sum(sum);
        for (; i < to; i++) {
            float e = (float) Math.exp(v[i] - max);
            v[i] = e;
            total += e;
        }
        return total;
    }
}
