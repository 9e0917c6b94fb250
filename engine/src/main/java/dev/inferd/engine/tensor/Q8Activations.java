package dev.inferd.engine.tensor;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Activation rows quantized to blocks of 32 int8 values with one float scale each, the way llama.cpp
 * quantizes activations for its Q8_0 and Q4_0 dot products: {@code x ≈ q * d}, {@code d = max|x| / 127},
 * {@code q} rounded to nearest. The int8 values are kept widened to shorts, ready for 16-lane
 * multiplies, and each block's sum of {@code q} is kept for the Q4_0 offset of 8.
 *
 * <p>The error this adds to a dot product is at most {@code sum|w| * d / 2} per block, about 0.4% of
 * the block's largest activation times the weights: the same approximation llama.cpp makes.
 * Reused per calling thread: {@link #quantize} allocates only when a larger batch is seen.
 */
final class Q8Activations {
    static final int BLOCK = 32;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    private static final VectorSpecies<Short> S8 = ShortVector.SPECIES_128;
    /** Adding and subtracting 1.5 * 2^23 rounds a float below 2^22 to the nearest integer (ties to even). */
    private static final float ROUND = 12582912f;

    short[] q = new short[0];
    float[] d = new float[0];
    float[] sums = new float[0];
    int cols;

    /** Quantizes rows {@code 0..batch} of {@code x} (each {@code cols} long, a multiple of 32). */
    void quantize(float[] x, int batch, int cols) {
        int n = batch * cols;
        if (q.length < n) {
            q = new short[n];
            d = new float[n / BLOCK];
            sums = new float[n / BLOCK];
        }
        this.cols = cols;
        for (int b = 0, at = 0; at < n; b++, at += BLOCK) quantizeBlock(x, at, b);
    }

    private void quantizeBlock(float[] x, int at, int block) {
        var v0 = FloatVector.fromArray(F8, x, at);
        var v1 = FloatVector.fromArray(F8, x, at + 8);
        var v2 = FloatVector.fromArray(F8, x, at + 16);
        var v3 = FloatVector.fromArray(F8, x, at + 24);
        float amax = v0.abs().max(v1.abs()).max(v2.abs().max(v3.abs())).reduceLanes(VectorOperators.MAX);
        float scale = amax / 127f;
        float inverse = scale != 0 ? 1f / scale : 0f;
        d[block] = scale;
        int sum = store(v0, inverse, at) + store(v1, inverse, at + 8) + store(v2, inverse, at + 16) + store(v3, inverse, at + 24);
        sums[block] = sum;
    }

    /**
     * Adjacent pairs of 16 short products added into 8 int lanes (what {@code pmaddwd} does, which the
     * Vector API does not offer): int8 x int8 products and sums of two fit a short, their pair sums not.
     */
    static IntVector pairSums(ShortVector products) {
        var p = products.reinterpretAsInts();
        return p.lanewise(VectorOperators.ASHR, 16).add(p.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
    }

    private int store(FloatVector v, float inverse, int at) {
        var rounded = v.mul(inverse).add(ROUND).sub(ROUND);
        var s = (ShortVector) rounded.convertShape(VectorOperators.F2S, S8, 0);
        s.intoArray(q, at);
        return s.reduceLanes(VectorOperators.ADD);
    }
}
